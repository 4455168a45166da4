import type { IPaymentModuleService, MedusaContainer } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import { savePaymentData } from "../checkout/payment-data"
import { CardServiceError } from "../lib/card-service-error"
import { underPaymentLock } from "../lib/payment-lock"
import { parseSessionData } from "../providers/card-service/session-data"
import type CardServiceProviderService from "../providers/card-service/service"
import { recordVoid, voidMarkOf, writeVoidMark, type VoidMark } from "../providers/card-service/void-record"

/**
 * How old the mark of the owner's void must be before the sweep takes its
 * route for dead: longer than the route's calls can take (a retrieve, the
 * void and a retrieve after an answer that never came), as for a capture
 * (UNLOGGED_AFTER_MS).
 */
export const VOID_MARK_GRACE_MS = 2 * 60 * 1000

/** The payment's void mark when it is past its grace (the sweep's to settle); null otherwise. */
export function dueVoidMark(metadata: unknown, now: Date): VoidMark | null {
  const mark = voidMarkOf(metadata)
  return mark && now.getTime() - Date.parse(mark.requested_at) >= VOID_MARK_GRACE_MS ? mark : null
}

/** What the sweep reports of a void it booked (one of payment-followups.ts's PaymentAction). */
export type OwnerVoidAction = { payment_id: string; status: "follow_on_recovered"; message: string }

/**
 * Settles the owner's void whose route stopped before it booked what the
 * service said (void-record.ts, VoidMark), for a payment whose mark the
 * caller found due (dueVoidMark: a mark not due never asks for the lock, so
 * a route at work never holds up the sweep): under the payment's lock, so a
 * route still at work finishes first, the transaction is retrieved; a void
 * the service made is booked as the route would have booked it, and a mark
 * of a void it never made is removed. Null when there was nothing to do or
 * nothing changed for the owner to know; throws when the service cannot be
 * asked (the next sweep asks again).
 */
export async function settleOwnerVoid(
  container: MedusaContainer,
  provider: CardServiceProviderService,
  paymentId: string,
  now: Date
): Promise<OwnerVoidAction | null> {
  const paymentModule = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
  const read = async () =>
    ((await paymentModule.listPayments({ id: paymentId }, { select: ["id", "data", "metadata"] })) as Array<{
      id: string
      data: Record<string, unknown> | null
      metadata?: Record<string, unknown> | null
    }>)[0]
  return await underPaymentLock(container, paymentId, async () => {
    // Read again under the lock: a route that finished meanwhile removed its mark.
    const payment = await read()
    const mark = dueVoidMark(payment?.metadata, now)
    if (!payment || !mark) return null
    const data = parseSessionData(payment.data)
    const operation = mark.type === "CAPTURE" ? "capture" : "refund"
    const booked = data?.transactions.some((t) => t.transaction_id === mark.transaction_id && t.operation === operation && t.voided)
    const record = data && !booked ? await retrieveOrNull(provider, mark.transaction_id) : null
    if (data && record?.captureStatus === "VOIDED") {
      await savePaymentData(container, payment.id, recordVoid(data, { ...mark, amount: record.amount }, null, now))
      await writeVoidMark(container, payment.id, null)
      return {
        payment_id: payment.id,
        status: "follow_on_recovered",
        message: `the ${operation} ${mark.transaction_id} the store owner voided at ${mark.requested_at} is voided at the card service; its route stopped before it recorded that, recorded now`,
      }
    }
    // Booked already, never voided at the service, or no longer this plugin's data: nothing stands.
    await writeVoidMark(container, payment.id, null)
    return null
  })
}

/** The service's record of `transactionId`; null when it has none (a void of nothing). */
async function retrieveOrNull(provider: CardServiceProviderService, transactionId: string) {
  try {
    return await provider.client.retrieve(transactionId)
  } catch (error) {
    if (CardServiceError.isNotFound(error)) return null
    throw error
  }
}
