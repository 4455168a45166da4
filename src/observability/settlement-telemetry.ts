import { recordActivity } from "./activity-buffer"
import { asSettlement } from "./settlement-scope"
import { ATTR, SPANS, type CallbackOutcome } from "./telemetry-names"
import { inSpan, instruments } from "./telemetry"

/**
 * A settlement's outcome as this file reads it: its kind as a plain string,
 * so kinds added later pass through as they are, the failure's code when
 * there is one, and what a review's verdict did.
 */
type Settled = {
  kind: string
  failure?: { code: string }
  /** An order placed on hold for review, or one still on hold. */
  onHold?: boolean
  /** A review's approval settled now (the order existed already). */
  review?: string
  /** A review closed otherwise: rejected, expired, reversed, not_released. */
  verdict?: string
}

/**
 * The outcome as the span names it. A review's verdict closes the review of
 * an order that exists already, approved or not: `review_closed` with the
 * verdict, as the sweep's action and Needs attention name it, not `order`
 * (issue 41). An order on hold for review is `on_hold`.
 */
export function settleOutcomeAttributes(outcome: Settled): Record<string, string> {
  if (outcome.kind === "order" && outcome.review) {
    return { [ATTR.settleOutcome]: "review_closed", [ATTR.reviewVerdict]: outcome.review }
  }
  if (outcome.kind === "order" && outcome.onHold) return { [ATTR.settleOutcome]: "on_hold" }
  if (outcome.kind === "review_closed" && outcome.verdict) {
    return { [ATTR.settleOutcome]: outcome.kind, [ATTR.reviewVerdict]: outcome.verdict }
  }
  return outcome.failure
    ? { [ATTR.settleOutcome]: outcome.kind, [ATTR.failure]: outcome.failure.code }
    : { [ATTR.settleOutcome]: outcome.kind }
}

/**
 * Runs one settlement of a reported result (src/checkout/settle-payment.ts)
 * in a `card_service.settle` span: where the result came from, and what
 * became of it. The service calls made on the way are its children, and the
 * payment results they read are counted (settlement-scope.ts).
 */
export function traceSettlement<T extends Settled>(
  source: string,
  settle: () => Promise<T>
): Promise<T> {
  return inSpan(
    SPANS.settle.name,
    () => ({ [ATTR.settleSource]: source }),
    () => asSettlement(settle),
    settleOutcomeAttributes
  )
}

/**
 * Counts what the callback route answered: the metric, and the admin's
 * figures through a tally per answer and minute (activity-buffer.ts), since
 * anyone can POST a callback.
 */
export function countCallback(outcome: CallbackOutcome): void {
  instruments()?.callbacks.add(1, { [ATTR.callbackOutcome]: outcome })
  recordActivity({ kind: "callback", name: outcome })
}

/** The callback route's answer for a settlement outcome (docs/observability.md). */
export function callbackOutcomeOf(outcome: { kind: string }): CallbackOutcome {
  switch (outcome.kind) {
    case "unknown_session":
      return "refused"
    case "ignored":
      return "ignored"
    case "acknowledged":
      return "acknowledged"
    default:
      return "settled"
  }
}

/**
 * A payment held for review whose verdict did not come in time (its order
 * was canceled, or left to the store owner): its result row becomes
 * "review_expired", so the figures stop counting it as on hold.
 */
export function countExpiredReview(transactionId: string): void {
  recordActivity({ kind: "result", name: "review_expired", transaction_id: transactionId })
}
