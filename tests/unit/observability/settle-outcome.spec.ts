import { callbackOutcomeOf, settleOutcomeAttributes } from "../../../src/observability/settlement-telemetry"

/**
 * Issue 41: the settle span named a review's approval `order`, though the
 * order existed since it was placed on hold. The span's outcome uses the
 * words of the sweep's action and Needs attention.
 */
describe("the card_service.settle span's outcome", () => {
  it.each([
    ["a review's approval", { kind: "order", review: "approved" }, { "card_service.settle.outcome": "review_closed", "card_service.review.verdict": "approved" }],
    ["a review's rejection", { kind: "review_closed", verdict: "rejected" }, { "card_service.settle.outcome": "review_closed", "card_service.review.verdict": "rejected" }],
    ["a review with no verdict in time", { kind: "review_closed", verdict: "expired" }, { "card_service.settle.outcome": "review_closed", "card_service.review.verdict": "expired" }],
    ["an order on hold", { kind: "order", onHold: true }, { "card_service.settle.outcome": "on_hold" }],
    ["an order", { kind: "order" }, { "card_service.settle.outcome": "order" }],
    ["a decline", { kind: "failed", failure: { code: "203" } }, { "card_service.settle.outcome": "failed", "card_service.failure": "203" }],
    ["a result that is no payment of the session", { kind: "ignored" }, { "card_service.settle.outcome": "ignored" }],
  ])("names %s by its outcome", (_what, outcome, attributes) => {
    expect(settleOutcomeAttributes(outcome)).toEqual(attributes)
  })
})

describe("the callback route's answer in card_service.callbacks", () => {
  it.each([
    ["unknown_session", "refused"],
    ["ignored", "ignored"],
    ["acknowledged", "acknowledged"],
    ["order", "settled"],
    ["review_closed", "settled"],
    ["failed", "settled"],
  ])("counts an outcome of kind %s as %s", (kind, answer) => {
    expect(callbackOutcomeOf({ kind })).toBe(answer)
  })
})
