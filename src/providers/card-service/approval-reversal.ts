import type { Logger } from "@medusajs/framework/types"
import { MedusaError } from "@medusajs/framework/utils"
import type { CardServiceClient } from "../../lib/card-service-client"
import { fromServiceAmount } from "../../lib/money"
import { describeReasonCode } from "../../lib/reason-codes"
import type { OperationResult, TransactionRecord } from "../../lib/wire-schemas"
import { followOnFields, sendFollowOn } from "./follow-on-request"
import { appendLogEntry, type CardServiceSessionData } from "./session-data"
import type { TransactionLookup } from "./transaction-lookup"

/** Section 7, 237: the authorization was already reversed; the reversal is done. */
const ALREADY_REVERSED = "237"

/**
 * Refusals a reversal may meet: 237 (already reversed), 238 (already
 * settled) and 243 (already settled or reversed). Only 237 says the money
 * was given back. A settled approval's money was taken, and the service's
 * record of an approval (2.1) names none of its follow-ons, so nothing the
 * plugin can read tells a 243 that means "reversed" from one that means
 * "settled": neither is booked as a reversal (ApprovalNotReleased).
 */
const REFUSED_AS_ALREADY_DONE = new Set([ALREADY_REVERSED, "238", "243"])

/**
 * A reversal the service refused because the approval's money may have been
 * taken (238, 243): the payment must not be booked as canceled, and the
 * store owner must look the approval up. NOT_ALLOWED, so Medusa refuses the
 * cancel with this message and keeps the payment as it was.
 */
export class ApprovalNotReleased extends MedusaError {
  /** Marks the error where instanceof cannot (provider-lookup.ts: two module registries). */
  readonly approvalNotReleased = true

  /** Whether `error` is an ApprovalNotReleased, from whichever copy of this file. */
  static is(error: unknown): error is ApprovalNotReleased {
    return (
      !!error &&
      typeof error === "object" &&
      (error as { approvalNotReleased?: unknown }).approvalNotReleased === true
    )
  }

  constructor(
    readonly transactionId: string,
    readonly reasonCode: string
  ) {
    super(
      MedusaError.Types.NOT_ALLOWED,
      `card-service: approval ${transactionId} was not released: the service answered ${reasonCode} (${describeReasonCode(reasonCode).meaning}). Its money may have been taken (captured and settled at the service), so it is not booked as given back; look the approval up at the service and refund what was taken.`
    )
  }
}

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

  /**
   * Reverses the approval `record`; the session comes back canceled. Throws
   * ApprovalNotReleased when the service says it may be settled (238, 243).
   */
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
      doneCodes: REFUSED_AS_ALREADY_DONE,
      alreadyDone: (reasonCode) => {
        if (reasonCode === ALREADY_REVERSED) return reversed(null, reasonCode)
        this.logger_.warn(
          `card-service: the reversal of approval ${record.transactionId} was refused with ${reasonCode}; not booked as released`
        )
        throw new ApprovalNotReleased(record.transactionId, reasonCode)
      },
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
