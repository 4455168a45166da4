/**
 * Every span and metric the plugin emits, and their attributes, in one
 * place: the code reads its names here, docs/observability.md lists them,
 * and tests/unit/observability/docs-names.spec.ts keeps the two equal.
 * Attribute values are operation names, statuses, reason codes and counts:
 * never an identifier that opens a page (a session id opens the pay page
 * with the shopper's billing details), a card number, a verification code,
 * a credential or personal data.
 */

/** The instrumentation scope of the tracer and the meter. */
export const INSTRUMENTATION_SCOPE = "medusa-payment-card-service"

export const ATTR = {
  operation: "card_service.operation",
  httpStatus: "http.response.status_code",
  decision: "card_service.decision",
  reasonCode: "card_service.reason_code",
  reasonFlag: "card_service.reason_flag",
  attempts: "card_service.attempts",
  errorType: "error.type",
  result: "card_service.result",
  callOutcome: "card_service.call.outcome",
  settleSource: "card_service.settle.source",
  settleOutcome: "card_service.settle.outcome",
  reviewVerdict: "card_service.review.verdict",
  failure: "card_service.failure",
  callbackOutcome: "card_service.callback.outcome",
  sweepAction: "card_service.sweep.action",
  sweepExamined: "card_service.sweep.examined",
  sweepActions: "card_service.sweep.actions",
  sweepServiceDown: "card_service.sweep.service_down",
} as const

type AttributeKey = (typeof ATTR)[keyof typeof ATTR]

/** A span name for each call to the service: `card_service.<operation>`. */
export const callSpanName = (operation: string) => `card_service.${operation}`

export const SPANS = {
  /** One per call to the service; `<operation>` is authorize, retrieve, capture, refund, reverse or void. */
  call: {
    name: "card_service.<operation>",
    attributes: [
      ATTR.operation,
      ATTR.httpStatus,
      ATTR.decision,
      ATTR.reasonCode,
      ATTR.reasonFlag,
      ATTR.attempts,
      ATTR.errorType,
    ],
  },
  /** One per settlement of a reported result (callback, return, poll, sweep). */
  settle: {
    name: "card_service.settle",
    attributes: [ATTR.settleSource, ATTR.settleOutcome, ATTR.reviewVerdict, ATTR.failure, ATTR.errorType],
  },
  /** One per run of the reconciliation sweep. */
  sweep: {
    name: "card_service.sweep",
    attributes: [ATTR.sweepExamined, ATTR.sweepActions, ATTR.sweepServiceDown, ATTR.errorType],
  },
} as const satisfies Record<string, { name: string; attributes: readonly AttributeKey[] }>

export const METRICS = {
  /**
   * Payment results the service decided, each counted once (by the instance
   * that recorded it first); a payment held for review is counted as
   * `review` when held and again with its verdict.
   */
  paymentResults: {
    name: "card_service.payment.results",
    description: "Payment results the card service decided, each counted once",
    kind: "counter",
    unit: "{result}",
    attributes: [ATTR.result, ATTR.reasonCode, ATTR.reasonFlag],
  },
  /** Time of each call to the service. */
  callDuration: {
    name: "card_service.call.duration",
    description: "Time of each call to the card service",
    kind: "histogram",
    unit: "ms",
    attributes: [ATTR.operation, ATTR.callOutcome],
  },
  /** The service's callbacks, by what the plugin answered. */
  callbacks: {
    name: "card_service.callbacks",
    description: "The card service's callbacks, by the plugin's answer",
    kind: "counter",
    unit: "{callback}",
    attributes: [ATTR.callbackOutcome],
  },
  /** What the reconciliation sweep did, by the status it noted. */
  sweepActions: {
    name: "card_service.sweep.actions",
    description: "What the reconciliation sweep did",
    kind: "counter",
    unit: "{action}",
    attributes: [ATTR.sweepAction],
  },
} as const satisfies Record<
  string,
  {
    name: string
    description: string
    kind: "counter" | "histogram"
    unit: string
    attributes: readonly AttributeKey[]
  }
>

/** Bucket bounds (ms) of the call-duration histogram: loopback to a slow service's 30 s timeout. */
export const CALL_DURATION_BUCKETS_MS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000]

/** What the callback route answered; `acknowledged`: a copy answered 200 while another copy settles it. */
export type CallbackOutcome = "settled" | "acknowledged" | "ignored" | "refused" | "unavailable"
