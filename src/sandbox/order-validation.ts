import { isValid as isCountryCode } from "i18n-iso-countries"
import { currencyDigits, parseMajorAmount } from "./amount-rules"
import { passesLuhn } from "../lib/luhn"
import { cardTypeMatchesNumber, isCardType } from "./card-rules"

/** The fields of section 2.2 the merchant must always send. */
const REQUIRED_FIELDS = [
  "merchantId",
  "merchantReferenceCode",
  "currency",
  "cardAccountNumber",
  "cardType",
  "cardExpirationMonth",
  "cardExpirationYear",
  "firstName",
  "lastName",
  "country",
  "city",
  "address",
  "postalCode",
  "phone",
  "email",
  "amount",
] as const

/**
 * Options with a stated default. Section 2.2 gives two defaults for
 * isWindowed and isAuthenticate and says to take the field table's.
 */
const OPTION_DEFAULTS = {
  isWindowed: "Y",
  isRedirect: "N",
  isAuthenticate: "N",
}

const US_STATES = new Set(
  "AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC AS GU MP PR UM VI AA AE AP".split(
    " "
  )
)
const CA_PROVINCES = new Set(
  "AB BC MB NB NL NS NT NU ON PE QC SK YT".split(" ")
)

/**
 * Field lengths are "not shown" (section 2.5, section 8); these bounds are the
 * sandbox's, generous enough for real addresses. docs/sandbox.md lists them.
 */
const TEXT_LIMITS: Record<string, number> = {
  merchantReferenceCode: 50,
  firstName: 60,
  lastName: 60,
  city: 50,
  address: 100,
  email: 100,
}

export type OrderOptions = {
  isWindowed: "Y" | "N"
  isRedirect: "Y" | "N"
  isAuthenticate: "Y" | "N"
}

/** What the sandbox keeps of a payment request: never the card number (prefix and suffix only). */
export type OrderSummary = OrderOptions & {
  merchantId: string
  merchantReferenceCode: string
  currency: string
  currencyDigits: number
  amountMinor: number
  cardType: string
  cardPrefix: string
  cardSuffix: string
  callbackLocation: string
  redirectUrl: string
}

export type DeliveryUrls = { callbackLocation: string; redirectUrl: string }

/**
 * Checks callbackLocation and redirectUrl first: without both, no result can
 * be delivered, so the sandbox answers in the browser instead (docs/sandbox.md).
 */
export function checkDeliveryUrls(
  form: Map<string, string>
):
  | { ok: true; urls: DeliveryUrls }
  | { ok: false; reasonCode: string; fields: string[] } {
  const missing: string[] = []
  const invalid: string[] = []
  for (const name of ["callbackLocation", "redirectUrl"] as const) {
    const value = form.get(name)
    if (!value) {
      missing.push(name)
    } else if (!isDeliveryUrl(value)) {
      invalid.push(name)
    }
  }
  if (missing.length) {
    return { ok: false, reasonCode: "101", fields: missing }
  }
  if (invalid.length) {
    return { ok: false, reasonCode: "102", fields: invalid }
  }
  return {
    ok: true,
    urls: {
      callbackLocation: form.get("callbackLocation")!,
      redirectUrl: form.get("redirectUrl")!,
    },
  }
}

function isDeliveryUrl(value: string): boolean {
  // Section 8: both URLs must end with "/". A query or fragment would put
  // characters after it, so those are refused too.
  if (!value.endsWith("/")) {
    return false
  }
  try {
    const url = new URL(value)
    return (url.protocol === "http:" || url.protocol === "https:") && !url.hash
  } catch {
    return false
  }
}

export type FieldCheck =
  | { ok: true; order: OrderSummary; expiry: { month: number; year: number } }
  | { ok: false; reasonCode: "101" | "102"; fields: string[] }

/**
 * Section 2.2 field rules with the section 8 limits: a missing field is 101,
 * a field present but malformed is 102. Card checks that have their own codes
 * (231, 240, 202) come later, in checkCard.
 */
export function checkOrderFields(
  form: Map<string, string>,
  urls: DeliveryUrls,
  expectedMerchantId: string,
  nowMs: number
): FieldCheck {
  const missing: string[] = REQUIRED_FIELDS.filter((name) => !form.get(name))
  const country = form.get("country") ?? ""
  const state = form.get("state") ?? ""
  const needsState = country === "US" || country === "CA"
  if (needsState && !state) {
    missing.push("state")
  }
  if (missing.length) {
    return { ok: false, reasonCode: "101", fields: missing }
  }

  const invalid: string[] = []
  const get = (name: string) => form.get(name) ?? ""
  for (const [name, max] of Object.entries(TEXT_LIMITS)) {
    if (get(name).length > max || /[\u0000-\u001f]/.test(get(name))) {
      invalid.push(name)
    }
  }
  if (get("merchantId") !== expectedMerchantId) {
    invalid.push("merchantId")
  }
  const digits = currencyDigits(get("currency"))
  if (digits === undefined) {
    invalid.push("currency")
  }
  const amountMinor =
    digits === undefined ? undefined : parseMajorAmount(get("amount"), digits)
  if (digits !== undefined && amountMinor === undefined) {
    invalid.push("amount")
  }
  if (!/^\d{12,19}$/.test(get("cardAccountNumber"))) {
    invalid.push("cardAccountNumber")
  }
  if (!/^(0[1-9]|1[0-2])$/.test(get("cardExpirationMonth"))) {
    invalid.push("cardExpirationMonth")
  }
  const thisYear = new Date(nowMs).getUTCFullYear()
  const year = Number(get("cardExpirationYear"))
  if (!/^\d{4}$/.test(get("cardExpirationYear")) || year > thisYear + 20) {
    invalid.push("cardExpirationYear")
  }
  if (!/^[A-Z]{2}$/.test(country) || !isCountryCode(country)) {
    invalid.push("country")
  }
  if (needsState) {
    const known = country === "US" ? US_STATES : CA_PROVINCES
    if (!known.has(state)) {
      invalid.push("state")
    }
  } else if (state) {
    // wire-choices: state is accepted only for US and CA.
    invalid.push("state")
  }
  if (!/^[A-Za-z0-9][A-Za-z0-9 -]{0,9}$/.test(get("postalCode"))) {
    invalid.push("postalCode")
  }
  if (!/^\+?[0-9 ().-]{4,20}$/.test(get("phone"))) {
    invalid.push("phone")
  }
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(get("email"))) {
    invalid.push("email")
  }
  const options = { ...OPTION_DEFAULTS }
  for (const name of Object.keys(OPTION_DEFAULTS) as (keyof OrderOptions)[]) {
    const value = form.get(name)
    if (value === undefined || value === "") {
      continue
    }
    if (value === "Y" || value === "N") {
      options[name] = value
    } else {
      invalid.push(name)
    }
  }
  if (invalid.length) {
    return { ok: false, reasonCode: "102", fields: invalid }
  }

  const number = get("cardAccountNumber")
  return {
    ok: true,
    order: {
      ...(options as OrderOptions),
      merchantId: get("merchantId"),
      merchantReferenceCode: get("merchantReferenceCode"),
      currency: get("currency"),
      currencyDigits: digits!,
      amountMinor: amountMinor!,
      cardType: get("cardType"),
      cardPrefix: number.slice(0, 6),
      cardSuffix: number.slice(-4),
      ...urls,
    },
    expiry: { month: Number(get("cardExpirationMonth")), year },
  }
}

/** isAuthenticate as the request meant it, even when other fields failed. */
export function requestedStep(
  form: Map<string, string>
): "AUTHORIZATION" | "AUTHENTICATION" {
  const value = form.get("isAuthenticate") || OPTION_DEFAULTS.isAuthenticate
  return value === "Y" ? "AUTHORIZATION" : "AUTHENTICATION"
}

/**
 * The card checks that section 7 gives their own codes: 231 invalid account
 * number (Luhn), 240 card type invalid or inconsistent, 202 expired card.
 */
export function checkCard(
  number: string,
  cardType: string,
  expiry: { month: number; year: number },
  nowMs: number
): string | undefined {
  if (!passesLuhn(number)) {
    return "231"
  }
  if (!isCardType(cardType) || !cardTypeMatchesNumber(cardType, number)) {
    return "240"
  }
  const now = new Date(nowMs)
  const current = now.getUTCFullYear() * 12 + now.getUTCMonth()
  // A card is valid through the last day of its expiry month.
  if (expiry.year * 12 + (expiry.month - 1) < current) {
    return "202"
  }
  return undefined
}
