import type { Logger } from "@medusajs/framework/types"
import type { CardServiceClient } from "../../lib/card-service-client"
import { CardServiceError } from "../../lib/card-service-error"
import type { TransactionRecord } from "../../lib/wire-schemas"
import { checkApproval, type ApprovalVerdict } from "./approval-check"
import { toMedusaError } from "./error-mapping"
import type { CardServiceSessionData } from "./session-data"
import type { SessionSealer } from "./session-seal"

/**
 * The service's own record of a transaction (retrieve, section 4.5). Session
 * data is storefront-writable, so what a transaction is and whether it
 * belongs to a session is always read here, never from the data.
 */
export class TransactionLookup {
  constructor(
    private readonly client_: CardServiceClient,
    private readonly sealer_: SessionSealer,
    private readonly logger_: Logger
  ) {}

  /** The service's record, or the client's CardServiceError as it is. */
  retrieve(transactionId: string): Promise<TransactionRecord> {
    return this.client_.retrieve(transactionId)
  }

  /** The service's record, or null when it has none (404) for this merchant. */
  async known(transactionId: string): Promise<TransactionRecord | null> {
    try {
      return await this.client_.retrieve(transactionId)
    } catch (error) {
      if (error instanceof CardServiceError && error.httpStatus === 404) {
        return null
      }
      throw toMedusaError(error, "retrieve", this.logger_)
    }
  }

  /** The record of a transaction the session names; a failure is a MedusaError. */
  async required(transactionId: string): Promise<TransactionRecord> {
    try {
      return await this.client_.retrieve(transactionId)
    } catch (error) {
      throw toMedusaError(error, "retrieve", this.logger_)
    }
  }

  /** What the record says about the session, judged with this plugin's reference MAC. */
  verdict(
    record: TransactionRecord,
    session: CardServiceSessionData
  ): ApprovalVerdict {
    return checkApproval(record, session, (reference, id) =>
      this.sealer_.referenceBelongsTo(reference, id)
    )
  }
}

/** The fields of a record that retrievePayment hands back with the payment data. */
export function publicRecord(record: TransactionRecord) {
  return {
    transactionId: record.transactionId,
    step: record.step,
    status: record.status,
    reasonCode: record.reasonCode,
    captureStatus: record.captureStatus,
    amount: record.amount,
    currencyCode: record.currencyCode,
    cardType: record.cardType,
    cardSuffix: record.cardSuffix,
  }
}
