import Link from "next/link"
import { retrieveCart } from "@lib/data/cart"
import { convertToLocale } from "@lib/util/money"

export default async function CartPage({
  params,
}: {
  params: Promise<{ countryCode: string }>
}) {
  const { countryCode } = await params
  const cart = await retrieveCart()
  if (!cart?.items?.length) {
    return (
      <div className="flex flex-col gap-4">
        <h1 className="text-2xl font-semibold">Cart</h1>
        <p data-testid="empty-cart">Your cart is empty.</p>
        <Link href={`/${countryCode}`} className="underline">
          Explore products
        </Link>
      </div>
    )
  }
  return (
    <div className="flex max-w-xl flex-col gap-6">
      <h1 className="text-2xl font-semibold">Cart</h1>
      <ul className="divide-y divide-ui-border border-y border-ui-border">
        {cart.items.map((item) => (
          <li key={item.id} className="flex justify-between py-3">
            <span>
              {item.product_title} × {item.quantity}
            </span>
            <span>
              {convertToLocale({
                amount: item.total,
                currency_code: cart.currency_code,
              })}
            </span>
          </li>
        ))}
      </ul>
      <Link
        href={`/${countryCode}/checkout?step=address`}
        className="inline-flex h-11 items-center justify-center rounded-md bg-ui-fg px-5 font-medium text-white"
      >
        Go to checkout
      </Link>
    </div>
  )
}
