import { CardServiceError } from "./card-service-error"
import type { MoneyOperation } from "./card-service-operations"
import { resolveCurrency } from "./iso-codes"
import { fitsCurrencyDigits, toVoidAmount } from "./money"
import { describeIssues } from "./wire-schemas"

/**
 * Turns a caller's input into the JSON body of a money operation, or refuses
 * it before anything is sent. House style point 7: a request that does not
 * fit the interface is our bug, so it never reaches the service.
 */

/** Section 2.3 input; merchantId is added by the client. */
export type FollowOnInput = {
  merchantReferenceCode: string
  /** ISO 4217 numeric ("978"); an alpha code ("eur") is converted. */
  currency: string
  /** Major units, already rounded to the currency's digits (toServiceAmount). */
  amount: number
  email: string
  originalTransactionId: string
}

/** Section 2.4 input; merchantId is added by the client. */
export type VoidInput = {
  merchantReferenceCode: string
  /** ISO 4217 numeric ("978"); an alpha code ("eur") is converted. */
  currency: string
  /** Exactly the currency's digits (toVoidAmount): "10.50". */
  amount: string
  email: string
  transactionId: string
  type: "CAPTURE" | "REFUND"
}

type BodyOperation = Pick<MoneyOperation, "name" | "request">

/** The error of a request refused before sending: nothing went out, so it is retry-safe. */
export function invalidInput(
  operation: string,
  detail: string
): CardServiceError {
  return new CardServiceError({
    category: "invalid_request",
    operation,
    retrySafe: true,
    detail: `invalid request, not sent: ${detail}`,
  })
}

/** The 2.3 body of reverse, capture or refund, as JSON. */
export function followOnBody(
  operation: BodyOperation,
  merchantId: string,
  input: FollowOnInput
): string {
  return encodeBody(operation, merchantId, input, followOnAmountProblem)
}

/** The 2.4 body of void, as JSON. */
export function voidBody(
  operation: BodyOperation,
  merchantId: string,
  input: VoidInput
): string {
  return encodeBody(operation, merchantId, input, voidAmountProblem)
}

/**
 * Why an amount the schema would take still does not fit the currency's
 * digits, or undefined. A mistyped amount is left to the schema, which
 * names it.
 */
type AmountProblem = (amount: unknown, currency: string) => string | undefined

/** Section 2.3 takes a JSON number in major units (wire-choices). */
const followOnAmountProblem: AmountProblem = (amount, currency) => {
  const fits =
    typeof amount !== "number" ||
    !Number.isFinite(amount) ||
    fitsCurrencyDigits(amount, currency)
  return fits
    ? undefined
    : `more decimals than the currency's ${resolveCurrency(currency).digits} (wire-choices); round it with toServiceAmount`
}

/** Section 2.4 takes a String with exactly the currency's digits. */
const voidAmountProblem: AmountProblem = (amount, currency) => {
  if (typeof amount !== "string" || !/^\d+(\.\d+)?$/.test(amount)) {
    return undefined
  }
  const digits = resolveCurrency(currency).digits
  return toVoidAmount(amount, currency) === amount
    ? undefined
    : `must have exactly the currency's ${digits} decimals (section 2.4, wire-choices); format it with toVoidAmount`
}

/**
 * The input with the client's merchantId and the numeric currency, parsed by
 * the operation's schema: a z.object keeps only the documented fields, in
 * its own order, so nothing else the caller's object holds goes out.
 */
function encodeBody(
  operation: BodyOperation,
  merchantId: string,
  input: FollowOnInput | VoidInput,
  amountProblem: AmountProblem
): string {
  const currency = numericCurrency(operation.name, input?.currency)
  const problem = amountProblem(input.amount, currency)
  if (problem !== undefined) {
    throw invalidInput(operation.name, `amount: ${problem}`)
  }
  const parsed = operation.request.safeParse({ ...input, merchantId, currency })
  if (!parsed.success) {
    throw invalidInput(operation.name, describeIssues(parsed.error))
  }
  return JSON.stringify(parsed.data)
}

function numericCurrency(operation: string, currency: unknown): string {
  if (typeof currency !== "string") {
    throw invalidInput(operation, "currency: must be an ISO 4217 code")
  }
  try {
    return resolveCurrency(currency).numeric
  } catch {
    throw invalidInput(
      operation,
      `currency: unknown ISO 4217 code ${JSON.stringify(currency)}`
    )
  }
}
