import type { ReactElement } from "react"

/** The parts of a store API order the notice reads; Medusa's starter fetches all of them. */
export type OrderLike = {
  status?: string | null
  payment_status?: string | null
  payment_collections?: { payments?: unknown[] | null }[] | null
}

export type CardServiceOrderNoticeProps = {
  order: OrderLike
  /** The sentence for an order on hold; English by default. */
  text?: string
  className?: string
}

const UNDER_REVIEW =
  "Your payment is being reviewed by the card service. Your order is on hold until the review is over; we will let you know when it is approved."

/**
 * Whether the order is on hold: placed while its payment awaits authorization
 * (the card service marked it for review, reason 480). Such an order has a
 * payment collection but no payment yet (Medusa's starter fetches
 * `*payment_collections.payments`), or says so in `payment_status`.
 */
export function isOrderOnHold(order: OrderLike): boolean {
  if (order.status === "canceled") return false
  if (order.payment_status) return order.payment_status === "awaiting"
  const collections = order.payment_collections ?? []
  return collections.length > 0 && collections.every((collection) => (collection.payments ?? []).length === 0)
}

/**
 * One sentence for the order page of an order on hold (docs/storefront.md,
 * "Orders on hold"); nothing for any other order.
 */
export function CardServiceOrderNotice({ order, text, className }: CardServiceOrderNoticeProps): ReactElement | null {
  if (!isOrderOnHold(order)) return null
  return (
    <p className={className ?? "card-service-order-notice"} data-testid="card-service-order-notice" role="status">
      {text ?? UNDER_REVIEW}
    </p>
  )
}
