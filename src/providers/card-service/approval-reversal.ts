import type { Logger } from "@medusajs/framework/types"
import type { CardServiceClient } from "../../lib/card-service-client"
import { fromServiceAmount } from "../../lib/money"
import type { OperationResult, TransactionRecord } from "../../lib/wire-schemas"
import { followOnFields, sendFollowOn } from "./follow-on-request"
import { appendLogEntry, type CardServiceSessionData } from "./session-data"
import type { TransactionLookup } from "./transaction-lookup"

/** Section 7: already reversed (237), already settled (238), either (243). */
const ALREADY_REVERSED_OR_DONE = new Set(["237", "238", "243"])

/**
 * Giving an approval back (reversal, section 2.3), so that no money stays
 * held for an order that will not take it: on cancel, on a mismatch, after a
 * capture is voided, and for sessions Medusa deleted (orphan-release.ts).
 */
export class ApprovalReversal {
  constructor(
    private readonly client_: CardServiceClient,
    private readonly lookup_: TransactionLookup,
    private readonly merchantEmail_: string,
    private readonly logger_: Logger
  ) {}

  /** Reverses the approval `record`; the session comes back canceled. */
  async reverse(
    session: CardServiceSessionData,
    record: TransactionRecord
  ): Promise<CardServiceSessionData> {
    const input = {
      ...followOnFields(session, undefined, this.merchantEmail_),
      currency: record.currencyCode,
      // Section 7, 239: a reversal is for the amount that was approved.
      amount: record.amount,
      originalTransactionId: record.transactionId,
    }
    const reversed = (
      result: OperationResult | null,
      code: string
    ): CardServiceSessionData => ({
      ...session,
      state: "canceled",
      transactions: appendLogEntry(session, {
        transaction_id: result?.transactionId ?? null,
        operation: "reversal",
        decision: "ACCEPT",
        reason_code: code,
        amount: fromServiceAmount(record.amount, session.currency_code),
      }),
    })
    return sendFollowOn({
      send: () => this.client_.reverse(input),
      done: (result) => reversed(result, result.reasonCode),
      doneCodes: ALREADY_REVERSED_OR_DONE,
      alreadyDone: (reasonCode) => reversed(null, reasonCode),
      operation: "reverse",
      logger: this.logger_,
    })
  }

  /**
   * After its capture is voided, an authorization stands again at the
   * service (section 3, VOIDED: "the authorization itself is not deleted"),
   * holding the shopper's money for an order that has given it all back:
   * release it. The payment keeps its state; the log shows the reversal.
   */
  async releaseAuthorization(
    session: CardServiceSessionData
  ): Promise<CardServiceSessionData> {
    const record = await this.lookup_.known(session.transaction_id as string)
    if (!record) return session
    const released = await this.reverse(session, record)
    return { ...released, state: session.state }
  }
}
