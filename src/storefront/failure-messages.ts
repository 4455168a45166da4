import { categorize } from "../lib/reason-codes"

/**
 * The plugin's own failure codes (besides the section 7 reason codes) and the
 * storefront's: what a return page may be told, and what it may find.
 */
const NEW_SESSION_CODES = new Set([
  // The cart's total changed while the shopper paid: Medusa dropped the
  // session, the plugin reversed the approval.
  "cart_changed",
  // The session's public data was altered: the plugin will not use it again.
  "tampered",
  "no_cart",
  // The amount paid was not the session's, or the transaction not its own:
  // the plugin reversed it and will not use the session's data again.
  "mismatch",
  "foreign_transaction",
  // The backend knows no such session (it was replaced).
  "session_not_found",
])

/**
 * Whether the payment step must create a new payment session before the
 * shopper can pay again. For any other failure the same session takes
 * another attempt (a fresh form, or the hosted page's retry_url).
 */
export function needsNewPaymentSession(
  code: string | null | undefined
): boolean {
  return NEW_SESSION_CODES.has(String(code ?? ""))
}

/**
 * A plain sentence for the shopper, from a failure code (the return's
 * reason_code, or the session's failure.code). Chosen by code rather than
 * taken from the URL, so a forged link cannot put words on the shop's page;
 * the service's own wording stays in the payment's data for the merchant.
 */
export function paymentFailureMessage(code: string | null | undefined): string {
  const value = String(code ?? "").trim()
  switch (value) {
    case "cart_changed":
      return "Your cart changed while you were paying, so that payment was cancelled and no money was taken. Please check your order and pay again."
    case "tampered":
    case "session_not_found":
    case "no_cart":
      return "This payment could not be used. Please choose your payment method again."
    case "mismatch":
      return "The amount paid did not match your order, so the payment was cancelled and no money was taken. Please pay again."
    case "480":
      return "Your payment is being reviewed by the card service. You will get an e-mail when your order is confirmed; there is nothing more to do."
    case "202":
      return "Your card has expired, or its expiry date does not match your bank's records. Please check it or use another card."
    case "204":
      return "Your card was declined for insufficient funds. Please use another card."
    case "475":
    case "476":
      return "Your card could not be verified (3-D Secure). Please try again or use another card."
    case "104":
      return "This payment attempt was already used. Please try again."
    case "":
    case "unknown":
      return "The payment did not go through. Please try again or use another card."
  }
  switch (categorize(value)) {
    case "service_error":
      return "The card service could not complete the payment just now, and no money was taken. Please try again in a moment."
    case "invalid_request":
    case "not_allowed_in_state":
      return "The payment could not be started. Please try again."
    case "declined":
      return /^\d+$/.test(value)
        ? "Your card was declined. Please use another card or contact your bank."
        : "The payment did not go through. Please try again or use another card."
    default:
      return "The payment did not go through. Please try again or use another card."
  }
}
