// A store's own subscriber (src/subscribers/card-service-review.ts in the
// store): tells the shopper how the review of their payment ended. CI
// type-checks this file; docs/reconciliation.md shows it.
import type { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import { Modules } from "@medusajs/framework/utils"

type ReviewEventData = {
  order_id: string
  payment_session_id: string
  /** 100 approved, 481 rejected, 480 no verdict in time */
  reason_code: string
  /** Rejected and expired: false when Medusa would not cancel the order (it is in Needs attention). */
  order_canceled?: boolean
}

export default async function tellShopperAboutReview({
  event,
  container,
}: SubscriberArgs<ReviewEventData>) {
  const query = container.resolve("query")
  const {
    data: [order],
  } = await query.graph({
    entity: "order",
    fields: ["id", "display_id", "email"],
    filters: { id: event.data.order_id },
  })
  if (!order?.email) return
  // Not canceled (fulfilled while on hold, or being changed): the store
  // owner settles it with the shopper (Needs attention), not this email.
  if (event.data.order_canceled === false) return
  await container.resolve(Modules.NOTIFICATION).createNotifications({
    to: order.email,
    channel: "email",
    template:
      event.name === "card-service.review.approved"
        ? "order-payment-approved"
        : "order-canceled-payment-not-approved",
    data: { order_id: order.id, display_id: order.display_id },
  })
}

export const config: SubscriberConfig = {
  event: [
    "card-service.review.approved",
    "card-service.review.rejected",
    "card-service.review.expired",
  ],
}
