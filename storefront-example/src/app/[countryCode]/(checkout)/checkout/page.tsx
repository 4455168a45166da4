import Link from "next/link"
import { MEDUSA_BACKEND_URL, MEDUSA_PUBLISHABLE_KEY } from "@lib/config"
import { retrieveCart } from "@lib/data/cart"
import { listCartShippingOptions } from "@lib/data/fulfillment"
import { listCartPaymentMethods } from "@lib/data/payment"
import Addresses from "@modules/checkout/components/addresses"
import CartSummary from "@modules/checkout/components/cart-summary"
import Payment from "@modules/checkout/components/payment"
import Review from "@modules/checkout/components/review"
import Shipping from "@modules/checkout/components/shipping"

export default async function CheckoutPage({
  params,
}: {
  params: Promise<{ countryCode: string }>
}) {
  const { countryCode } = await params
  const cart = await retrieveCart()
  if (!cart?.items?.length) {
    return (
      <div className="flex flex-col gap-4" data-testid="checkout-empty">
        <h1 className="text-2xl font-semibold">Checkout</h1>
        <p>Your cart is empty.</p>
        <Link href={`/${countryCode}`} className="underline">
          Explore products
        </Link>
      </div>
    )
  }
  const [shippingOptions, paymentMethods] = await Promise.all([
    listCartShippingOptions(cart.id),
    listCartPaymentMethods(cart.region_id!),
  ])
  return (
    <div className="grid grid-cols-1 gap-x-12 gap-y-8 lg:grid-cols-[1fr_360px]">
      <div className="flex flex-col gap-y-8">
        <Addresses cart={cart} />
        <Shipping cart={cart} availableShippingMethods={shippingOptions} />
        <Payment cart={cart} availablePaymentMethods={paymentMethods} />
        {/* The example is built once and started against any backend, so the
            card form gets these from the server rather than from NEXT_PUBLIC_
            values inlined at build time. STOREFRONT_HOSTED_ONLY=true shows
            the hosted-page variant of the recipe instead of the card form. */}
        <Review
          cart={cart}
          cardService={{
            backendUrl: MEDUSA_BACKEND_URL,
            publishableKey: MEDUSA_PUBLISHABLE_KEY,
            hostedOnly: process.env.STOREFRONT_HOSTED_ONLY === "true",
          }}
        />
      </div>
      <CartSummary cart={cart} />
    </div>
  )
}
