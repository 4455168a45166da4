import { resolveCardServiceReturn } from "medusa-payment-card-service/storefront"
import { revalidateTag } from "next/cache"
import { NextRequest, NextResponse } from "next/server"
import { getCacheTag, removeCartId } from "@lib/data/cookies"

/**
 * Where the plugin's return route sends the shopper after paying. A route
 * handler, because it changes the cart cookie. resolveCardServiceReturn asks
 * the backend (the query is only a hint) and never throws.
 */
export async function GET(
  req: NextRequest,
  { params }: { params: Promise<{ countryCode: string }> }
) {
  const { countryCode } = await params
  const next = await resolveCardServiceReturn(req.nextUrl, {
    backendUrl: process.env.NEXT_PUBLIC_MEDUSA_BACKEND_URL!,
    publishableKey: process.env.NEXT_PUBLIC_MEDUSA_PUBLISHABLE_KEY!,
  })
  // The session's data changed (or the cart became an order), as after placeOrder.
  const cartsTag = await getCacheTag("carts")
  if (cartsTag) revalidateTag(cartsTag)
  let path: string
  if (next.step === "order") {
    const ordersTag = await getCacheTag("orders")
    if (ordersTag) revalidateTag(ordersTag)
    await removeCartId()
    path = `/order/${next.orderId}/confirmed`
  } else if (next.step === "payment") {
    path = `/checkout?step=payment&payment_error=${encodeURIComponent(next.code)}`
  } else {
    path = `/checkout/card-service/pending?session_id=${encodeURIComponent(next.sessionId)}`
  }
  return NextResponse.redirect(new URL(`/${countryCode}${path}`, req.url), 303)
}
