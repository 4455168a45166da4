import { paymentFailureMessage } from "./failure-messages"

/**
 * What a storefront's payment step needs from this package, in the shapes
 * Medusa's Next.js starter already has (its `isStripeLike`, its
 * `initiatePaymentSession(cart, { provider_id, data })` server action, its
 * `useSearchParams()`), so that adding the card service there is a line or
 * two per file.
 */

/** Provider ids of this plugin start so (`pp_card-service_<id>`). */
export const CARD_SERVICE_PROVIDER_PREFIX = "pp_card-service"

/** Whether a payment provider id is this plugin's, like the starter's `isStripeLike`. */
export function isCardService(providerId?: string | null): boolean {
  return !!providerId?.startsWith(CARD_SERVICE_PROVIDER_PREFIX)
}

/** The route a storefront answers the shopper's return on, below its checkout page. */
export const CARD_SERVICE_RETURN_SEGMENT = "card-service"

type PageLocation = { origin: string; pathname: string }

/**
 * The input of `initiatePaymentSession` for a provider: for this plugin's,
 * `data.return_to` names the storefront's return route beside the checkout
 * page the shopper is on (`/dk/checkout` -> `/dk/checkout/card-service`), so
 * the shopper comes back to the country they shopped in. Any other provider
 * gets `{ provider_id }` alone. Call it in the browser (it reads
 * `window.location`), or pass the page's location.
 */
export function cardServiceSessionInput(
  providerId: string,
  location: PageLocation | undefined = typeof window === "undefined"
    ? undefined
    : window.location
): { provider_id: string; data?: { return_to: string } } {
  if (!isCardService(providerId) || !location)
    return { provider_id: providerId }
  const segments = location.pathname.split("/")
  const checkout = segments.lastIndexOf("checkout")
  const base = (checkout === -1 ? [""] : segments.slice(0, checkout)).join("/")
  return {
    provider_id: providerId,
    data: {
      return_to: `${location.origin}${base}/checkout/${CARD_SERVICE_RETURN_SEGMENT}`,
    },
  }
}

/**
 * The shopper's sentence for the failure the return route put in the payment
 * step's URL (`?payment_error=<code>`), or null when there is none. Chosen by
 * code (paymentFailureMessage), so a forged link cannot put words on the page.
 */
export function cardServicePaymentError(
  searchParams: { get(name: string): string | null } | null | undefined
): string | null {
  const code = searchParams?.get("payment_error")
  return code ? paymentFailureMessage(code) : null
}
