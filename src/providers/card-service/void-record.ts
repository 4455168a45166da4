import type { IPaymentModuleService, MedusaContainer } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import { withCardServiceField } from "./payment-record"
import { fromMinorUnits, toMinorUnits } from "../../lib/money"
import {
  logEntry,
  type CardServiceSessionData,
} from "./session-data"

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

/**
 * `card_service.void` in the payment's metadata: the store owner asked the
 * plugin's void route to void `transaction_id` (a capture or refund of this
 * payment), and when. Written before the void is sent and removed once the
 * route has booked what the service said, so a mark still standing after
 * the route's time means its instance died or lost the service on the way:
 * the sweep retrieves the transaction and books the void the service made,
 * or forgets the mark when it made none (reconciliation/owner-voids.ts).
 * Without it a void whose answer died with the instance looked like one
 * made outside Medusa (bench:crash-points, `owner-void`).
 */
export type VoidMark = VoidTarget & { requested_at: string }

export function voidMarkOf(metadata: unknown): VoidMark | null {
  const cardService = (metadata as { card_service?: { void?: VoidMark | null } } | null | undefined)?.card_service
  const mark = cardService && typeof cardService === "object" ? cardService.void : null
  return mark && typeof mark.transaction_id === "string" ? mark : null
}

/** Sets (or, with null, removes) the payment's void mark; the rest of its metadata is kept as it is now. */
export async function writeVoidMark(container: MedusaContainer, paymentId: string, mark: VoidMark | null): Promise<void> {
  const paymentModule = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
  const [payment] = await paymentModule.listPayments({ id: paymentId }, { select: ["id", "metadata"] })
  const metadata = (payment as { metadata?: Record<string, unknown> | null } | undefined)?.metadata
  // updatePayment writes any column given; its DTO type names fewer.
  await paymentModule.updatePayment({
    id: paymentId,
    metadata: withCardServiceField(metadata, "void", mark),
  } as Parameters<IPaymentModuleService["updatePayment"]>[0])
}
