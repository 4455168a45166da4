import { recordActivity } from "./activity-buffer"
import { asSettlement } from "./settlement-scope"
import { ATTR, SPANS, type CallbackOutcome } from "./telemetry-names"
import { inSpan, instruments } from "./telemetry"

/**
 * A settlement's outcome as this file reads it: its kind as a plain string,
 * so kinds added later (an order on hold for review) pass through as they
 * are, and the failure's code when there is one.
 */
type Settled = { kind: string; failure?: { code: string } }

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
    (outcome) =>
      outcome.failure
        ? { [ATTR.settleOutcome]: outcome.kind, [ATTR.failure]: outcome.failure.code }
        : { [ATTR.settleOutcome]: outcome.kind }
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
