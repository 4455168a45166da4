/**
 * The answers of the /store/card-service routes, as types only. The routes
 * build them and the storefront helper (src/storefront) publishes them, so
 * both import them from here. The storefront imports this file with
 * `import type`: keep it free of values and imports, so nothing of the
 * server follows it into a shopper's browser.
 */

/**
 * What GET /store/card-service/sessions/:id/form answers: the form a browser
 * posts to the service's /order/start (section 4.2). `fields` holds every
 * hidden field of one attempt, with a fresh merchantReferenceCode and the
 * merchant verification code, and the billing fields prefilled from the cart.
 */
export type CardServiceFormDescriptor = {
  action: string
  method: "POST"
  enctype: "application/x-www-form-urlencoded"
  fields: Record<string, string>
  card_fields: string[]
}

/** What GET /store/card-service/sessions/:id answers, for a storefront that polls. */
export type CardServiceSessionState = {
  id: string
  /** Medusa's session status: pending, authorized, captured, error, ... */
  status: string
  /** paid (an order exists), failed, or pending (no result yet). */
  outcome: "paid" | "failed" | "pending"
  order_id: string | null
  cart_id: string | null
  /** The cart's shipping country (ISO 3166-1 alpha-2, lower case), or null: for storefronts whose paths carry a country. */
  country_code: string | null
  /** `message`: a sentence for the shopper, in their language (cart locale, else Accept-Language); `code`: for your logic, not for display. */
  failure: { code: string; message: string } | null
  /** The hosted payment page of this session: a way to try again. */
  pay_url: string
}
