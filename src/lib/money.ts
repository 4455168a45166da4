import BigNumberJs from "bignumber.js"
import { CardServiceError } from "./card-service-error"
import { resolveCurrency } from "./iso-codes"

/**
 * Amounts between Medusa and the service.
 *
 * wire-choices.md: amounts travel in major units with at most the currency's
 * ISO 4217 minor-unit digits (a JSON number in 2.3, a string with exactly
 * those digits in 2.4); more digits are a 102. The interface itself leaves the
 * precision "not shown" (section 2.5), which is why rounding happens here,
 * once, on the decimal string, never with floating-point arithmetic.
 */

/**
 * A private BigNumber constructor: half-up rounding (2.675 -> 2.68) and no
 * exponent notation, without touching the global configuration that Medusa
 * itself relies on.
 */
// Stryker disable next-line ObjectLiteral: equivalent, bignumber.js's default rounding is ROUND_HALF_UP too and only toFixed/toNumber (never exponent notation) are read
const Decimal = BigNumberJs.clone({
  ROUNDING_MODE: BigNumberJs.ROUND_HALF_UP,
  EXPONENTIAL_AT: 1e9,
})
type Decimal = BigNumberJs

/** Medusa's stored form of a BigNumber ({ value: "10.5", precision: 20 }). */
export type RawAmount = { value: string | number; precision?: number }

/**
 * The shape of Medusa's BigNumber class, described structurally so that this
 * framework-free code does not import it.
 */
export type BigNumberLike = {
  raw?: RawAmount
  bigNumber?: { toFixed(): string }
  numeric?: number
  toJSON?(): unknown
  valueOf(): unknown
}

export type AmountInput = number | string | bigint | RawAmount | BigNumberLike

function invalidAmount(detail: string): CardServiceError {
  return new CardServiceError({
    category: "invalid_request",
    operation: "convert amount",
    retrySafe: true,
    detail,
  })
}

/** The exact decimal string of an amount, preferring lossless sources. */
function decimalText(amount: AmountInput): string | number {
  if (typeof amount === "number" || typeof amount === "string") {
    return amount
  }
  if (typeof amount === "bigint") {
    return amount.toString()
  }
  if (amount === null || typeof amount !== "object") {
    throw invalidAmount(`not an amount: ${String(amount)}`)
  }
  const candidate = amount as Partial<BigNumberLike> & Partial<RawAmount>
  // Medusa's BigNumber keeps the exact decimal in raw.value; numeric and
  // toJSON() are already floats, so they come last.
  if (candidate.raw && isScalar(candidate.raw.value)) {
    return candidate.raw.value
  }
  if (BigNumberJs.isBigNumber(candidate.bigNumber)) {
    return candidate.bigNumber.toFixed()
  }
  if (isScalar(candidate.value)) {
    return candidate.value
  }
  if (typeof candidate.numeric === "number") {
    return candidate.numeric
  }
  if (typeof candidate.toJSON === "function") {
    const json = candidate.toJSON()
    if (isScalar(json)) {
      return json
    }
  }
  const primitive = amount.valueOf()
  if (isScalar(primitive)) {
    return primitive
  }
  throw invalidAmount("not an amount: an object without a numeric value")
}

function isScalar(value: unknown): value is string | number {
  return typeof value === "number" || typeof value === "string"
}

/** Parses any accepted amount into an exact decimal; throws on NaN/Infinity/garbage. */
export function toDecimal(amount: AmountInput): Decimal {
  const text = decimalText(amount)
  const trimmed = typeof text === "string" ? text.trim() : text
  const decimal =
    // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: equivalent, new Decimal(number) reads String(number) itself
    typeof trimmed === "number"
      ? // String(number) is the shortest text that round-trips, so 2.675
        // stays "2.675" instead of its binary expansion 2.67499999...
        new Decimal(String(trimmed))
      : trimmed === ""
        ? new Decimal(NaN)
        : new Decimal(trimmed)
  if (!decimal.isFinite()) {
    throw invalidAmount(`not a finite amount: ${JSON.stringify(text)}`)
  }
  return decimal
}

function rounded(amount: AmountInput, currencyCode: string): Decimal {
  const { digits } = resolveCurrency(currencyCode)
  return toDecimal(amount).decimalPlaces(digits, Decimal.ROUND_HALF_UP)
}

/**
 * Medusa amount -> the JSON number of sections 2.2/2.3: major units rounded
 * half-up to the currency's minor units. toServiceAmount(2.675, "eur") === 2.68.
 */
export function toServiceAmount(
  amount: AmountInput,
  currencyCode: string
): number {
  return rounded(amount, currencyCode).toNumber()
}

/**
 * Medusa amount -> the string of section 2.4 (void), with exactly the
 * currency's digits: "10.50" EUR, "1000" JPY, "1.234" KWD.
 */
export function toVoidAmount(
  amount: AmountInput,
  currencyCode: string
): string {
  const { digits } = resolveCurrency(currencyCode)
  return rounded(amount, currencyCode).toFixed(digits)
}

/**
 * Service amount (a 2.1 history amount, or a 2.4 string) -> the number Medusa
 * stores, rounded to the currency's digits so float noise cannot leak in.
 */
export function fromServiceAmount(
  amount: number | string,
  currencyCode: string
): number {
  return rounded(amount, currencyCode).toNumber()
}

/** Exact integer of minor units (cents), for comparisons and sums. */
export function toMinorUnits(
  amount: AmountInput,
  currencyCode: string
): bigint {
  const { digits } = resolveCurrency(currencyCode)
  return BigInt(rounded(amount, currencyCode).shiftedBy(digits).toFixed(0))
}

/**
 * Major units -> minor units without rounding: null when the amount is not a
 * whole number of minor units (17.395 EUR). For comparing what the service
 * approved with what the cart costs, where rounding first would let 17.395
 * pass for 17.40.
 */
export function exactMinorUnits(amount: AmountInput, currencyCode: string): bigint | null {
  const { digits } = resolveCurrency(currencyCode)
  const minor = toDecimal(amount).shiftedBy(digits)
  return minor.isInteger() ? BigInt(minor.toFixed(0)) : null
}

/** Minor units -> major-unit number: fromMinorUnits(1050n, "eur") === 10.5. */
export function fromMinorUnits(
  minor: bigint | number,
  currencyCode: string
): number {
  const { digits } = resolveCurrency(currencyCode)
  return new Decimal(minor.toString()).shiftedBy(-digits).toNumber()
}

/** Equal once both are rounded to the currency's minor units. */
export function amountsEqual(
  a: AmountInput,
  b: AmountInput,
  currencyCode: string
): boolean {
  return toMinorUnits(a, currencyCode) === toMinorUnits(b, currencyCode)
}

/**
 * True when the amount already has no more than the currency's digits, the
 * wire-choices rule for 2.2/2.3 amounts (more digits are a 102).
 */
export function fitsCurrencyDigits(
  amount: AmountInput,
  currencyCode: string
): boolean {
  const { digits } = resolveCurrency(currencyCode)
  return (toDecimal(amount).decimalPlaces() ?? 0) <= digits
}
