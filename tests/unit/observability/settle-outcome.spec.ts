import { settleOutcomeAttributes } from "../../../src/observability/settlement-telemetry"

/**
 * Issue 41: the settle span named a review's approval `order`, though the
 * order existed since it was placed on hold. The span's outcome uses the
 * words of the sweep's action and Needs attention.
 */
describe("the card_service.settle span's outcome", () => {
  it.each([
    [{ kind: "order", review: "approved" }, { "card_service.settle.outcome": "review_closed", "card_service.review.verdict": "approved" }],
    [{ kind: "review_closed", verdict: "rejected" }, { "card_service.settle.outcome": "review_closed", "card_service.review.verdict": "rejected" }],
    [{ kind: "review_closed", verdict: "expired" }, { "card_service.settle.outcome": "review_closed", "card_service.review.verdict": "expired" }],
    [{ kind: "order", onHold: true }, { "card_service.settle.outcome": "on_hold" }],
    [{ kind: "order" }, { "card_service.settle.outcome": "order" }],
    [{ kind: "failed", failure: { code: "203" } }, { "card_service.settle.outcome": "failed", "card_service.failure": "203" }],
    [{ kind: "ignored" }, { "card_service.settle.outcome": "ignored" }],
  ])("names %j as %j", (outcome, attributes) => {
    expect(settleOutcomeAttributes(outcome)).toEqual(attributes)
  })
})
