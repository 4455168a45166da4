import { BackendOptions, getCardServiceSession } from "./backend-api"
import { needsNewPaymentSession } from "./failure-messages"
import { parseReturnParams } from "./return-params"
import { CardServiceStorefrontError } from "./storefront-error"

/** Where a storefront's return page sends the shopper next. */
export type CardServiceReturnStep =
  /** Paid: forget the cart and show the order. */
  | {
      step: "order"
      orderId: string
      sessionId: string
      countryCode?: string | null
    }
  /**
   * Not paid: back to the payment step, showing paymentFailureMessage(code).
   * newSession: the old session cannot be used again (cart_changed,
   * tampered, gone), so the payment step must create a new one.
   */
  | {
      step: "payment"
      code: string
      newSession: boolean
      sessionId: string | null
      /** The cart's shipping country (lower case), for storefronts whose paths carry one. */
      countryCode?: string | null
    }
  /**
   * No verdict yet (the result has not reached Medusa, the backend could not
   * be asked, or the service has the payment under review: reason 480).
   * Show a page that polls the session (pollCardServiceSession).
   */
  | { step: "pending"; sessionId: string; underReview: boolean }

/**
 * Decides a return page's next step from the URL the plugin's return route
 * sent the shopper to, confirming with the backend: the query only names the
 * session (anyone can type ?status=paid). Never throws, so a return page
 * built on it has no error path: an unknown session goes back to the payment
 * step, a backend that cannot be asked to the pending page (which retries),
 * never to a page that says "paid" without Medusa's word for it.
 */
export async function resolveCardServiceReturn(
  url: string | URL | URLSearchParams | { search: string },
  options: Omit<BackendOptions, "sessionId">
): Promise<CardServiceReturnStep> {
  const back = parseReturnParams(url)
  const sessionId = back.sessionId
  const hinted = back.status === "failed" ? back.reasonCode : null
  if (!sessionId) {
    const code = hinted ?? "unknown"
    return {
      step: "payment",
      code,
      newSession: needsNewPaymentSession(code),
      sessionId: null,
    }
  }
  try {
    const session = await getCardServiceSession({ ...options, sessionId })
    if (session.outcome === "paid" && session.order_id) {
      return {
        step: "order",
        orderId: session.order_id,
        sessionId,
        countryCode: session.country_code ?? null,
      }
    }
    if (session.outcome === "failed") {
      const code = session.failure?.code ?? "unknown"
      return {
        step: "payment",
        code,
        newSession: needsNewPaymentSession(code),
        sessionId,
        countryCode: session.country_code ?? null,
      }
    }
    return {
      step: "pending",
      sessionId,
      underReview: session.failure?.code === "480",
    }
  } catch (error) {
    if (
      error instanceof CardServiceStorefrontError &&
      error.code === "session_not_found"
    ) {
      // Medusa drops a cart's session when the cart's total changes; the
      // return route then reports cart_changed. Either way a new one is needed.
      return {
        step: "payment",
        code:
          hinted && needsNewPaymentSession(hinted)
            ? hinted
            : "session_not_found",
        newSession: true,
        sessionId,
      }
    }
    // Network error, 5xx, a refused key: the payment may well have gone
    // through, so never ask for it again from here. The pending page polls.
    return { step: "pending", sessionId, underReview: false }
  }
}
