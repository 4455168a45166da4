import { PaymentSessionStatus } from "@medusajs/framework/utils"
import type {
  AuthorizePaymentOutput,
  GetPaymentStatusOutput,
  Logger,
} from "@medusajs/framework/types"
import { fromServiceAmount } from "../../lib/money"
import type { TransactionRecord } from "../../lib/wire-schemas"
import type { ApprovalReversal } from "./approval-reversal"
import type { FollowOns } from "./follow-ons"
import type { CardServiceOptions } from "./options"
import {
  appendLogEntry,
  type CardServiceSessionData,
  type FailureReason,
} from "./session-data"
import {
  reasonText,
  statusForState,
  statusForUnapproved,
  isUnderReview,
} from "./status-mapping"
import { ordersOnHoldSupported } from "./orders-on-hold"
import type { SessionSealer } from "./session-seal"
import type { TransactionLookup } from "./transaction-lookup"

/**
 * Whether a session is paid, asked of the service before Medusa may place an
 * order. No approval happens on the server (section 4.2): the routes attach
 * the transaction the service reported, and this decides, from the service's
 * record, what it is worth.
 */
export class Authorization {
  constructor(
    private readonly lookup_: TransactionLookup,
    private readonly followOns_: FollowOns,
    private readonly reversal_: ApprovalReversal,
    private readonly options_: Pick<CardServiceOptions, "autoCapture">,
    private readonly sealer_: Pick<SessionSealer, "verifiedHolds">
  ) {}

  /**
   * authorizePayment for a session whose seal holds. With autoCapture, an
   * approved payment is captured at once.
   */
  async authorize(
    stored: CardServiceSessionData,
    key: string | undefined
  ): Promise<AuthorizePaymentOutput> {
    // Only the sealed terms and the transaction id are taken from the
    // (storefront-writable) session data; state, capture and history are
    // rebuilt from what the service says now, so a session cannot claim to
    // be captured or authorized by saying so.
    const session: CardServiceSessionData = {
      ...stored,
      state: "pending",
      capture: null,
      refunded_amount: 0,
      transactions: [],
      // Spent here: what an authorization returns carries none forward.
      verified: null,
    }
    if (!session.transaction_id) {
      return { status: PaymentSessionStatus.PENDING, data: session }
    }
    // The settlement's retrieve, carried sealed: one round trip to the
    // service per checkout, not two (issue 43). Anything it does not hold
    // for (forged, another session's, another transaction's, stale) asks.
    const verified = stored.verified
    if (this.sealer_.verifiedHolds(session, verified, Date.now())) {
      return this.approved(
        session,
        {
          transactionId: verified.transaction_id,
          reasonCode: verified.reason_code,
          cardType: verified.card_type,
          cardSuffix: verified.card_suffix,
          amount: session.amount,
        },
        key,
        stored
      )
    }
    const record = await this.lookup_.known(session.transaction_id)
    if (!record) {
      return failed(
        { ...session, transaction_id: null },
        {
          code: "foreign_transaction",
          message: "the service knows no such transaction",
        }
      )
    }
    const verdict = this.lookup_.verdict(record, session)
    switch (verdict.outcome) {
      case "foreign":
        return failed(
          { ...session, transaction_id: null },
          { code: "foreign_transaction", message: verdict.reason }
        )
      case "unapproved": {
        const status = statusForUnapproved(verdict.reasonCode, ordersOnHoldSupported())
        const failure = {
          code: verdict.reasonCode,
          message: `${verdict.reason}: ${reasonText(verdict.reasonCode)}`,
        }
        // 475 and 480 are not a verdict on the attempt yet; the rest end it.
        const undecided =
          status === "requires_more" || isUnderReview(verdict.reasonCode)
        const state = undecided ? "pending" : "failed"
        return { status, data: { ...session, state, failure } }
      }
      case "mismatch": {
        const reversed = await this.reversal_.reverse(session, record)
        return failed(reversed, { code: "mismatch", message: verdict.reason })
      }
      case "approved":
        break
    }
    return this.approved(
      session,
      { ...record, amount: fromServiceAmount(record.amount, session.currency_code) },
      key,
      stored
    )
  }

  /** An approval of the session's amount: authorized, or captured at once with autoCapture. */
  private async approved(
    session: CardServiceSessionData,
    record: Approval,
    key: string | undefined,
    stored: CardServiceSessionData
  ): Promise<AuthorizePaymentOutput> {
    const approved = approvedSession(session, record)
    if (!this.options_.autoCapture) {
      return { status: PaymentSessionStatus.AUTHORIZED, data: approved }
    }
    // Asked on every call: a capture that already happened answers 242,
    // which capture takes as done, so this is never a second capture. The
    // capture the stored data names is only a hint, checked with retrieve.
    const captured = await this.followOns_.capture(
      approved,
      key,
      stored.capture?.transaction_id
    )
    return { status: PaymentSessionStatus.CAPTURED, data: captured }
  }

  /**
   * getPaymentStatus: the stored state, except for a pending session with a
   * transaction, whose status the service's record decides.
   */
  async status(
    session: CardServiceSessionData
  ): Promise<GetPaymentStatusOutput> {
    if (!session.transaction_id || session.state !== "pending") {
      return { status: statusForState(session.state, session.failure), data: session }
    }
    const record = await this.lookup_.required(session.transaction_id)
    const verdict = this.lookup_.verdict(record, session)
    if (verdict.outcome === "approved") {
      return { status: PaymentSessionStatus.AUTHORIZED, data: session }
    }
    if (verdict.outcome === "unapproved") {
      return {
        status: statusForUnapproved(verdict.reasonCode, ordersOnHoldSupported()),
        data: session,
      }
    }
    return { status: PaymentSessionStatus.ERROR, data: session }
  }
}

/** authorizePayment's answer to data whose seal does not hold. */
export function tampered(
  data: unknown,
  logger: Logger
): AuthorizePaymentOutput {
  logger.warn(
    "card-service: refused a payment session whose data was altered or is not this provider's"
  )
  return {
    status: PaymentSessionStatus.ERROR,
    data: {
      ...(isRecord(data) ? data : {}),
      state: "failed",
      failure: {
        code: "tampered",
        message: "the payment session data was altered; start a new payment",
      },
    },
  }
}

function failed(
  session: CardServiceSessionData,
  failure: FailureReason
): AuthorizePaymentOutput {
  const state = session.state === "canceled" ? "canceled" : "failed"
  return {
    status: PaymentSessionStatus.ERROR,
    data: { ...session, state, failure },
  }
}

/** What an approval is, from the service's record or the settlement's verified copy of it. */
type Approval = Pick<TransactionRecord, "transactionId" | "reasonCode" | "cardType" | "cardSuffix"> & {
  /** In major units, as Medusa counts it. */
  amount: number
}

function approvedSession(
  session: CardServiceSessionData,
  record: Approval
): CardServiceSessionData {
  return {
    ...session,
    state: "authorized",
    failure: null,
    card: { type: record.cardType, suffix: record.cardSuffix },
    transactions: appendLogEntry(session, {
      transaction_id: record.transactionId,
      operation: "authorization",
      decision: "ACCEPT",
      reason_code: record.reasonCode,
      amount: record.amount,
    }),
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}
