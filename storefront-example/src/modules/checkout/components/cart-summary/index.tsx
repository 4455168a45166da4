import { HttpTypes } from "@medusajs/types"
import { convertToLocale } from "@lib/util/money"

export default function CartSummary({ cart }: { cart: HttpTypes.StoreCart }) {
  const money = (amount: number | undefined) =>
    convertToLocale({ amount, currency_code: cart.currency_code })
  return (
    <aside className="h-fit rounded-lg border border-ui-border bg-ui-subtle p-6">
      <h2 className="mb-4 text-xl font-semibold">In your cart</h2>
      <ul className="mb-4 flex flex-col gap-2 text-sm">
        {cart.items?.map((item) => (
          <li key={item.id} className="flex justify-between">
            <span>
              {item.product_title} × {item.quantity}
            </span>
            <span>{money(item.total)}</span>
          </li>
        ))}
      </ul>
      <dl className="flex flex-col gap-1 border-t border-ui-border pt-4 text-sm">
        <div className="flex justify-between">
          <dt>Shipping</dt>
          <dd>{money(cart.shipping_total)}</dd>
        </div>
        <div className="flex justify-between text-base font-semibold">
          <dt>Total</dt>
          <dd data-testid="cart-total">{money(cart.total)}</dd>
        </div>
      </dl>
    </aside>
  )
}
