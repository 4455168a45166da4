import currencyCodes from "currency-codes"
import countries from "i18n-iso-countries"
import { CardServiceError } from "./card-service-error"

/**
 * ISO 4217 and ISO 3166-1 lookups, read from the maintained data packages
 * (currency-codes, i18n-iso-countries) rather than a hand-written table.
 *
 * The interface (sections 2.2-2.4, 8) asks for a 3-digit currency code and a
 * 2-character country; wire-choices.md pins these to the ISO 4217 numeric
 * code ("978") and upper-case alpha-2 ("US"). Medusa stores lower-case alpha
 * currency codes ("eur") and lower-case countries ("us").
 */

export type CurrencyInfo = {
  /** Upper-case ISO 4217 alphabetic code, "EUR". */
  alpha: string
  /** ISO 4217 numeric code as 3 characters, "978": what the service expects. */
  numeric: string
  /** ISO 4217 minor-unit digits: 0 for JPY, 2 for EUR, 3 for KWD. */
  digits: number
}

const byAlpha = new Map<string, CurrencyInfo>()
const byNumeric = new Map<string, CurrencyInfo>()

for (const entry of currencyCodes.data) {
  // Entries without a numeric code or minor units (none today) cannot be
  // sent to the service, so they are left out rather than guessed.
  if (!/^\d{3}$/.test(entry.number) || !Number.isInteger(entry.digits)) {
    continue
  }
  const info: CurrencyInfo = {
    alpha: entry.code.toUpperCase(),
    numeric: entry.number,
    digits: entry.digits,
  }
  byAlpha.set(info.alpha, info)
  byNumeric.set(info.numeric, info)
}

function invalid(operation: string, detail: string): CardServiceError {
  return new CardServiceError({
    category: "invalid_request",
    operation,
    retrySafe: true,
    detail,
  })
}

/**
 * The ISO 4217 facts for a currency given as alpha ("eur", "EUR") or numeric
 * ("978") code. Throws an invalid_request CardServiceError for anything else,
 * so a bad currency never reaches the service.
 */
export function resolveCurrency(code: string): CurrencyInfo {
  const key = typeof code === "string" ? code.trim().toUpperCase() : ""
  const info = /^\d{3}$/.test(key) ? byNumeric.get(key) : byAlpha.get(key)
  if (!info) {
    throw invalid(
      "resolve currency",
      `unknown currency ${JSON.stringify(code)}: expected an ISO 4217 code such as "eur" or "978"`
    )
  }
  return info
}

export function isKnownCurrency(code: string): boolean {
  try {
    resolveCurrency(code)
    return true
  } catch {
    return false
  }
}

/** "eur" -> "978", the form the service takes in currency (wire-choices). */
export function toNumericCurrency(code: string): string {
  return resolveCurrency(code).numeric
}

/** "978" -> "eur", the lower-case form Medusa stores. */
export function fromNumericCurrency(numeric: string): string {
  const key = typeof numeric === "string" ? numeric.trim() : ""
  const info = byNumeric.get(key)
  if (!info) {
    throw invalid(
      "resolve currency",
      `unknown ISO 4217 numeric currency ${JSON.stringify(numeric)}`
    )
  }
  return info.alpha.toLowerCase()
}

/** ISO 4217 minor-unit digits: currencyDigits("jpy") === 0, ("kwd") === 3. */
export function currencyDigits(code: string): number {
  return resolveCurrency(code).digits
}

/**
 * Upper-case, validated ISO 3166-1 alpha-2 (section 2.2 country, 2
 * characters). Accepts alpha-2 in any case and, for convenience, alpha-3.
 */
export function toCountryAlpha2(country: string): string {
  const key = typeof country === "string" ? country.trim().toUpperCase() : ""
  if (/^[A-Z]{2}$/.test(key) && countries.isValid(key)) {
    return key
  }
  if (/^[A-Z]{3}$/.test(key)) {
    const alpha2 = countries.alpha3ToAlpha2(key)
    if (alpha2) {
      return alpha2
    }
  }
  throw invalid(
    "resolve country",
    `unknown country ${JSON.stringify(country)}: expected ISO 3166-1 alpha-2 such as "US"`
  )
}

const COUNTRIES_WITH_STATE = new Set(["US", "CA"])

/**
 * The state field of section 2.2 is "only for the United States and Canada";
 * wire-choices makes a state for another country a 102. Medusa keeps the
 * province as ISO 3166-2 ("us-ca"), so the country prefix is dropped.
 */
export function stateForCountry(
  country: string,
  state: string | null | undefined
): string | undefined {
  const alpha2 = toCountryAlpha2(country)
  if (!COUNTRIES_WITH_STATE.has(alpha2) || !state || !state.trim()) {
    return undefined
  }
  const upper = state.trim().toUpperCase()
  const prefix = `${alpha2}-`
  return upper.startsWith(prefix) ? upper.slice(prefix.length) : upper
}

/** Every ISO 3166-1 alpha-2 code, upper case: the choices of a country field. */
export function countryAlpha2Codes(): string[] {
  return Object.keys(countries.getAlpha2Codes())
}
