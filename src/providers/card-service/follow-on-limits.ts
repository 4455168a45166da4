import { MedusaError } from "@medusajs/framework/utils"
import { resolveCurrency } from "../../lib/iso-codes"
import { amountsEqual, fromMinorUnits, toMinorUnits } from "../../lib/money"
import { followOnReference } from "./merchant-reference"
import type {
  CardServiceSessionData,
  TransactionLogEntry,
} from "./session-data"

/**
 * What the service cannot do after a capture, and the words that tell the
 * store owner so. Medusa turns a NOT_ALLOWED into a 400 whose message the
 * admin shows; the payment module deletes the capture or refund record it
 * made for the request, so Medusa books nothing for a refused one.
 */

type Session = Pick<
  CardServiceSessionData,
  "session_id" | "currency_code" | "amount" | "transactions" | "transaction_id"
>

/** A refusal the admin shows as it is. */
export function refusal(text: string): MedusaError {
  return new MedusaError(MedusaError.Types.NOT_ALLOWED, `card-service: ${text}`)
}

/** "8.70 EUR", "1740 JPY", "1.250 KWD": the currency's own digits. */
export function formatAmount(
  amount: number,
  session: Pick<CardServiceSessionData, "currency_code">
): string {
  const { digits } = resolveCurrency(session.currency_code)
  return `${amount.toFixed(digits)} ${session.currency_code.toUpperCase()}`
}

export function sameAmount(
  a: number | null,
  b: number,
  session: Pick<CardServiceSessionData, "currency_code">
): boolean {
  return a !== null && amountsEqual(a, b, session.currency_code)
}

/** Minor units of the approval a capture of `taken` leaves uncaptured. */
function restOfApproval(
  session: Pick<CardServiceSessionData, "amount" | "currency_code">,
  taken: number
): bigint {
  const code = session.currency_code
  return toMinorUnits(session.amount, code) - toMinorUnits(taken, code)
}

/**
 * The capture that uses the approval: the last one the service accepted, or
 * one sent with no answer (it may have acted), unless it was voided.
 */
export function liveCapture(session: Session): TransactionLogEntry | null {
  const captures = session.transactions.filter(
    (t) => t.operation === "capture" && t.decision !== "REJECT" && !t.voided
  )
  return captures[captures.length - 1] ?? null
}

/** Why a capture after `earlier` is not sent, and what to do instead. */
export function secondCaptureText(
  session: Session,
  earlier: TransactionLogEntry,
  asked: number
): string {
  const taken = earlier.amount ?? session.amount
  if (earlier.decision === "UNKNOWN") {
    return `cannot capture ${formatAmount(asked, session)} now: an earlier capture of this payment (${formatAmount(taken, session)}, reference ${followOnReference(session.session_id, earlier.key)}) has had no answer from the service, and the reconciliation sweep is settling it. Nothing more is captured until it is settled; Medusa books nothing for this request.`
  }
  const rest = fromMinorUnits(restOfApproval(session, taken), session.currency_code)
  return `cannot capture ${formatAmount(asked, session)}: the card service allows one capture per approval, and this payment's approval of ${formatAmount(session.amount, session)} was already captured for ${formatAmount(taken, session)}. The other ${formatAmount(rest, session)} cannot be captured; the card issuer gives it back to the shopper when the approval expires. Medusa books nothing for this request. To collect more from the shopper, take a new payment for the outstanding amount (the payment link in the order's card-service panel).`
}

/**
 * A capture or refund the payment's log holds under the key of a row Medusa
 * no longer has: the service acted, and Medusa deleted its row when it
 * could not write the answer (payment-record.ts). `booked`: the keys of
 * Medusa's rows of that kind; null when they could not be read (then none
 * is taken for orphaned). The automatic capture's key is the session's id,
 * which no row has.
 */
export function orphanedFollowOn(
  session: Session,
  operations: TransactionLogEntry["operation"][],
  key: string | undefined,
  booked: ReadonlySet<string> | null
): TransactionLogEntry | null {
  if (!booked) return null
  return (
    session.transactions.find(
      (t) =>
        operations.includes(t.operation) &&
        t.decision !== "REJECT" &&
        !!t.key &&
        t.key !== key &&
        t.key !== session.session_id &&
        !booked.has(t.key)
    ) ?? null
  )
}

/** The log with `entry` booked under Medusa's new row `key`: nothing is sent again. */
export function rebooked<T extends Pick<CardServiceSessionData, "transactions">>(session: T, entry: TransactionLogEntry, key: string | undefined): T {
  return { ...session, transactions: session.transactions.map((t) => (t === entry ? { ...t, key } : t)) }
}

/** Why a capture or refund is not sent while one the service made has no booking in Medusa. */
export function orphanedText(session: Session, entry: TransactionLogEntry, asked: number): string {
  const what = entry.operation === "capture" ? "capture" : "refund"
  const made = formatAmount(entry.amount ?? session.amount, session)
  return `cannot ${what} ${formatAmount(asked, session)}: the card service made a ${what} of ${made} for this payment (reference ${followOnReference(session.session_id, entry.key)}) whose booking Medusa lost when its database write failed. ${what === "capture" ? "Capture" : "Refund"} exactly ${made} to book it: nothing is sent to the service again. Medusa books nothing for this request.`
}

/** A refund of an unknown outcome that stops new refunds, when there is one. */
export function unknownRefund(
  session: Session,
  key: string | undefined
): TransactionLogEntry | null {
  return (
    session.transactions.find(
      (t) => t.operation === "refund" && t.decision === "UNKNOWN" && t.key !== key
    ) ?? null
  )
}

export function unknownRefundText(
  session: Session,
  pending: TransactionLogEntry
): string {
  const reference = followOnReference(session.session_id, pending.key)
  return `cannot refund now: an earlier refund of this payment (${formatAmount(pending.amount ?? 0, session)}, reference ${reference}) had no answer from the service, so it may or may not have been made; Medusa counts it as made. No other refund is sent until it is known, so that nothing is refunded twice. Look reference ${reference} up at the card service and record what you find in the order's card-service panel; then refund what is still due.`
}

/** Refused before anything is sent: more than the service captured and has not given back. */
export function refundBeyondCapture(
  session: Pick<CardServiceSessionData, "currency_code" | "refunded_amount">,
  captured: number,
  asked: number
): MedusaError | null {
  const code = session.currency_code
  const left =
    toMinorUnits(captured, code) - toMinorUnits(session.refunded_amount, code)
  if (toMinorUnits(asked, code) <= left) return null
  return refusal(
    `cannot refund ${formatAmount(asked, session)}: the card service captured ${formatAmount(captured, session)} of this payment and ${formatAmount(session.refunded_amount, session)} of it is already refunded, so at most ${formatAmount(fromMinorUnits(left < 0n ? 0n : left, code), session)} can be refunded. Nothing was sent to the service.`
  )
}

/**
 * For the order's panel: the approval captured in part, and what the rest
 * becomes. Null when nothing or all of it was captured.
 */
export function partialCaptureText(session: Session): string | null {
  const capture = liveCapture(session)
  if (!capture || capture.decision !== "ACCEPT" || capture.amount === null) {
    return null
  }
  const rest = restOfApproval(session, capture.amount)
  if (rest <= 0n) return null
  return `${formatAmount(capture.amount, session)} of the ${formatAmount(session.amount, session)} approval was captured. The card service allows one capture per approval, so the other ${formatAmount(fromMinorUnits(rest, session.currency_code), session)} cannot be captured: the card issuer gives it back to the shopper when the approval expires. To collect more, take a new payment for what the order still owes.`
}
