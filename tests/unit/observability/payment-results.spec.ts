import { assembleWindows } from "../../../src/api/admin/card-service/glance-windows"
import { paymentResultKind, plainReason } from "../../../src/lib/payment-results"

describe("paymentResultKind", () => {
  it.each([
    ["100", "approved"],
    ["110", "approved"],
    ["203", "declined"],
    ["204", "declined"],
    ["102", "declined"],
    ["490", "declined"],
    ["999", "declined"],
    ["475", "3ds_failed"],
    ["476", "3ds_failed"],
    ["480", "review"],
    ["481", "declined"],
    ["150", "error"],
    ["250", "error"],
    ["236", "error"],
  ])("%s is %s", (code, kind) => {
    expect(paymentResultKind(code)).toBe(kind)
  })
})

describe("plainReason", () => {
  it.each([
    ["204", "Insufficient funds"],
    ["203", "General card decline"],
    ["101", "One or more fields missing"],
    ["200", "Approved by the issuing bank but failed the address verification check (soft decline)"],
    ["480", "Order marked for review by the decision manager"],
    ["999", "Reason code not in the section 7 table"],
  ])("%s reads %s", (code, text) => {
    expect(plainReason(code)).toBe(text)
  })
})

describe("assembleWindows (Payments at a glance)", () => {
  const event = (kind: string, name: string, day: number, week: number, reason_code: string | null = null) => ({
    kind,
    name,
    reason_code,
    day,
    week,
  })

  it("counts results by what they finally were, reviews on hold and expired apart, and the approval rate over the decided ones (issue 41)", () => {
    const [day, week] = assembleWindows(
      { day: { started: 10, abandoned: 2 }, week: { started: 40, abandoned: 5 } },
      [
        event("result", "approved", 6, 20, "100"),
        event("result", "approved", 0, 1, "110"),
        event("result", "declined", 2, 6, "204"),
        event("result", "declined", 1, 7, "203"),
        event("result", "3ds_failed", 1, 3, "476"),
        event("result", "review", 0, 2, "480"),
        event("result", "review_expired", 1, 1, null),
        event("result", "declined", 1, 1, "481"),
        event("result", "error", 0, 1, "150"),
        event("callback", "settled", 9, 30),
        event("callback", "refused", 1, 2),
        event("callback", "ignored", 1, 1),
        event("callback", "unavailable", 0, 4),
        event("sweep", "order_created", 1, 3),
        event("sweep", "outcome_unknown", 0, 2),
      ],
      [
        { operation: "retrieve", window: "day", calls: 20, p50: 12.34, p95: 40 },
        { operation: "capture", window: "day", calls: 3, p50: 30, p95: 90.06 },
        { operation: "retrieve", window: "week", calls: 80, p50: 11, p95: 38 },
      ]
    )
    expect(day).toEqual({
      window: "24h",
      started: 10,
      approved: 6,
      declined: 4,
      three_ds_failed: 1,
      errors: 0,
      decided: 11,
      on_hold: 0,
      review_expired: 1,
      top_declines: [
        { reason_code: "204", reason: "Insufficient funds", count: 2 },
        { reason_code: "203", reason: "General card decline", count: 1 },
        { reason_code: "481", reason: "Order rejected by the decision manager", count: 1 },
      ],
      abandoned: 2,
      approval_rate: 6 / 11,
      latency: [
        { operation: "capture", calls: 3, p50_ms: 30, p95_ms: 90.1 },
        { operation: "retrieve", calls: 20, p50_ms: 12.3, p95_ms: 40 },
      ],
      callbacks_refused: 1,
      callbacks_ignored: 1,
      callbacks_unavailable: 0,
      sweep_actions: 1,
      sweep_by_status: [{ status: "order_created", count: 1 }],
    })
    expect(week).toMatchObject({
      window: "7d",
      started: 40,
      approved: 21,
      declined: 14,
      top_declines: [
        { reason_code: "203", count: 7 },
        { reason_code: "204", count: 6 },
        { reason_code: "481", count: 1 },
      ],
      on_hold: 2,
      review_expired: 1,
      errors: 1,
      decided: 39,
      // The reviews on hold or expired are no decided result: not in the base.
      approval_rate: 21 / 39,
      latency: [{ operation: "retrieve", calls: 80 }],
      callbacks_refused: 2,
      callbacks_ignored: 1,
      callbacks_unavailable: 4,
      sweep_actions: 5,
    })
  })

  it("has no approval rate without results", () => {
    const [day] = assembleWindows(
      { day: { started: 3, abandoned: 3 }, week: { started: 3, abandoned: 3 } },
      [],
      []
    )
    expect(day).toMatchObject({ started: 3, abandoned: 3, approved: 0, approval_rate: null, top_declines: [], latency: [] })
  })
})
