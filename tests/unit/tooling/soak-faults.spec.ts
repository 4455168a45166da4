import {
  effectWindow,
  FAULT_KINDS,
  faultCosts,
  planFaults,
  SERVICE_PATHS,
  CLIENT_TIMEOUT_MS,
  type AppliedFault,
} from "../../../scripts/lib/soak-faults"

// bench:soak's fault plan (issue 33): faults at random times, every kind
// within each run of as many faults as there are kinds, the same plan again
// from the same seed; and each kind's cost in latency.

describe("planFaults", () => {
  it("plans the same faults from the same seed and others from another", () => {
    const a = planFaults({ seed: 7, untilMs: 600_000, meanGapMs: 20_000 })
    expect(planFaults({ seed: 7, untilMs: 600_000, meanGapMs: 20_000 })).toEqual(a)
    expect(planFaults({ seed: 8, untilMs: 600_000, meanGapMs: 20_000 })).not.toEqual(a)
  })

  it("has every kind once in each bag of as many faults as there are kinds, in a random order", () => {
    const plan = planFaults({ seed: 1, untilMs: 10_000_000, meanGapMs: 10_000 })
    expect(plan.length).toBeGreaterThan(3 * FAULT_KINDS.length)
    for (let bag = 0; bag + FAULT_KINDS.length <= plan.length; bag += FAULT_KINDS.length) {
      const kinds = plan.slice(bag, bag + FAULT_KINDS.length).map((f) => f.params.kind)
      expect([...kinds].sort()).toEqual([...FAULT_KINDS].sort())
    }
    const firstBags = [0, 1, 2].map((b) => plan.slice(b * FAULT_KINDS.length, (b + 1) * FAULT_KINDS.length).map((f) => f.params.kind).join())
    expect(new Set(firstBags).size).toBeGreaterThan(1)
  })

  it("spaces faults at random around the mean gap, from the first moment to the end", () => {
    const plan = planFaults({ seed: 3, untilMs: 20_000_000, meanGapMs: 30_000, firstAtMs: 5_000 })
    expect(plan[0].atMs).toBe(5_000)
    expect(plan.every((f) => f.atMs < 20_000_000)).toBe(true)
    const gaps = plan.slice(1).map((f, i) => f.atMs - plan[i].atMs)
    const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length
    expect(mean).toBeGreaterThan(25_000)
    expect(mean).toBeLessThan(35_000)
    expect(Math.min(...gaps)).toBeLessThan(5_000)
    expect(Math.max(...gaps)).toBeGreaterThan(90_000)
  })

  it("keeps to the kinds asked for, and gives each its bounds", () => {
    const plan = planFaults({ seed: 5, untilMs: 1_000_000, meanGapMs: 5_000, kinds: ["service-timeout", "service-5xx"] })
    expect(new Set(plan.map((f) => f.params.kind))).toEqual(new Set(["service-timeout", "service-5xx"]))
    for (const { params } of plan) {
      if (params.kind === "service-timeout") {
        expect(params.ms).toBeGreaterThan(CLIENT_TIMEOUT_MS)
        expect(SERVICE_PATHS).toContain(params.path)
      }
      if (params.kind === "service-5xx") expect([500, 503]).toContain(params.status)
    }
    expect(new Set(plan.map((f) => "path" in f.params && f.params.path))).toEqual(new Set(SERVICE_PATHS))
  })
})

describe("faultCosts", () => {
  const fault = (kind: AppliedFault["kind"], startedAt: number, endedAt: number): AppliedFault => ({
    kind,
    startedAt,
    endedAt,
    params: kind === "db-cut" ? { kind } : { kind: "redis-restart" },
  })

  it("compares the checkouts a kind's windows touched with those it did not touch, and gives those no fault touched", () => {
    const cut = fault("db-cut", 100_000, 100_000)
    const { end } = effectWindow(cut)
    expect(end).toBe(120_000)
    const checkouts = [
      { startedAt: 0, endedAt: 1_000, ms: 1_000 },
      { startedAt: 2_000, endedAt: 4_000, ms: 2_000 },
      { startedAt: 99_000, endedAt: 103_000, ms: 4_000 },
      { startedAt: 119_000, endedAt: 127_000, ms: 8_000 },
      { startedAt: 121_000, endedAt: 122_000, ms: 1_000 },
    ]
    const costs = faultCosts(checkouts, [cut])
    expect(costs.baseline).toEqual({ n: 3, p50: 1_000, p95: 2_000 })
    expect(costs.kinds).toEqual([
      { kind: "db-cut", faults: 1, touched: 2, p50: 4_000, p95: 8_000, p50Cost: 3_000, p95Cost: 6_000 },
    ])
    // A Redis restart over the first two: the cut's cost is against the three it did not touch.
    const both = faultCosts(checkouts, [cut, fault("redis-restart", 0, 0)])
    expect(both.baseline).toEqual({ n: 1, p50: 1_000, p95: 1_000 })
    expect(both.kinds.find((k) => k.kind === "db-cut")).toMatchObject({ touched: 2, p50Cost: 3_000, p95Cost: 6_000 })
    expect(both.kinds.find((k) => k.kind === "redis-restart")).toMatchObject({ touched: 2, p50: 1_000, p95: 2_000 })
  })

  it("extends a late-callback window by its delay", () => {
    const late: AppliedFault = {
      kind: "callbacks-late",
      startedAt: 0,
      endedAt: 10_000,
      params: { kind: "callbacks-late", windowMs: 10_000, minDelayMs: 60_000, maxDelayMs: 120_000 },
    }
    expect(effectWindow(late)).toEqual({ start: 0, end: 130_000 })
  })
})
