import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { savePaymentData } from "../checkout/payment-data"
import {
  cardServiceProvider,
  PROVIDER_ID_PREFIX,
} from "../checkout/provider-lookup"
import { parseSessionData } from "../providers/card-service/session-data"

type OrderPayment = {
  id: string
  provider_id: string
  data: Record<string, unknown> | null
  canceled_at: string | Date | null
}

/**
 * An order canceled before capture: Medusa calls the provider's
 * cancelPayment, which reverses the approval at the service and answers the
 * payment's new data (state "canceled", the reversal in its log). From
 * Medusa 2.15 the payment module writes that answer to the payment; 2.12 to
 * 2.14 set canceled_at and drop it, so the payment would go on saying
 * "authorized" with no reversal in its log, in the admin and to the sweep.
 *
 * Which of the two this store runs is read off the payment, not off a
 * version string: a canceled payment whose data still says "authorized" was
 * not given the answer. For such a payment the cancel is asked again (the
 * service answers "already reversed", 237, or reverses it now if the first
 * attempt failed) and its answer written, as the newer payment module does.
 * A payment that already says "canceled" is left as Medusa wrote it.
 *
 * Returns the ids of the payments written.
 */
export async function recordCanceledPayments(
  container: MedusaContainer,
  orderId: string
): Promise<string[]> {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const { data: orders } = await query.graph({
    entity: "order",
    fields: [
      "id",
      "payment_collections.payments.id",
      "payment_collections.payments.provider_id",
      "payment_collections.payments.data",
      "payment_collections.payments.canceled_at",
    ],
    filters: { id: orderId },
  })
  const payments: OrderPayment[] = (orders[0]?.payment_collections ?? [])
    .flatMap((collection: any) => collection?.payments ?? [])
    .filter(Boolean)
  const written: string[] = []
  for (const payment of payments) {
    if (
      !payment.provider_id.startsWith(PROVIDER_ID_PREFIX) ||
      !payment.canceled_at ||
      parseSessionData(payment.data)?.state !== "authorized"
    ) {
      continue
    }
    const provider = cardServiceProvider(container, payment.provider_id)
    const { data } = await provider.cancelPayment({
      data: payment.data ?? {},
      context: { idempotency_key: payment.id },
    })
    const canceled = parseSessionData(data)
    if (canceled?.state !== "canceled") continue
    await savePaymentData(container, payment.id, canceled)
    written.push(payment.id)
  }
  return written
}
