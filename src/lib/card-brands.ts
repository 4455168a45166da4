/**
 * Card brand and number checks shared by the hosted page's script and the
 * storefront helper. Framework-free and DOM-free, so it runs in a browser
 * bundle, during server-side rendering and in node tests alike. Built on
 * card-validator (Braintree's library) rather than our own brand ranges.
 */
import { number as validateNumber } from "card-validator"

/** The card companies the service takes in `cardType` (section 2.2 names VISA, MASTER, JCB). */
export type ServiceCardType =
  "VISA" | "MASTER" | "JCB" | "AMEX" | "DINERS" | "DISCOVER"

/** card-validator's brand names -> the service's cardType values (section 2.2). */
export const SERVICE_CARD_TYPES: Readonly<Record<string, ServiceCardType>> = {
  visa: "VISA",
  mastercard: "MASTER",
  jcb: "JCB",
  "american-express": "AMEX",
  "diners-club": "DINERS",
  discover: "DISCOVER",
}

/** The companies a form offers, in display order, with a label for people. */
export const SERVICE_CARD_TYPE_LABELS: ReadonlyArray<
  [ServiceCardType, string]
> = [
  ["VISA", "Visa"],
  ["MASTER", "Mastercard"],
  ["JCB", "JCB"],
  ["AMEX", "American Express"],
  ["DINERS", "Diners Club"],
  ["DISCOVER", "Discover"],
]

/** The digits of a typed card number ("4000 0000-0000 1000" -> "4000000000001000"). */
export function cardDigits(value: string): string {
  return String(value ?? "").replace(/\D/g, "")
}

/**
 * The service's cardType for a (possibly partial) card number, or null when
 * the brand is not known yet, is ambiguous, or is one the service does not take.
 */
export function cardTypeFor(value: string): ServiceCardType | null {
  const verdict = validateNumber(cardDigits(value))
  return (verdict.card && SERVICE_CARD_TYPES[verdict.card.type]) || null
}

/** A complete number: a length the brand uses and a correct Luhn check digit. */
export function isValidCardNumber(value: string): boolean {
  return validateNumber(cardDigits(value)).isValid
}

/**
 * False once the typed digits can no longer become a valid number; a form
 * uses it to show the error while typing without nagging about a number that
 * is merely unfinished.
 */
export function isPotentiallyValidCardNumber(value: string): boolean {
  return validateNumber(cardDigits(value)).isPotentiallyValid
}
