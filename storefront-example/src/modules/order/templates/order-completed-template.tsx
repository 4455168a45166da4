import { HttpTypes } from "@medusajs/types"
import { convertToLocale } from "@lib/util/money"
import { CardServiceOrderNotice } from "medusa-payment-card-service/storefront/react"

/** The order page's body, at the path and under the name of Medusa's starter's template. */
export default function OrderCompletedTemplate({
  order,
}: {
  order: HttpTypes.StoreOrder
}) {
  return (
    <div className="flex max-w-xl flex-col gap-6" data-testid="order-complete">
      <h1 className="text-2xl font-semibold">Thank you!</h1>
      <p>Your order was placed successfully.</p>
      <CardServiceOrderNotice order={order} />
      <dl className="grid grid-cols-2 gap-2 text-sm">
        <dt className="text-ui-fg-muted">Order number</dt>
        <dd data-testid="order-display-id">#{order.display_id}</dd>
        <dt className="text-ui-fg-muted">Order id</dt>
        <dd data-testid="order-id">{order.id}</dd>
        <dt className="text-ui-fg-muted">Confirmation sent to</dt>
        <dd data-testid="order-email">{order.email}</dd>
        <dt className="text-ui-fg-muted">Total</dt>
        <dd data-testid="order-total">
          {convertToLocale({
            amount: order.total,
            currency_code: order.currency_code,
          })}
        </dd>
      </dl>
      <ul className="divide-y divide-ui-border border-y border-ui-border">
        {order.items?.map((item) => (
          <li key={item.id} className="flex justify-between py-3 text-sm">
            <span>
              {item.product_title} × {item.quantity}
            </span>
          </li>
        ))}
      </ul>
    </div>
  )
}
