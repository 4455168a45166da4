import type { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import { OrderWorkflowEvents } from "@medusajs/framework/utils"
import { recordCanceledPayments } from "../reconciliation/canceled-payments"

/**
 * An order was canceled: make sure each of its card-service payments says
 * so, also on a Medusa that drops cancelPayment's answer
 * (reconciliation/canceled-payments.ts).
 */
export default async function cardServiceOrderCanceled({
  event,
  container,
}: SubscriberArgs<{ id: string }>) {
  await recordCanceledPayments(container, event.data.id)
}

export const config: SubscriberConfig = { event: OrderWorkflowEvents.CANCELED }
