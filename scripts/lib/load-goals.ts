/**
 * The load goals, judged like for like (issue 33): the card service
 * authorizing only against Medusa's pp_system_default, which only
 * authorizes; throughput at least 0.9x and p99 at most 1.2x. One run per side
 * is within this machine's noise, so each alternation of the sides (one round
 * of each, load-rounds.ts) gives its own pair of ratios, and a goal is judged
 * on their median, with their spread printed beside it. Pure: the benchmark
 * feeds it rounds.
 */

export const GOALS = {
  /** The judged side's checkouts per second over the system provider's: at least. */
  throughput: 0.9,
  /** The judged side's p99 over the system provider's: at most. */
  p99: 1.2,
} as const

/** Alternations a verdict needs (the issue: the median of at least five). */
export const MIN_ALTERNATIONS = 5

/** What one round of one side did. */
export type RoundFigures = {
  /** Completed checkouts over the round's wall time, per second. */
  perSecond: number
  /** The 99th percentile of the round's checkout times, ms. */
  p99: number
}

/** The median, the lowest and the highest of some values, and the values themselves. */
export type Spread = { median: number; min: number; max: number; values: number[] }

export type GoalVerdict = {
  alternations: number
  throughput: Spread & { met: boolean | null }
  p99: Spread & { met: boolean | null }
}

/** What load-rounds.ts records of a round, as far as the goals need it. */
export type Round = {
  provider: string
  alternation: number
  wallMs: number
  results: Array<{ ok: boolean; ms?: number }>
}

/**
 * The figures of each alternation in which both the judged side and the
 * system provider ran a round, in order.
 */
export function alternationsOf(
  rounds: Round[],
  judged: string
): Array<{ judged: RoundFigures; system: RoundFigures }> {
  const figures = (round: Round) =>
    roundFigures(
      round.results.filter((r) => r.ok && r.ms !== undefined).map((r) => r.ms!),
      round.wallMs
    )
  const indices = [...new Set(rounds.map((r) => r.alternation))].sort((a, b) => a - b)
  return indices.flatMap((alternation) => {
    const mine = rounds.find((r) => r.alternation === alternation && r.provider === judged)
    const system = rounds.find((r) => r.alternation === alternation && r.provider === "system")
    return mine && system ? [{ judged: figures(mine), system: figures(system) }] : []
  })
}

/** Nearest-rank percentile, as the benchmark reports every percentile. */
export function percentile(values: number[], q: number): number {
  if (!values.length) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]
}

export function median(values: number[]): number {
  if (!values.length) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

export function spreadOf(values: number[]): Spread {
  const finite = values.filter(Number.isFinite)
  return {
    median: median(finite),
    min: finite.length ? Math.min(...finite) : NaN,
    max: finite.length ? Math.max(...finite) : NaN,
    values: finite,
  }
}

/** One round's figures from its checkout times (ms) and wall time; failed checkouts count as not done. */
export function roundFigures(okMs: number[], wallMs: number): RoundFigures {
  return { perSecond: okMs.length / (wallMs / 1000), p99: percentile(okMs, 0.99) }
}

/**
 * The goals over alternations: per alternation, the judged side's
 * throughput and p99 over the system side's in that same alternation; each
 * goal on the median. `met` is null with fewer than MIN_ALTERNATIONS.
 */
export function judgeGoals(alternations: Array<{ judged: RoundFigures; system: RoundFigures }>): GoalVerdict {
  const throughput = spreadOf(alternations.map((a) => a.judged.perSecond / a.system.perSecond))
  const p99 = spreadOf(alternations.map((a) => a.judged.p99 / a.system.p99))
  const enough = throughput.values.length >= MIN_ALTERNATIONS && p99.values.length >= MIN_ALTERNATIONS
  return {
    alternations: alternations.length,
    throughput: { ...throughput, met: enough ? throughput.median >= GOALS.throughput : null },
    p99: { ...p99, met: enough ? p99.median <= GOALS.p99 : null },
  }
}

/** The verdict as the benchmark prints it: two lines, the median, the spread and every alternation's ratio. */
export function goalLines(name: string, verdict: GoalVerdict): string[] {
  const x = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)}x` : "-")
  const word = (met: boolean | null) =>
    met === null ? `no verdict: fewer than ${MIN_ALTERNATIONS} alternations` : met ? "met" : "NOT met"
  const line = (label: string, goal: string, s: Spread & { met: boolean | null }) =>
    `${label} ${name}/system: median ${x(s.median)} (goal ${goal}: ${word(s.met)}), ` +
    `spread ${x(s.min)} to ${x(s.max)} over ${s.values.length} alternations [${s.values.map(x).join(" ")}]`
  return [
    line("throughput", `>= ${GOALS.throughput}`, verdict.throughput),
    line("p99       ", `<= ${GOALS.p99}`, verdict.p99),
  ]
}
