import {
  cardDigits,
  cardTypeFor,
  isValidCardNumber,
  ServiceCardType,
} from "../lib/card-brands"
import {
  BILLING_FIELDS,
  BillingField,
  CardField,
  countryTakesState,
} from "../lib/form-field-rules"
import type { CardServiceFormDescriptor } from "./backend-api"
import { CardServiceStorefrontError } from "./storefront-error"

export type CardInput = {
  /** As typed; spaces and dashes are dropped (section 2.2: a Number). */
  number: string
  /** 1-12, "1", "01". */
  expiryMonth: string | number
  /** "2029" or "29". */
  expiryYear: string | number
  /**
   * The service's company code. Used only when the number's company is not
   * detected (the detected one always wins).
   */
  cardType?: ServiceCardType | string | null
}

/** The shopper's billing edits: a value replaces the prefilled one, "" or null removes it. */
export type BillingOverrides = Partial<
  Record<BillingField, string | null | undefined>
>

export type SubmitOptions = {
  /** The document to build the form in; defaults to the global one. */
  document?: Document
  /** The clock for the expiry check (tests). */
  now?: Date
  /**
   * A window name for the post (form target). Only for a windowed flow
   * (isWindowed Y): the 3DS runs in that window while this page polls with
   * pollCardServiceSession. Open the window in the click handler itself,
   * or the browser's popup blocker may stop it.
   */
  target?: string
}

/**
 * The fields the browser will post: the descriptor's hidden fields, the
 * shopper's billing edits, and the card. Refuses (throws) an invalid number,
 * an unknown company or a past expiry, so nothing is sent that the service
 * would only decline. Pure: no DOM, usable in tests.
 */
export function cardServiceFormFields(
  descriptor: CardServiceFormDescriptor,
  card: CardInput,
  billing: BillingOverrides = {},
  now: Date = new Date()
): Record<string, string> {
  const digits = cardDigits(card.number)
  if (!isValidCardNumber(digits)) {
    throw new CardServiceStorefrontError(
      "invalid_card_number",
      "This card number is not valid. Please check it."
    )
  }
  // The detected company wins over the given one, as on the hosted page: a
  // mismatch would only be declined by the service (240).
  const cardType =
    cardTypeFor(digits) ??
    (card.cardType ? String(card.cardType).trim().toUpperCase() : null)
  if (!cardType) {
    throw new CardServiceStorefrontError(
      "unknown_card_type",
      "This card company is not accepted. Please use another card."
    )
  }
  const month = Number(String(card.expiryMonth).trim())
  let yearText = String(card.expiryYear).trim()
  if (/^\d{2}$/.test(yearText)) yearText = `20${yearText}`
  const year = Number(yearText)
  const expired =
    year * 12 + (month - 1) < now.getUTCFullYear() * 12 + now.getUTCMonth()
  if (
    !Number.isInteger(month) ||
    month < 1 ||
    month > 12 ||
    !/^\d{4}$/.test(yearText) ||
    expired
  ) {
    throw new CardServiceStorefrontError(
      "invalid_expiry",
      "This expiry date is not valid. Please check it."
    )
  }

  const fields: Record<string, string> = { ...descriptor.fields }
  // A storefront may change only the billing fields: the hidden ones (amount,
  // reference, verification code) are the backend's and must go as given.
  for (const name of BILLING_FIELDS) {
    if (!(name in billing)) continue
    const value = billing[name]
    if (value === undefined) continue
    const text = (value ?? "").trim()
    if (text) fields[name] = name === "country" ? text.toUpperCase() : text
    else delete fields[name]
  }
  // Section 2.2: state only for the United States and Canada.
  if (fields.state !== undefined && !countryTakesState(fields.country)) {
    delete fields.state
  }
  const cardValues: Record<CardField, string> = {
    cardAccountNumber: digits,
    cardType,
    cardExpirationMonth: String(month).padStart(2, "0"),
    cardExpirationYear: yearText,
  }
  return { ...fields, ...cardValues }
}

/**
 * Posts the payment form from the browser to the card service as a real
 * top-level form submission: the service takes nothing else (section 4.2;
 * it checks Sec-Fetch-Mode: navigate), and the card number goes from the
 * shopper's browser to the service without passing the store's servers.
 * The page navigates away; 3DS follows, then the plugin's return route sends
 * the shopper back to the storefront. Throws before anything is built or sent
 * when the card is not valid. Returns the (already submitted) form.
 */
export function submitCardServiceForm(
  descriptor: CardServiceFormDescriptor,
  card: CardInput,
  billing: BillingOverrides = {},
  options: SubmitOptions = {}
): HTMLFormElement {
  const fields = cardServiceFormFields(descriptor, card, billing, options.now)
  const doc =
    options.document ?? (typeof document === "undefined" ? undefined : document)
  if (!doc?.body) {
    throw new CardServiceStorefrontError(
      "no_document",
      "card-service: submitCardServiceForm runs in a browser, after the page has loaded"
    )
  }
  const form = doc.createElement("form")
  // setAttribute, not form.action = ...: a field named "action" or "method"
  // would shadow those properties on the form element.
  form.setAttribute("method", "POST")
  form.setAttribute("action", descriptor.action)
  form.setAttribute("enctype", "application/x-www-form-urlencoded")
  form.setAttribute("accept-charset", "UTF-8")
  form.setAttribute("data-card-service-form", "")
  if (options.target) form.setAttribute("target", options.target)
  form.hidden = true
  for (const [name, value] of Object.entries(fields)) {
    const input = doc.createElement("input")
    input.type = "hidden"
    input.name = name
    input.value = value
    form.appendChild(input)
  }
  doc.body.appendChild(form)
  // The prototype's submit: a field named "submit" would shadow form.submit.
  // submit() (not requestSubmit) skips submit handlers and validation, which
  // this helper has done itself.
  const view = doc.defaultView as (Window & typeof globalThis) | null
  const submit = view?.HTMLFormElement?.prototype.submit ?? form.submit
  submit.call(form)
  return form
}
