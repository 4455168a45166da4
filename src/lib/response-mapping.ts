import type { z } from "zod"
import {
  CardServiceError,
  type CardServiceErrorCategory,
} from "./card-service-error"
import type { CardServiceOperation } from "./card-service-operations"
import { categorize, describeReasonCode } from "./reason-codes"
import type { TransportFailure } from "./transport-errors"
import {
  OperationResultSchema,
  ServiceErrorBodySchema,
  VerdictSchema,
  describeIssues,
  type OperationResult,
  type Verdict,
} from "./wire-schemas"

/**
 * Maps what came back from the service (an answer, or a transport failure)
 * to the operation's result or to one CardServiceError whose category and
 * retrySafe say what the caller may do next (house style points 5 and 6).
 * Pure functions: the sender decides when to call them. Slightly over 300
 * lines because every way an answer can go wrong is named here, in one
 * place, so the categories stay consistent across operations.
 */

export type WireResponse = {
  status: number
  /** Parsed JSON, or undefined when the body is empty or not JSON. */
  json: unknown
}

/** Removes the client's secrets from the service's own text before it is quoted. */
export type Scrub = (text: string) => string

/** A 4.1 code or a 4.5 record: a 200 is the result, anything else an error. */
export function readDocument<Result>(
  operation: CardServiceOperation<Result>,
  response: WireResponse,
  scrub: Scrub,
  transactionId?: string
): Result {
  const { status, json } = response
  if (status === 200) {
    const parsed = operation.response.safeParse(json)
    if (!parsed.success) {
      throw invalidResponse(
        operation.name,
        status,
        parsed.error,
        true,
        transactionId
      )
    }
    return parsed.data
  }
  const refusal = operation.refusals?.[status]
  if (refusal) {
    throw new CardServiceError({
      category: refusal.category,
      operation: operation.name,
      retrySafe: true,
      httpStatus: status,
      transactionId,
      detail: `${refusal.detail}${refusal.quoteService ? serviceSays(json, scrub) : ""}`,
    })
  }
  throw unexpectedStatus(operation.name, response, scrub)
}

/**
 * Maps a 2.5 answer. Per wire-choices every business outcome is a 200 with
 * the 2.5 fields, a malformed body a 400 with them, a failing service a 5xx
 * that may carry them.
 */
export function readVerdict(
  operation: string,
  response: WireResponse,
  scrub: Scrub
): OperationResult {
  const { status, json } = response
  const parsed =
    status === 200 ? OperationResultSchema.safeParse(json) : undefined
  if (parsed?.success) {
    if (parsed.data.decision === "ACCEPT") return parsed.data
    throw rejection(operation, parsed.data, status)
  }
  // A REJECT missing an id, or carried by a 400 or a 5xx, is still a clear verdict.
  const verdict = VerdictSchema.safeParse(json)
  if (verdict.success && verdict.data.decision === "REJECT") {
    throw rejection(operation, verdict.data, status)
  }
  if (parsed) {
    throw invalidResponse(
      operation,
      status,
      parsed.error,
      false,
      transactionIdOf(json)
    )
  }
  if (status >= 500) {
    // The request reached the service and it failed without a verdict:
    // it may have acted. Reconcile by retrieve; never repeat (house style 6).
    throw new CardServiceError({
      category: "indeterminate",
      operation,
      retrySafe: false,
      httpStatus: status,
      detail:
        "the service failed without a verdict after receiving the request; the outcome is unknown, reconcile by retrieve before repeating",
    })
  }
  if (status >= 400 && status < 500) {
    // A 4xx means the service refused the request before acting on it.
    throw unexpectedStatus(operation, response, scrub)
  }
  throw new CardServiceError({
    category: "invalid_response",
    operation,
    retrySafe: false,
    httpStatus: status,
    detail: `unexpected HTTP status ${status}; the outcome is unknown, reconcile by retrieve`,
  })
}

/**
 * A transport failure. For an operation that is not retry-safe what matters
 * is whether the request could have reached the service: if it could, the
 * outcome is unknown.
 */
export function transportError(
  operation: Pick<CardServiceOperation<unknown>, "name" | "retrySafe">,
  failure: TransportFailure,
  tries: number
): CardServiceError {
  const how = failure.timeout ? "timed out" : "the connection failed"
  let category: CardServiceErrorCategory = "service_error"
  let retrySafe = true
  let detail: string
  if (operation.retrySafe) {
    if (failure.sent && failure.timeout) category = "timeout"
    const what = failure.sent ? how : "could not reach the service"
    detail = `${what} (${failure.code}) after ${triesText(tries)}`
  } else if (!failure.sent) {
    detail = `could not reach the service, nothing was sent (${failure.code})`
  } else {
    category = "indeterminate"
    retrySafe = false
    detail = `${how} after the request was sent (${failure.code}); the outcome is unknown, reconcile by retrieve before repeating`
  }
  return new CardServiceError({
    category,
    operation: operation.name,
    retrySafe,
    detail,
    cause: failure.error,
  })
}

/** A 5xx answer to a safe request, after its last try. */
export function serverError(
  operation: string,
  response: WireResponse,
  tries: number,
  scrub: Scrub
): CardServiceError {
  const verdict = VerdictSchema.safeParse(response.json)
  return new CardServiceError({
    category: "service_error",
    operation,
    retrySafe: true,
    httpStatus: response.status,
    decision: verdict.success ? verdict.data.decision : undefined,
    reasonCode: verdict.success ? verdict.data.reasonCode : undefined,
    detail: `the service failed after ${triesText(tries)}${serviceSays(response.json, scrub)}`,
  })
}

/** No verification code could be had, so the operation was not sent. */
export function codeUnavailable(
  operation: string,
  error: CardServiceError
): CardServiceError {
  return new CardServiceError({
    category: error.category,
    operation,
    retrySafe: true,
    httpStatus: error.httpStatus,
    detail: `not sent: could not obtain the verification code: ${error.message}`,
    cause: error,
  })
}

/** A 401 to a code fetched just now: the code is not the problem, the merchant settings are. */
export function codeRejectedTwice(
  operation: string,
  response: WireResponse,
  scrub: Scrub
): CardServiceError {
  return new CardServiceError({
    category: "credentials",
    operation,
    retrySafe: true,
    httpStatus: 401,
    detail: `the service rejected a freshly issued verification code${serviceSays(response.json, scrub)}; check verifyId and merchantId`,
  })
}

/** A status no operation gives a meaning to. A 4xx: the service refused before acting. */
function unexpectedStatus(
  operation: string,
  response: WireResponse,
  scrub: Scrub
): CardServiceError {
  const { status } = response
  if (status >= 500) return serverError(operation, response, 1, scrub)
  const says = serviceSays(response.json, scrub)
  if (status === 429) {
    return new CardServiceError({
      category: "service_error",
      operation,
      retrySafe: true,
      httpStatus: status,
      detail: `the service is limiting requests${says}`,
    })
  }
  return new CardServiceError({
    category:
      status >= 400 && status < 500 ? "invalid_request" : "invalid_response",
    operation,
    retrySafe: true,
    httpStatus: status,
    detail: `unexpected HTTP ${status}${says}`,
  })
}

function invalidResponse(
  operation: string,
  status: number,
  error: z.ZodError,
  retrySafe: boolean,
  transactionId?: string
): CardServiceError {
  return new CardServiceError({
    category: "invalid_response",
    operation,
    retrySafe,
    httpStatus: status,
    transactionId,
    detail: `the response does not fit the interface: ${describeIssues(error)}${retrySafe ? "" : "; the outcome is unknown, reconcile by retrieve"}`,
  })
}

function rejection(
  operation: string,
  verdict: Verdict,
  httpStatus: number
): CardServiceError {
  const reason = describeReasonCode(verdict.reasonCode)
  const category = rejectionCategory(verdict.reasonCode)
  // E-flag codes (150, 151, 152, 250) say the request was received and
  // something timed out or failed inside: CyberSource-style guidance is to
  // check the transaction before resending, so they are not retry-safe.
  const retrySafe =
    category !== "invalid_response" && !(reason.flag ?? "").startsWith("E")
  return new CardServiceError({
    category,
    operation,
    retrySafe,
    decision: verdict.decision,
    reasonCode: verdict.reasonCode,
    httpStatus,
    transactionId: verdict.transactionId || undefined,
    detail:
      category === "invalid_response"
        ? "REJECT with a success reason code"
        : "rejected by the service",
  })
}

function rejectionCategory(code: string): CardServiceErrorCategory {
  const category = categorize(code)
  switch (category) {
    case "success":
      return "invalid_response"
    case "partial":
      return "declined"
    default:
      return category
  }
}

/** The service's own error text (wire-choices error bodies), scrubbed of anything secret. */
function serviceSays(json: unknown, scrub: Scrub): string {
  const parsed = ServiceErrorBodySchema.safeParse(json)
  if (!parsed.success) return ""
  const text = [parsed.data.error, parsed.data.message]
    .filter(Boolean)
    .join(": ")
  return text ? ` (service says: ${scrub(text).slice(0, 200)})` : ""
}

function transactionIdOf(json: unknown): string | undefined {
  if (json && typeof json === "object" && "transactionId" in json) {
    const id = (json as { transactionId: unknown }).transactionId
    return typeof id === "string" && id !== "" ? id : undefined
  }
  return undefined
}

function triesText(tries: number): string {
  return `${tries} ${tries === 1 ? "try" : "tries"}`
}
