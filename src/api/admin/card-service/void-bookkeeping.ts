import { fromMinorUnits, toMinorUnits } from "../../../lib/money"
import {
  logEntry,
  type CardServiceSessionData,
} from "../../../providers/card-service/session-data"

export type VoidTarget = {
  transaction_id: string
  type: "CAPTURE" | "REFUND"
  /** Major units, as the service recorded the voided transaction. */
  amount: number
}

/**
 * payment.data after a void at the service, in the provider's own terms (the
 * same ones its "full refund of a pending capture" path uses): the voided
 * entry is marked, the void is logged, and a voided refund no longer counts
 * in refunded_amount, so the provider's later refund decisions see the money
 * that really went back.
 *
 * A voided capture keeps `capture` and `state` as they are. Medusa has no way
 * to undo a capture, so its payment stays "captured" for the full amount; the
 * admin panel shows the difference from the service's record instead of
 * rewriting the provider's state behind Medusa's back.
 */
export function recordVoid(
  session: CardServiceSessionData,
  target: VoidTarget,
  result: { transactionId: string; reasonCode: string } | null,
  now: Date = new Date()
): CardServiceSessionData {
  const operation = target.type === "CAPTURE" ? "capture" : "refund"
  const transactions = session.transactions.map((entry) =>
    entry.transaction_id === target.transaction_id &&
    entry.operation === operation
      ? { ...entry, voided: true }
      : entry
  )
  transactions.push(
    logEntry(
      {
        transaction_id: result?.transactionId ?? null,
        operation: "void",
        decision: "ACCEPT",
        reason_code: result?.reasonCode ?? null,
        amount: target.amount,
      },
      now
    )
  )
  const refundedMinor =
    target.type === "REFUND"
      ? toMinorUnits(session.refunded_amount, session.currency_code) -
        toMinorUnits(target.amount, session.currency_code)
      : toMinorUnits(session.refunded_amount, session.currency_code)
  return {
    ...session,
    refunded_amount: fromMinorUnits(
      refundedMinor > 0n ? refundedMinor : 0n,
      session.currency_code
    ),
    transactions,
  }
}
