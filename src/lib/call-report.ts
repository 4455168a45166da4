import { CardServiceError, type CardServiceErrorCategory } from "./card-service-error"
import type { AnswerKind, OperationName } from "./card-service-operations"

/**
 * What one call to the service came to, handed to the client's `observer`
 * option after the call ends, so a caller can count and time calls (the
 * provider turns it into spans, metrics and the admin's figures) without
 * this framework-free client knowing any telemetry library. It carries the
 * service's verdict and the shape of the exchange, never a header, a body,
 * a credential, a verification code or card data.
 */
export type ServiceCallReport = {
  operation: OperationName
  /** The service's last HTTP status; absent when no answer came (transport failure). */
  httpStatus?: number
  /**
   * The 2.5 decision (ACCEPT or REJECT) of a verdict operation (capture,
   * refund, reverse, void), when the service gave one.
   */
  decision?: string
  /**
   * The section 7 reason code of a verdict operation's verdict, or of the
   * record a retrieve read. Not the body of a document operation's error
   * answer: a retrieve answered 503 with `{decision: "REJECT", reasonCode:
   * "150"}` read no record and decided nothing (issue 41: its span said
   * REJECT, as if a payment had been refused).
   */
  reasonCode?: string
  /**
   * HTTP exchanges the call made: 1, more when a retry-safe request was
   * retried or the request was replayed with a fresh code after a 401.
   */
  attempts: number
  /** From the call's start to its result or error, in milliseconds. */
  durationMs: number
  /** `performance.timeOrigin + performance.now()` at the start: a wall-clock time in ms. */
  startedAt: number
  /**
   * The error's category when the call threw (`unexpected`: not a
   * CardServiceError, a bug); absent when it returned.
   */
  errorCategory?: CardServiceErrorCategory | "unexpected"
  /**
   * For a retrieve that read a record: its step and status and the
   * transaction id, so a caller can count each payment result once.
   */
  record?: { step: string; status: string; transactionId: string }
}

/** Called once per call, after it ends. Must not throw; a throw is swallowed. */
export type ServiceCallObserver = (report: ServiceCallReport) => void

/** The counts and times the sender keeps while a call runs, when an observer is set. */
export type CallTally = { attempts: number; httpStatus?: number }

/** Builds the report of a call that ended with `outcome` (a result or the error it threw). */
export function callReport(
  operation: { name: OperationName; answer: AnswerKind },
  tally: CallTally,
  startedAt: number,
  durationMs: number,
  outcome: { result: unknown } | { error: unknown }
): ServiceCallReport {
  const report: ServiceCallReport = {
    operation: operation.name,
    attempts: tally.attempts,
    durationMs,
    startedAt,
  }
  if (tally.httpStatus !== undefined) report.httpStatus = tally.httpStatus
  if ("error" in outcome) {
    const error = outcome.error
    if (CardServiceError.is(error)) {
      report.errorCategory = error.category
      if (operation.answer === "verdict") {
        if (error.decision) report.decision = error.decision
        if (error.reasonCode) report.reasonCode = error.reasonCode
      }
    } else {
      report.errorCategory = "unexpected"
    }
    return report
  }
  const result = outcome.result as Record<string, unknown> | null
  if (result && typeof result === "object") {
    if (operation.answer === "verdict" && typeof result.decision === "string") report.decision = result.decision
    if (typeof result.reasonCode === "string") report.reasonCode = result.reasonCode
    if (
      operation.name === "retrieve" &&
      typeof result.step === "string" &&
      typeof result.status === "string" &&
      typeof result.transactionId === "string"
    ) {
      report.record = {
        step: result.step,
        status: result.status,
        transactionId: result.transactionId,
      }
    }
  }
  return report
}
