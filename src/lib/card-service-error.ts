import { describeReasonCode } from "./reason-codes"

/**
 * What a caller branches on. The first four come from the service's verdict
 * (section 7 reason codes, or an HTTP 401 for credentials); the others
 * describe what happened on the way to it.
 */
export type CardServiceErrorCategory =
  /** The card, the issuer or a fraud rule said no (a D-flag code). */
  | "declined"
  /** Our request was wrong: missing/invalid fields, unknown currency, duplicate reference, 4xx. */
  | "invalid_request"
  /** The transaction is in the wrong state (already reversed, settled, voided...). */
  | "not_allowed_in_state"
  /** The client code/secret or the verification code were refused (HTTP 401). */
  | "credentials"
  /** The service could not be reached before sending, or it reported an E-flag failure. */
  | "service_error"
  /** A safe request (GET) kept timing out after its retries. */
  | "timeout"
  /** A money operation may or may not have happened: reconcile by retrieve, never repeat blindly. */
  | "indeterminate"
  /** The service answered something that does not fit the interface. */
  | "invalid_response"

export const CARD_SERVICE_ERROR_CATEGORIES: readonly CardServiceErrorCategory[] =
  [
    "declined",
    "invalid_request",
    "not_allowed_in_state",
    "credentials",
    "service_error",
    "timeout",
    "indeterminate",
    "invalid_response",
  ]

export type CardServiceErrorInit = {
  category: CardServiceErrorCategory
  operation: string
  /**
   * True only when the service certainly did not act on the request, so that
   * sending the same request again cannot double a capture or refund.
   */
  retrySafe: boolean
  /** Says what happened in words; must never contain secrets or card data. */
  detail: string
  decision?: string
  reasonCode?: string
  httpStatus?: number
  transactionId?: string
  cause?: unknown
}

/**
 * The one error type of the client (house style point 5). It carries the
 * service's verdict (decision, reason code with its section 7 flag and
 * meaning) and a category the caller can switch on.
 */
export class CardServiceError extends Error {
  readonly category: CardServiceErrorCategory
  readonly operation: string
  readonly retrySafe: boolean
  readonly decision?: string
  readonly reasonCode?: string
  /** The section 7 reply flag (SOK, DINVALIDDATA, ESYSTEM...), null where the table gives none. */
  readonly flag?: string | null
  readonly reasonMeaning?: string
  readonly httpStatus?: number
  readonly transactionId?: string

  constructor(init: CardServiceErrorInit) {
    const described =
      init.reasonCode !== undefined
        ? describeReasonCode(init.reasonCode)
        : undefined
    super(
      formatMessage(init, described?.flag, described?.meaning),
      init.cause !== undefined ? { cause: init.cause } : undefined
    )
    this.name = "CardServiceError"
    this.category = init.category
    this.operation = init.operation
    this.retrySafe = init.retrySafe
    this.decision = init.decision
    this.reasonCode = init.reasonCode
    this.flag = described?.flag
    this.reasonMeaning = described?.meaning
    this.httpStatus = init.httpStatus
    this.transactionId = init.transactionId
  }

  static is(error: unknown): error is CardServiceError {
    return error instanceof CardServiceError
  }

  /** The operation may have happened: the caller must reconcile by retrieve. */
  static isIndeterminate(error: unknown): error is CardServiceError {
    return CardServiceError.is(error) && error.category === "indeterminate"
  }

  /** A retrieve of a transaction the service does not know (HTTP 404, wire-choices). */
  static isNotFound(error: unknown): error is CardServiceError {
    return (
      CardServiceError.is(error) &&
      error.category === "invalid_request" &&
      error.httpStatus === 404
    )
  }

  /** A plain object for structured logs and for storing with a payment. */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      category: this.category,
      operation: this.operation,
      retrySafe: this.retrySafe,
      decision: this.decision,
      reasonCode: this.reasonCode,
      flag: this.flag,
      reasonMeaning: this.reasonMeaning,
      httpStatus: this.httpStatus,
      transactionId: this.transactionId,
    }
  }
}

function formatMessage(
  init: CardServiceErrorInit,
  flag: string | null | undefined,
  meaning: string | undefined
): string {
  const parts = [`card service ${init.operation}: ${init.detail}`]
  if (init.reasonCode !== undefined) {
    const flagText = flag ? ` ${flag}` : ""
    parts.push(`(reason ${init.reasonCode}${flagText}: ${meaning})`)
  }
  if (init.httpStatus !== undefined) {
    parts.push(`[HTTP ${init.httpStatus}]`)
  }
  if (init.transactionId) {
    parts.push(`[transaction ${init.transactionId}]`)
  }
  return parts.join(" ")
}
