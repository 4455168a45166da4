import { number as currencyByNumber } from "currency-codes"

/**
 * ISO 4217 numeric codes that name no spendable currency (funds, precious
 * metals, testing, "no currency"). Section 8 asks for a currency code, so the
 * sandbox refuses these with 102 like an unknown code.
 */
const NOT_A_CURRENCY = new Set([
  "955",
  "956",
  "957",
  "958",
  "959",
  "960",
  "961",
  "962",
  "963",
  "964",
  "965",
  "994",
  "999",
])

/** Largest amount the sandbox accepts, in major units; section 8 states no bound. */
export const MAX_AMOUNT_MAJOR = 999_999_999

/** Minor-unit digits of an ISO 4217 numeric code, or undefined when it is not a currency. */
export function currencyDigits(numericCode: unknown): number | undefined {
  if (typeof numericCode !== "string" || !/^\d{3}$/.test(numericCode)) {
    return undefined
  }
  if (NOT_A_CURRENCY.has(numericCode)) {
    return undefined
  }
  return currencyByNumber(numericCode)?.digits
}

/**
 * Parses an amount in major units (wire-choices "Amounts and codes") into an
 * integer count of minor units, so that comparisons never meet float error.
 * Returns undefined when the amount has more decimals than the currency,
 * is not positive, or is not a plain decimal.
 */
export function parseMajorAmount(
  raw: unknown,
  digits: number
): number | undefined {
  let text: string
  if (typeof raw === "number") {
    if (!Number.isFinite(raw)) {
      return undefined
    }
    // String(n) is the shortest text that round-trips, so 10.5 stays "10.5"
    // and 0.1 + 0.2 shows its extra digits and is refused.
    text = String(raw)
  } else if (typeof raw === "string") {
    text = raw
  } else {
    return undefined
  }
  const match = /^(\d{1,12})(?:\.(\d+))?$/.exec(text)
  if (!match) {
    return undefined
  }
  const fraction = match[2] ?? ""
  if (fraction.length > digits) {
    return undefined
  }
  const minor = Number(match[1] + fraction.padEnd(digits, "0"))
  if (minor <= 0 || minor > MAX_AMOUNT_MAJOR * 10 ** digits) {
    return undefined
  }
  return minor
}

/**
 * The void amount of section 2.4 is a string with exactly the currency's
 * minor-unit digits (wire-choices): "10.50", "1000", "1.234".
 */
export function parseVoidAmount(
  raw: unknown,
  digits: number
): number | undefined {
  if (typeof raw !== "string") {
    return undefined
  }
  const pattern =
    digits === 0 ? /^\d{1,12}$/ : new RegExp(`^\\d{1,12}\\.\\d{${digits}}$`)
  if (!pattern.test(raw)) {
    return undefined
  }
  return parseMajorAmount(raw, digits)
}

/** Minor units back to the JSON number of section 2.1 (major units). */
export function minorToMajor(minor: number, digits: number): number {
  return minor / 10 ** digits
}
