import type { CardServiceOptions } from "./options"
import type { CardServiceSessionData } from "./session-data"

type ReturnOptions = Pick<
  CardServiceOptions,
  "storefrontUrl" | "allowedReturnOrigins" | "returnPath"
>

/**
 * A return URL a storefront asked for, if its origin is the storefront's or
 * one of allowedReturnOrigins; anything else is dropped, so the return
 * route never becomes an open redirect.
 */
export function allowedReturnUrl(
  options: ReturnOptions,
  candidate: unknown
): string | null {
  if (typeof candidate !== "string" || candidate.length > 2048) return null
  let url: URL
  try {
    url = new URL(candidate)
  } catch {
    return null
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null
  const allowed = [options.storefrontUrl, ...options.allowedReturnOrigins].map(
    (origin) => new URL(origin).origin
  )
  return allowed.includes(url.origin) ? url.toString() : null
}

/** Where the shopper goes after the return route: the session's choice or the default. */
export function returnTarget(
  options: ReturnOptions,
  session: Pick<CardServiceSessionData, "return_to"> | null
): URL {
  return new URL(
    allowedReturnUrl(options, session?.return_to) ??
      `${options.storefrontUrl}${options.returnPath}`
  )
}
