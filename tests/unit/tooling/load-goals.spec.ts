import { alternationsOf, goalLines, judgeGoals, median, type Round } from "../../../scripts/lib/load-goals"

// bench:load judges the goals like for like (issue 33): per alternation of
// the sides, the authorize-only card side's throughput and p99 over the
// system provider's, and each goal on the median of those ratios.

const round = (provider: string, alternation: number, wallMs: number, ms: number[], failed = 0): Round => ({
  provider,
  alternation,
  wallMs,
  results: [...ms.map((m) => ({ ok: true, ms: m })), ...Array.from({ length: failed }, () => ({ ok: false }))],
})

describe("median", () => {
  it("takes the middle value, or the mean of the two middle ones", () => {
    expect(median([3, 1, 2])).toBe(2)
    expect(median([4, 1, 3, 2])).toBe(2.5)
    expect(median([])).toBeNaN()
  })
})

describe("alternationsOf", () => {
  it("pairs each alternation's judged round with its system round, failed checkouts not done", () => {
    const rounds = [
      round("authorize", 0, 2000, [100, 200], 2),
      round("system", 0, 1000, [100, 300]),
      round("system", 1, 1000, [50]),
      round("card", 1, 1000, [50]),
    ]
    expect(alternationsOf(rounds, "authorize")).toEqual([
      { judged: { perSecond: 1, p99: 200 }, system: { perSecond: 2, p99: 300 } },
    ])
  })
})

describe("judgeGoals", () => {
  const alternation = (throughputRatio: number, p99Ratio: number) => ({
    judged: { perSecond: throughputRatio, p99: p99Ratio * 1000 },
    system: { perSecond: 1, p99: 1000 },
  })

  it("judges each goal on the median of five alternations, whatever the spread", () => {
    const verdict = judgeGoals([
      alternation(0.7, 1.5),
      alternation(0.92, 1.1),
      alternation(1.1, 0.9),
      alternation(0.95, 1.19),
      alternation(0.85, 1.3),
    ])
    expect(verdict.throughput).toMatchObject({ median: 0.92, min: 0.7, max: 1.1, met: true })
    expect(verdict.p99).toMatchObject({ median: 1.19, min: 0.9, max: 1.5, met: true })
  })

  it("says not met when the median misses, and gives no verdict on fewer than five alternations", () => {
    const four = [alternation(0.8, 1.3), alternation(0.85, 1.25), alternation(0.95, 1.0), alternation(0.89, 1.21)]
    expect(judgeGoals(four).throughput.met).toBeNull()
    const five = judgeGoals([...four, alternation(1.0, 1.0)])
    expect(five.throughput).toMatchObject({ median: 0.89, met: false })
    expect(five.p99).toMatchObject({ median: 1.21, met: false })
  })

  it("prints the median, the verdict, the spread and every alternation's ratio", () => {
    const lines = goalLines("card, authorize only", judgeGoals([1, 2, 3, 4, 5].map(() => alternation(0.9, 1.2))))
    expect(lines[0]).toBe(
      "throughput card, authorize only/system: median 0.90x (goal >= 0.9: met), spread 0.90x to 0.90x over 5 alternations [0.90x 0.90x 0.90x 0.90x 0.90x]"
    )
    expect(lines[1]).toContain("median 1.20x (goal <= 1.2: met)")
  })
})
