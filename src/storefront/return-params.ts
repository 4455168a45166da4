/**
 * What the plugin's return route puts on the storefront's return URL
 * (src/api/card-service/return). The query is written by the backend but
 * travels through the browser, so anyone can forge it: use it to choose what
 * to show, and confirm with the backend (the order, or
 * getCardServiceSession) before telling the shopper the order is placed.
 */
export type CardServiceReturn =
  | {
      status: "paid"
      orderId: string
      sessionId: string | null
      /**
       * The order was already paid (another tab) when this payment came in:
       * this one was reversed. Tell the shopper it will not be charged.
       */
      secondPaymentReleased: boolean
    }
  | {
      status: "failed"
      /** A section 7 reason code, or one of the plugin's: mismatch, tampered, cart_changed, ... */
      reasonCode: string
      /** A sentence for the shopper. */
      reason: string
      /** The hosted payment page of the session, to try again. */
      retryUrl: string | null
      cartId: string | null
      sessionId: string | null
    }
  /** No result yet: poll the session (pollCardServiceSession). */
  | { status: "pending"; cartId: string | null; sessionId: string | null }
  /** Not a card-service return (no or unknown status). */
  | { status: "unknown"; sessionId: string | null }

export type ReturnParamsOptions = {
  /**
   * Origins besides the storefront's own whose links may be offered to the
   * shopper: the Medusa backend's, where the hosted pay page lives
   * (`retry_url`). A link on any other origin is dropped.
   */
  allowedOrigins?: string[]
}

export function parseReturnParams(
  input: string | URL | URLSearchParams | { search: string },
  { allowedOrigins = [] }: ReturnParamsOptions = {}
): CardServiceReturn {
  const params = toParams(input)
  // The query travels through the browser, so anyone can write a retry_url
  // into it: only the storefront's own origin (the return URL's, or the
  // page's) and the configured ones are trusted to be linked to.
  const trusted = new Set([...allowedOrigins.map(originOf), ownOrigin(input)].filter(Boolean))
  const get = (name: string) => {
    const value = params.get(name)
    return value && value.trim() ? value.trim() : null
  }
  const sessionId = get("session_id")
  switch (get("status")) {
    case "paid": {
      const orderId = get("order_id")
      return orderId
        ? {
            status: "paid",
            orderId,
            sessionId,
            secondPaymentReleased: get("second_payment") === "released",
          }
        : { status: "unknown", sessionId }
    }
    case "failed":
      return {
        status: "failed",
        reasonCode: get("reason_code") ?? "unknown",
        reason: get("reason") ?? "The payment did not go through.",
        retryUrl: trustedUrlOrNull(get("retry_url"), trusted),
        cartId: get("cart_id"),
        sessionId,
      }
    case "pending":
      return { status: "pending", cartId: get("cart_id"), sessionId }
    default:
      return { status: "unknown", sessionId }
  }
}

function toParams(
  input: string | URL | URLSearchParams | { search: string }
): URLSearchParams {
  if (input instanceof URLSearchParams) return input
  if (input instanceof URL) return input.searchParams
  if (typeof input === "string") {
    const query = input.includes("?")
      ? input.slice(input.indexOf("?") + 1)
      : input
    return new URLSearchParams(query.split("#")[0])
  }
  return new URLSearchParams(input.search)
}

/**
 * A retry link is followed by the browser: only http(s), never javascript:
 * and the like, and only on a trusted origin.
 */
function trustedUrlOrNull(value: string | null, trusted: Set<string | null>): string | null {
  if (!value) return null
  try {
    const url = new URL(value)
    return (url.protocol === "https:" || url.protocol === "http:") && trusted.has(url.origin)
      ? url.toString()
      : null
  } catch {
    return null
  }
}

function originOf(value: string): string | null {
  try {
    return new URL(value).origin
  } catch {
    return null
  }
}

/** The storefront's own origin: the return URL's when given one, else the page's. */
function ownOrigin(input: string | URL | URLSearchParams | { search: string }): string | null {
  if (input instanceof URL) return input.origin
  if (typeof input === "string" && /^https?:\/\//i.test(input)) return originOf(input)
  const location = (globalThis as { location?: { origin?: string } }).location
  return location?.origin && location.origin !== "null" ? location.origin : null
}
