import { categorize } from "../reason-codes"
import type { MessageKey } from "./messages-en"

/**
 * Which plain sentence a shopper reads for a failure code: a section 7
 * reason code or one of the plugin's own (mismatch, tampered, cart_changed,
 * ...). The code itself stays with the payment for the admin; a shopper is
 * told what to do next, never the issuer's wording. Codes that name a card
 * as lost, stolen or on a negative file (205, 221, 700...) read as a plain
 * decline on purpose: that detail helps a thief more than a customer.
 */
// prettier-ignore
const BY_CODE: Readonly<Record<string, MessageKey>> = {
  "202": "failure.expired",
  "231": "failure.cardDetails",
  "232": "failure.cardDetails",
  "240": "failure.cardDetails",
  "475": "failure.authentication",
  "476": "failure.authentication",
  "200": "failure.address",
  "450": "failure.address", "451": "failure.address", "452": "failure.address",
  "453": "failure.address", "454": "failure.address", "455": "failure.address",
  "456": "failure.address", "457": "failure.address", "458": "failure.address",
  "459": "failure.address", "460": "failure.address", "461": "failure.address",
  // The issuer's bank was out of reach: a later try may well succeed.
  "207": "failure.tryLater",
  "480": "failure.review",
  mismatch: "failure.mismatch",
  cart_changed: "failure.cartChanged",
  tampered: "failure.restart",
  no_cart: "failure.restart",
  // An order's outstanding amount (checkout/order-balance.ts): owed another
  // amount now, or nothing any more.
  balance_changed: "failure.mismatch",
  balance_closed: "failure.restart",
}

export function failureMessageKey(code: string): MessageKey {
  const known = BY_CODE[code]
  if (known) return known
  if (!/^\d+$/.test(code)) return "failure.generic"
  switch (categorize(code)) {
    case "service_error":
      return "failure.tryLater"
    case "declined":
      return "failure.declined"
    default:
      // Our request was wrong or the merchant's set-up is (101, 102, 104,
      // 234...): nothing the shopper did, and nothing to name to them.
      return "failure.generic"
  }
}
