import { assembleWindows } from "../../../src/api/admin/card-service/glance-windows"
import { plainReason } from "../../../src/lib/payment-results"

/**
 * The orderings and limits of "Payments at a glance" (glance-windows.ts)
 * that the store owner reads off the page: the five most frequent decline
 * reasons, the slowest operations first, the sweep's statuses by count.
 * tests/unit/observability/payment-results.spec.ts has the counts themselves.
 */

const sessions = { day: { started: 0, abandoned: 0 }, week: { started: 0, abandoned: 0 } }
const event = (kind: string, name: string, day: number, week: number, reason_code: string | null = null) => ({
  kind,
  name,
  reason_code,
  day,
  week,
})

describe("top declines", () => {
  it("lists the five most frequent reasons, ties by code", () => {
    const [day] = assembleWindows(
      sessions,
      [
        event("result", "declined", 1, 1, "211"),
        event("result", "declined", 4, 4, "204"),
        event("result", "declined", 2, 2, "231"),
        event("result", "declined", 2, 2, "203"),
        event("result", "declined", 3, 3, "205"),
        event("result", "declined", 1, 1, "208"),
      ],
      []
    )
    expect(day.top_declines.map((d) => [d.reason_code, d.count])).toEqual([
      ["204", 4],
      ["205", 3],
      ["203", 2],
      ["231", 2],
      ["208", 1],
    ])
  })

  it("leaves out a reason with no decline in the window, and sums rows of one reason", () => {
    const [day, week] = assembleWindows(
      sessions,
      [
        event("result", "declined", 0, 5, "204"),
        event("result", "declined", 1, 1, "203"),
        event("result", "declined", 2, 2, "203"),
      ],
      []
    )
    expect(day.top_declines).toEqual([{ reason_code: "203", reason: plainReason("203"), count: 3 }])
    expect(week.top_declines.map((d) => d.reason_code)).toEqual(["204", "203"])
  })

  it("names a decline recorded with no reason code '?'", () => {
    const [day] = assembleWindows(sessions, [event("result", "declined", 2, 2, null)], [])
    expect(day.top_declines).toEqual([{ reason_code: "?", reason: plainReason("?"), count: 2 }])
  })
})

describe("latency", () => {
  it("puts the slowest p95 first, ties by operation", () => {
    const [day] = assembleWindows(
      sessions,
      [],
      [
        { operation: "retrieve", window: "day", calls: 1, p50: 10, p95: 50 },
        { operation: "capture", window: "day", calls: 1, p50: 10, p95: 50 },
        { operation: "authorize", window: "day", calls: 1, p50: 10, p95: 20 },
        { operation: "void", window: "day", calls: 1, p50: 10, p95: 90 },
      ]
    )
    expect(day.latency.map((l) => l.operation)).toEqual(["void", "capture", "retrieve", "authorize"])
  })
})

describe("sweep actions", () => {
  it("lists the statuses by count, most first, ties by status, leaving out those with none in the window", () => {
    const [day] = assembleWindows(
      sessions,
      [
        event("sweep", "released", 1, 1),
        event("sweep", "order_created", 5, 5),
        event("sweep", "outcome_unknown", 2, 2),
        event("sweep", "failed", 2, 2),
        event("sweep", "not_released", 0, 4),
      ],
      []
    )
    expect(day.sweep_by_status).toEqual([
      { status: "order_created", count: 5 },
      { status: "failed", count: 2 },
      { status: "outcome_unknown", count: 2 },
      { status: "released", count: 1 },
    ])
    expect(day.sweep_actions).toBe(10)
  })
})
