import { paymentFailureMessage } from "../failure-messages"
import { resolveCardServiceReturn, CardServiceReturnStep } from "../return-step"
import type { FetchLike } from "../backend-api"
import { waitingPage } from "./waiting-page"

/**
 * The storefront's return route for Next.js (App Router), as a route handler:
 *
 *   // src/app/[countryCode]/(checkout)/checkout/card-service/route.ts
 *   export { GET } from "medusa-payment-card-service/storefront/next"
 *
 * The plugin's return route sends the shopper here after paying. This asks
 * the backend for the verdict (the query is only a hint) and never throws:
 * paid goes to the order page with the cart cookie removed and the carts and
 * orders cache tags revalidated, as the starter's placeOrder does; failed to
 * the payment step with the code in `?payment_error=`; anything else (no
 * verdict yet, under review, the backend unreachable) gets a waiting page
 * that asks again on its own, with no script and no page file of the store's.
 *
 * It uses web Request/Response; of Next it loads only `next/cache`, when it runs.
 */
export type CardServiceReturnRouteOptions = {
  /** Refreshes the starter's cached cart and orders; defaults to Next's revalidateTag (next/cache). */
  revalidateTag?: (tag: string) => void
  /** Defaults to NEXT_PUBLIC_MEDUSA_BACKEND_URL, the starter's variable. */
  backendUrl?: string
  /** Defaults to NEXT_PUBLIC_MEDUSA_PUBLISHABLE_KEY, the starter's variable. */
  publishableKey?: string
  /** The cookie that holds the cart id; the starter's `_medusa_cart_id`. */
  cartCookie?: string
  /** The cookie whose value suffixes the starter's cache tags (`carts-<id>`); `_medusa_cache_id`. */
  cacheIdCookie?: string
  /** How often the waiting page asks again, and how many times before it says so and stops. */
  waitSeconds?: number
  waitAttempts?: number
  fetch?: FetchLike
}

/** The route's own path ends so; what stands before it is the storefront's prefix (`/dk`). */
const OWN_PATH = /\/checkout\/card-service\/?$/

export function cardServiceReturnRoute(
  options: CardServiceReturnRouteOptions = {}
) {
  const revalidateTag = options.revalidateTag ?? nextRevalidateTag
  const cartCookie = options.cartCookie ?? "_medusa_cart_id"
  const cacheIdCookie = options.cacheIdCookie ?? "_medusa_cache_id"
  const waitSeconds = options.waitSeconds ?? 3
  const waitAttempts = options.waitAttempts ?? 40

  return async function GET(request: Request): Promise<Response> {
    const url = new URL(request.url)
    // The shopper arrives from the card service's pages through the backend's
    // redirect: a cross-site navigation, on which the browser withholds the
    // starter's sameSite=strict cart cookie, and would on every redirect after
    // it. One hop through a page of this origin makes the rest same-site, so
    // the checkout page finds the cart again after a decline.
    if (request.headers.get("sec-fetch-site") === "cross-site") {
      const here = url.pathname + url.search
      return html(
        200,
        waitingPage({
          refreshTo: here,
          seconds: 0,
          heading: "Your payment",
          message: "Returning to the shop…",
          link: { href: here, text: "Continue" },
        })
      )
    }
    const step = await resolveCardServiceReturn(url, {
      backendUrl:
        options.backendUrl ?? process.env.NEXT_PUBLIC_MEDUSA_BACKEND_URL ?? "",
      publishableKey:
        options.publishableKey ??
        process.env.NEXT_PUBLIC_MEDUSA_PUBLISHABLE_KEY ??
        "",
      fetch: options.fetch,
    })
    const prefix = storefrontPrefix(url.pathname, step)
    const cacheId = readCookie(request.headers.get("cookie"), cacheIdCookie)
    revalidate(revalidateTag, cacheId, step)

    if (step.step === "order") {
      return redirect(
        `${prefix}/order/${encodeURIComponent(step.orderId)}/confirmed`,
        {
          "Set-Cookie": `${cartCookie}=; Path=/; Max-Age=0; SameSite=Lax`,
        }
      )
    }
    if (step.step === "payment") {
      // A session that takes another attempt: straight back to the card form
      // (the review step), which shows why. One that does not (the cart
      // changed, the data was altered): the payment step, to choose again.
      const where = step.newSession ? "payment" : "review"
      return redirect(
        `${prefix}/checkout?step=${where}&payment_error=${encodeURIComponent(step.code)}`
      )
    }
    return html(200, pendingPage(url, step, waitSeconds, waitAttempts))
  }
}

function pendingPage(
  url: URL,
  step: Extract<CardServiceReturnStep, { step: "pending" }>,
  waitSeconds: number,
  waitAttempts: number
): string {
  const attempt = Number.parseInt(url.searchParams.get("wait") ?? "0", 10) || 0
  // Asks again with the session alone: the rest of the query was only a hint.
  const again = new URL(url.pathname, url)
  again.searchParams.set("session_id", step.sessionId)
  const giveUp = attempt >= waitAttempts
  const message = step.underReview
    ? paymentFailureMessage("480")
    : giveUp
      ? "This is taking longer than usual. If your payment went through, your order confirmation will follow by e-mail; please do not pay again before it arrives."
      : "Please wait a moment while we confirm your payment with the card service."
  again.searchParams.set("wait", giveUp ? "0" : String(attempt + 1))
  return waitingPage({
    refreshTo: giveUp ? null : again.pathname + again.search,
    seconds: waitSeconds,
    heading: "Your payment",
    message,
    link: giveUp
      ? { href: again.pathname + again.search, text: "Check again" }
      : null,
  })
}

/**
 * What stands before the route's own path (`/dk` in the starter). Where that
 * is one two-letter segment, a country, and the cart ships to another country
 * of its region, the shopper goes on in the cart's country: the backend's
 * default return URL names no country, and the starter's middleware sends it
 * to the store's default one.
 */
function storefrontPrefix(
  pathname: string,
  step: CardServiceReturnStep
): string {
  const prefix = pathname.replace(OWN_PATH, "")
  const country = step.step === "pending" ? null : step.countryCode
  return country && /^\/[a-z]{2}$/i.test(prefix) ? `/${country}` : prefix
}

/**
 * Next's revalidateTag, loaded when the route runs inside Next; anywhere
 * else there is no cache to refresh.
 */
function nextRevalidateTag(tag: string): void {
  let cache: { revalidateTag?: (tag: string) => void } | null = null
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    cache = require("next/cache")
  } catch {
    return
  }
  cache?.revalidateTag?.(tag)
}

function revalidate(
  revalidateTag: (tag: string) => void,
  cacheId: string | null,
  step: CardServiceReturnStep
) {
  if (!cacheId) return
  // The session's data changed (or the cart became an order), as after placeOrder.
  revalidateTag(`carts-${cacheId}`)
  if (step.step === "order") revalidateTag(`orders-${cacheId}`)
}

function readCookie(header: string | null, name: string): string | null {
  for (const part of (header ?? "").split(";")) {
    const at = part.indexOf("=")
    if (at !== -1 && part.slice(0, at).trim() === name) {
      const value = part.slice(at + 1).trim()
      return value ? decodeURIComponent(value) : null
    }
  }
  return null
}

function redirect(
  location: string,
  headers: Record<string, string> = {}
): Response {
  return new Response(null, {
    status: 303,
    headers: { Location: location, "Cache-Control": "no-store", ...headers },
  })
}

function html(status: number, body: string): Response {
  return new Response(body, {
    status,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      "Referrer-Policy": "same-origin",
    },
  })
}
