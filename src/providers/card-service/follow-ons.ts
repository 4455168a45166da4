import { MedusaError } from "@medusajs/framework/utils"
import type { Logger, PaymentProviderContext } from "@medusajs/framework/types"
import type { CardServiceClient } from "../../lib/card-service-client"
import {
  amountsEqual,
  fromMinorUnits,
  toMinorUnits,
  toServiceAmount,
  toVoidAmount,
} from "../../lib/money"
import type { AmountInput } from "../../lib/money"
import type { OperationResult } from "../../lib/wire-schemas"
import type { ApprovalReversal } from "./approval-reversal"
import { isIndeterminate, isReason, toMedusaError } from "./error-mapping"
import { followOnFields, sendFollowOn, serviceFailed } from "./follow-on-request"
import {
  formatAmount,
  liveCapture,
  orphanedFollowOn,
  orphanedText,
  rebooked,
  refundBeyondCapture,
  refusal,
  sameAmount,
  secondCaptureText,
  unknownRefund,
  unknownRefundText,
} from "./follow-on-limits"
import { followOnReference } from "./merchant-reference"
import {
  appendLogEntry,
  logEntry,
  type CardServiceSessionData,
  type TransactionLogEntry,
} from "./session-data"
import { sessionLogTag } from "../../lib/log-redaction"

/** Section 7, 242: the authorization is already used by a capture. */
const ALREADY_CAPTURED = new Set(["242"])
/** Section 7, 246: the capture was already submitted to the processor. */
const NOT_VOIDABLE = new Set(["246"])

type CaptureAnswer = Pick<OperationResult, "transactionId" | "reasonCode">

/**
 * Moving the money of an approved payment (section 2.3): capture, and
 * giving it back by refund, or by void while the capture is still pending.
 * Every method returns the whole session, as Medusa stores what it gets.
 */
export class FollowOns {
  constructor(
    private readonly client_: CardServiceClient,
    private readonly reversal_: ApprovalReversal,
    private readonly merchantEmail_: string,
    private readonly logger_: Logger
  ) {}

  /**
   * authorizePayment's capture (autoCapture): the whole approval, the only
   * capture such a payment ever gets. Asked again on every authorization, so
   * a 242 means this very capture acted earlier. `claimedCaptureId` is the
   * capture the stored data names: only a hint, checked with retrieve.
   */
  async capture(
    session: CardServiceSessionData,
    key: string | undefined,
    claimedCaptureId?: string | null
  ): Promise<CardServiceSessionData> {
    return this.sendCapture_(session, key, session.amount, async (reasked) =>
      reasked ? null : await this.confirmCapture_(session, claimedCaptureId)
    )
  }

  /**
   * The capture Medusa books (the admin's, or an order flow's): exactly
   * `booked` (medusa-captures.ts; null where Medusa's record cannot be
   * read, which means the whole approval). The service allows one capture
   * per approval (section 7, 242), so a capture after the first is refused
   * here, with what was taken and what to do instead; Medusa then books
   * nothing for it. A 242 is success only for the capture the log already
   * holds under this key, with this amount.
   */
  async captureBooked(
    session: CardServiceSessionData,
    key: string | undefined,
    booked: number | null,
    /** The keys of Medusa's capture rows of this payment (payment-record.ts); null when unknown. */
    bookedKeys: ReadonlySet<string> | null = null
  ): Promise<CardServiceSessionData> {
    const amount = booked ?? session.amount
    const repeat = key
      ? session.transactions.find(
          (t) =>
            t.operation === "capture" && t.key === key && t.decision !== "REJECT"
        )
      : undefined
    if (repeat && sameAmount(repeat.amount, amount, session)) return session
    // A capture the service made whose booking Medusa lost: booked under this
    // row when the amount is the same, never sent again.
    const orphan = orphanedFollowOn(session, ["capture"], key, bookedKeys)
    if (orphan && !orphan.voided) {
      if (sameAmount(orphan.amount, amount, session)) return rebooked(session, orphan, key)
      throw refusal(orphanedText(session, orphan, amount))
    }
    const earlier = liveCapture(session)
    if (earlier) {
      // authorizePayment captured the whole approval (autoCapture) and Medusa
      // books that very capture now: nothing more to take.
      if (
        earlier.key === session.session_id &&
        sameAmount(earlier.amount, amount, session)
      ) {
        return session
      }
      throw refusal(secondCaptureText(session, earlier, amount))
    }
    const minor = toMinorUnits(amount, session.currency_code)
    if (minor <= 0n || minor > toMinorUnits(session.amount, session.currency_code)) {
      throw refusal(
        `cannot capture ${formatAmount(amount, session)}: the approval is for ${formatAmount(session.amount, session)}`
      )
    }
    return this.sendCapture_(session, key, amount, async (reasked) => {
      // Asked once more after no answer: the first sending acted.
      if (reasked) return null
      throw refusal(
        `the service says this payment's approval is already used by a capture that this payment's record does not hold (the answer to an earlier capture may have been lost). Medusa books nothing for this request; look up reference ${followOnReference(session.session_id, key)} and the approval ${session.transaction_id} at the card service before capturing again`
      )
    })
  }

  /**
   * A capture booked with no answer (lost-follow-ons.ts), sent once more with
   * its own key and amount: it captures now, or the service refuses with
   * 242 because the lost one acted.
   */
  async recaptureLost(
    session: CardServiceSessionData,
    lost: TransactionLogEntry
  ): Promise<CardServiceSessionData> {
    return this.sendCapture_(
      { ...session, state: "authorized", capture: null },
      lost.key,
      lost.amount ?? session.amount,
      async () => null
    )
  }

  private async sendCapture_(
    session: CardServiceSessionData,
    key: string | undefined,
    amount: number,
    alreadyCaptured: (reasked: boolean) => Promise<CaptureAnswer | null>
  ): Promise<CardServiceSessionData> {
    const input = {
      ...followOnFields(session, key, this.merchantEmail_),
      amount,
      originalTransactionId: session.transaction_id as string,
    }
    const captured = (
      result: CaptureAnswer | null,
      decision: "ACCEPT" | "UNKNOWN" = "ACCEPT"
    ): CardServiceSessionData => ({
      ...session,
      state: "captured",
      capture: {
        transaction_id: result?.transactionId ?? null,
        amount,
      },
      transactions: appendLogEntry(session, {
        transaction_id: result?.transactionId ?? null,
        operation: "capture",
        decision,
        reason_code:
          decision === "UNKNOWN" ? null : (result?.reasonCode ?? "242"),
        amount,
        key,
      }),
    })
    return sendFollowOn({
      send: () => this.client_.capture(input),
      done: captured,
      doneCodes: ALREADY_CAPTURED,
      alreadyDone: async (_, reasked) =>
        captured(await alreadyCaptured(reasked)),
      operation: "capture",
      logger: this.logger_,
      noAnswerWarning: `card-service: capture of session ${sessionLogTag(session.session_id)} had no answer; asking the service again`,
      // No answer twice: Medusa books the capture (so nobody captures again
      // by hand) and the sweep settles it (lost-follow-ons.ts).
      stillUnknown: () => captured(null, "UNKNOWN"),
    })
  }

  /**
   * Refunds `amount` of the capture; a repeat of a refund Medusa already
   * made (same key) is done. Throws NOT_ALLOWED before a capture.
   */
  async refund(
    session: CardServiceSessionData,
    amount: AmountInput,
    context: PaymentProviderContext | undefined,
    /** The keys of Medusa's refund rows of this payment (payment-record.ts); null when unknown. */
    bookedKeys: ReadonlySet<string> | null = null,
    /** Called once the refund is to be made, before anything is sent; throws to refuse it. */
    beforeSending: (refundAmount: number) => Promise<void> = async () => undefined
  ): Promise<CardServiceSessionData> {
    const key = context?.idempotency_key
    // A whole refund of a pending capture is logged as a void under the
    // refund's key: a repeat of it is done too (refunding would get 247).
    const done = session.transactions.some(
      (t) =>
        (t.operation === "refund" || t.operation === "void") &&
        t.key === key &&
        t.decision !== "REJECT"
    )
    if (key && done) return session
    // A refund (or void) the service made whose booking Medusa lost: booked
    // under this row when the amount is the same, never sent again (a second
    // sending would refund twice).
    const orphan = orphanedFollowOn(session, ["refund", "void"], key, bookedKeys)
    if (orphan) {
      const asked = toServiceAmount(amount, session.currency_code)
      if (sameAmount(orphan.amount, asked, session)) return rebooked(session, orphan, key)
      throw refusal(orphanedText(session, orphan, asked))
    }
    const capture = session.capture
    if (!capture) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        "card-service: this payment has not been captured, so there is nothing to refund (cancel the order to release the approval)"
      )
    }
    const refundAmount = toServiceAmount(amount, session.currency_code)
    const pending = unknownRefund(session, key)
    if (pending) throw refusal(unknownRefundText(session, pending))
    await beforeSending(refundAmount)
    if (
      session.transactions.some((t) => t.operation === "capture" && t.voided)
    ) {
      // The capture was voided at the service (the admin's void): no money
      // was taken, so there is nothing to give back and the service would
      // refuse a refund (247). What is left is the authorization, standing
      // again: release it, and let Medusa book the refund.
      const released = await this.reversal_.releaseAuthorization(session)
      return withRefunded(released, session, refundAmount)
    }
    const beyond = refundBeyondCapture(session, capture.amount, refundAmount)
    if (beyond) throw beyond
    const voided = await this.voidWholeCaptureIfPending_(
      session,
      refundAmount,
      key
    )
    if (voided) return voided

    let result: OperationResult
    try {
      result = await this.client_.refund({
        ...followOnFields(session, key, this.merchantEmail_, context),
        amount: refundAmount,
        originalTransactionId: refundTarget(session),
      })
    } catch (error) {
      if (!isIndeterminate(error) && !serviceFailed(error)) {
        throw toMedusaError(error, "refund", this.logger_)
      }
      // Sent, and no answer or a failure of the service's own (received,
      // then failed inside): it may have acted. Thrown, Medusa would delete
      // its refund record and the owner's retry would come with a new key,
      // refunding twice (medusajs/medusa #16681). A refund is never sent again
      // (nothing at the service refuses a second one), so it is booked as
      // unknown: Medusa counts it, and the sweep shows it to the store owner
      // with its reference to look up (lost-follow-ons.ts).
      this.logger_.warn(
        `card-service: refund ${key ?? ""} of session ${sessionLogTag(session.session_id)} had no answer; recorded as unknown, not sent again`
      )
      return refundOfUnknownOutcome(session, refundAmount, key)
    }
    return withRefunded(
      {
        ...session,
        transactions: appendLogEntry(session, {
          transaction_id: result.transactionId,
          operation: "refund",
          decision: "ACCEPT",
          reason_code: result.reasonCode,
          amount: refundAmount,
          key,
        }),
      },
      session,
      refundAmount
    )
  }

  /**
   * The store owner's answer about a refund booked with no answer
   * (unknownRefundText): `made` when the card service shows it, and the
   * entry is kept as accepted; not made, and the refund is made now under
   * the same reference and amount, so the service holds what Medusa already
   * booked. Until then no other refund is sent.
   */
  async settleUnknownRefund(
    session: CardServiceSessionData,
    key: string,
    made: boolean
  ): Promise<CardServiceSessionData> {
    const entry = session.transactions.find(
      (t) => t.operation === "refund" && t.decision === "UNKNOWN" && t.key === key
    )
    if (!entry) {
      throw refusal(`this payment has no refund of unknown outcome under ${key}`)
    }
    const settled = (result: OperationResult | null) => ({
      ...session,
      transactions: session.transactions.map((t) =>
        t === entry
          ? {
              ...t,
              decision: "ACCEPT" as const,
              transaction_id: result?.transactionId ?? null,
              reason_code: result?.reasonCode ?? null,
            }
          : t
      ),
    })
    if (made) return settled(null)
    // A CardServiceError goes to the caller as it is: the admin route tells
    // "the service is down" from "the service refused".
    const result = await this.client_.refund({
      ...followOnFields(session, key, this.merchantEmail_),
      amount: entry.amount ?? 0,
      originalTransactionId: refundTarget(session),
    })
    return settled(result)
  }

  /**
   * A capture Medusa booked whose provider call never returned: the payment
   * module commits its capture row, calls the provider, and only then writes
   * what the provider answered, so an instance that died in between left the
   * row (and Medusa refuses to capture again what the row counts) with a log
   * that lacks it. Sent once more with the row's key and amount, the service
   * captures now (the lost request never reached it) or refuses with 242
   * because it did: either way the log then holds the capture. A log that
   * holds another live capture already is left as it is (null).
   */
  async settleUnloggedCapture(
    session: CardServiceSessionData,
    key: string,
    amount: number
  ): Promise<CardServiceSessionData | null> {
    if (liveCapture(session)) return null
    return this.sendCapture_(session, key, amount, async () => null)
  }

  /**
   * A refund Medusa booked whose provider call never returned (see
   * settleUnloggedCapture). A whole refund of a capture the service had not
   * transmitted is a void (voidWholeCaptureIfPending_): the capture's record
   * says whether it happened, and what the refund would have done is done
   * now (the void if it was not made, the approval released). Any other
   * refund may have moved money and is never sent again (nothing at the
   * service refuses a second one): it is booked as of unknown outcome, for
   * the store owner to look up, as a refund with no answer is.
   */
  async settleUnloggedRefund(
    session: CardServiceSessionData,
    key: string,
    amount: number
  ): Promise<CardServiceSessionData> {
    const capture = session.capture
    const whole =
      !!capture?.transaction_id &&
      session.refunded_amount === 0 &&
      amountsEqual(amount, capture.amount, session.currency_code)
    if (whole) {
      const record = await this.client_.retrieve(capture!.transaction_id as string)
      if (record.step === "CAPTURE" && record.captureStatus === "VOIDED") {
        const transactions = session.transactions.map((t) =>
          t.transaction_id === capture!.transaction_id ? { ...t, voided: true } : t
        )
        return await this.reversal_.releaseAuthorization({
          ...session,
          refunded_amount: capture!.amount,
          transactions: appendLogEntry(
            { transactions },
            {
              transaction_id: null,
              operation: "void",
              decision: "ACCEPT",
              reason_code: null,
              amount: capture!.amount,
              key,
            }
          ),
        })
      }
      if (record.captureStatus === "PENDING") {
        const voided = await this.voidWholeCaptureIfPending_(session, amount, key)
        if (voided) return voided
      }
    }
    return refundOfUnknownOutcome(session, amount, key)
  }

  /**
   * The capture that a 242 refers to, when the stored data names one: 242
   * does not say which capture used the approval, and a void of the whole
   * capture needs its id. Kept only if the service's record shows it is a
   * live capture of this very authorization.
   */
  private async confirmCapture_(
    session: CardServiceSessionData,
    claimedCaptureId: string | null | undefined
  ): Promise<CaptureAnswer | null> {
    if (!claimedCaptureId) return null
    const record = await this.client_
      .retrieve(claimedCaptureId)
      .catch(() => null)
    const confirmed =
      record?.step === "CAPTURE" &&
      record.status === "successful" &&
      record.captureStatus !== "VOIDED" &&
      record.originalTransactionId === session.transaction_id
    return confirmed
      ? { transactionId: record.transactionId, reasonCode: record.reasonCode }
      : null
  }

  /**
   * A full refund of a capture the service has not yet sent to the processor
   * is a void of the capture (section 2.4): the shopper's money never moves,
   * and the store owner pays no refund. Anything else is a refund (null).
   */
  private async voidWholeCaptureIfPending_(
    session: CardServiceSessionData,
    refundAmount: number,
    key: string | undefined
  ): Promise<CardServiceSessionData | null> {
    const capture = session.capture
    if (!capture?.transaction_id || session.refunded_amount !== 0) return null
    if (!amountsEqual(refundAmount, capture.amount, session.currency_code)) {
      return null
    }
    const record = await this.client_
      .retrieve(capture.transaction_id)
      .catch(() => null)
    if (record?.captureStatus !== "PENDING") return null
    try {
      const result = await this.client_.void({
        ...followOnFields(session, key, this.merchantEmail_),
        amount: toVoidAmount(capture.amount, session.currency_code),
        transactionId: capture.transaction_id,
        type: "CAPTURE",
      })
      const transactions = session.transactions.map((t) =>
        t.transaction_id === capture.transaction_id ? { ...t, voided: true } : t
      )
      return await this.reversal_.releaseAuthorization({
        ...session,
        refunded_amount: capture.amount,
        transactions: appendLogEntry(
          { transactions },
          {
            transaction_id: result.transactionId,
            operation: "void",
            decision: "ACCEPT",
            reason_code: result.reasonCode,
            amount: capture.amount,
            key,
          }
        ),
      })
    } catch (error) {
      // 246: it was transmitted meanwhile. A refund does the job then.
      if (isReason(error, NOT_VOIDABLE)) return null
      throw toMedusaError(error, "void", this.logger_)
    }
  }
}

/**
 * What a refund names: the capture it gives back (section 2.3); when the
 * service never named the capture, the sandbox and the service accept the
 * authorization it captured.
 */
function refundTarget(session: CardServiceSessionData): string {
  return session.capture?.transaction_id ?? (session.transaction_id as string)
}

/** A refund booked as of unknown outcome: Medusa counts it, nothing sends it again, the owner looks it up. */
function refundOfUnknownOutcome(
  session: CardServiceSessionData,
  amount: number,
  key: string | undefined
): CardServiceSessionData {
  return withRefunded(
    {
      ...session,
      transactions: [
        ...session.transactions,
        logEntry({ transaction_id: null, operation: "refund", decision: "UNKNOWN", reason_code: null, amount, key }),
      ],
    },
    session,
    amount
  )
}

/** `result` with `amount` added to what `before` had refunded. */
function withRefunded(
  result: CardServiceSessionData,
  before: CardServiceSessionData,
  amount: number
): CardServiceSessionData {
  const minor = (value: number) => toMinorUnits(value, before.currency_code)
  return {
    ...result,
    refunded_amount: fromMinorUnits(
      minor(before.refunded_amount) + minor(amount),
      before.currency_code
    ),
  }
}
