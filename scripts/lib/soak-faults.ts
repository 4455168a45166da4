/**
 * The soak's faults (issue 33), planned at random from a seed: which kind
 * when, and with what, and the window in which each can touch a checkout,
 * for its cost in latency. Pure: soak-inject.ts applies a plan to a cluster.
 */
import { percentile } from "./load-goals"

export const FAULT_KINDS = [
  /** A Medusa instance SIGKILLed, restarted after a pause. */
  "instance-kill",
  /** The service answers 500 or 503 (not processed) on an endpoint. */
  "service-5xx",
  /** The service processes a request and answers after the plugin's timeout, or never. */
  "service-timeout",
  /** For a while, every result's callbacks are never sent. */
  "callbacks-lost",
  /** For a while, every result's callback is delivered several times. */
  "callbacks-duplicated",
  /** For a while, callbacks go out after the browser's redirect, each with its own random delay. */
  "callbacks-reordered",
  /** For a while, callbacks go out minutes after the result. */
  "callbacks-late",
  /** Every database connection of the store cut (pg_terminate_backend). */
  "db-cut",
  /** The Redis server stopped and started again. */
  "redis-restart",
] as const

export type FaultKind = (typeof FAULT_KINDS)[number]

/** The service's endpoints a fault may hit: the JSON ones and the browser's form post. */
export const SERVICE_PATHS = [
  "/authorize",
  "/payment/retrieve",
  "/capture",
  "/reverse",
  "/refund",
  "/void",
  "/order/start",
] as const

/**
 * The plugin's client gives up on an answer after 20 s (options.ts,
 * timeouts.headersMs): a held answer longer than this is a timeout to it.
 */
export const CLIENT_TIMEOUT_MS = 20_000

export type FaultParams =
  | { kind: "instance-kill"; instance: number; downMs: number }
  | { kind: "service-5xx"; path: string; status: 500 | 503; count: number }
  | { kind: "service-timeout"; path: string; mode: "delay" | "destroy"; ms: number; count: number }
  | { kind: "callbacks-lost"; windowMs: number }
  | { kind: "callbacks-duplicated"; windowMs: number; copies: number }
  | { kind: "callbacks-reordered"; windowMs: number; maxDelayMs: number }
  | { kind: "callbacks-late"; windowMs: number; minDelayMs: number; maxDelayMs: number }
  | { kind: "db-cut" }
  | { kind: "redis-restart" }

/** One planned fault: when (ms after the start) and what. */
export type PlannedFault = { atMs: number; params: FaultParams }

/** A small seeded generator (mulberry32), so a run's faults can be planned again from its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const between = (random: () => number, min: number, max: number) => Math.floor(min + random() * (max - min + 1))
const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]

function paramsOf(kind: FaultKind, random: () => number): FaultParams {
  switch (kind) {
    case "instance-kill":
      return { kind, instance: between(random, 0, 1), downMs: between(random, 2_000, 20_000) }
    case "service-5xx":
      return { kind, path: pick(random, SERVICE_PATHS), status: pick(random, [500, 503] as const), count: between(random, 1, 6) }
    case "service-timeout":
      return {
        kind,
        path: pick(random, SERVICE_PATHS),
        mode: pick(random, ["delay", "destroy"] as const),
        ms: between(random, CLIENT_TIMEOUT_MS + 1_000, CLIENT_TIMEOUT_MS + 10_000),
        count: between(random, 1, 3),
      }
    case "callbacks-lost":
      return { kind, windowMs: between(random, 5_000, 30_000) }
    case "callbacks-duplicated":
      return { kind, windowMs: between(random, 10_000, 40_000), copies: between(random, 3, 5) }
    case "callbacks-reordered":
      return { kind, windowMs: between(random, 10_000, 40_000), maxDelayMs: between(random, 3_000, 15_000) }
    case "callbacks-late":
      return { kind, windowMs: between(random, 10_000, 30_000), minDelayMs: 60_000, maxDelayMs: between(random, 90_000, 180_000) }
    case "db-cut":
    case "redis-restart":
      return { kind }
  }
}

/**
 * Faults from `firstAtMs` until `untilMs`, gaps drawn from an exponential
 * distribution of mean `meanGapMs` (arrivals at random, as a Poisson
 * process). Kinds come from shuffled bags holding each kind of `kinds` once,
 * so every kind occurs once `kinds.length` faults have come, in random order.
 */
export function planFaults({
  seed,
  untilMs,
  meanGapMs,
  firstAtMs = meanGapMs,
  kinds = FAULT_KINDS,
}: {
  seed: number
  untilMs: number
  meanGapMs: number
  firstAtMs?: number
  kinds?: readonly FaultKind[]
}): PlannedFault[] {
  if (!kinds.length) return []
  const random = seededRandom(seed)
  const plan: PlannedFault[] = []
  let bag: FaultKind[] = []
  for (let at = firstAtMs; at < untilMs; at += Math.max(1_000, Math.round(-Math.log(1 - random()) * meanGapMs))) {
    if (!bag.length) {
      bag = [...kinds]
      for (let i = bag.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1))
        ;[bag[i], bag[j]] = [bag[j], bag[i]]
      }
    }
    plan.push({ atMs: at, params: paramsOf(bag.pop()!, random) })
  }
  return plan
}

/**
 * How long after a fault ends it can still hold up a checkout, in ms. A
 * killed instance may have held Medusa's cart lock (120 s TTL, core-flows
 * acquireLockStep) and the plugin's settle lock; an injected 5xx or timeout
 * waits in the service's queue for the next matching request; a cut
 * connection or a restarted Redis is retried within seconds.
 */
const TAIL_MS: Record<FaultKind, number> = {
  "instance-kill": 150_000,
  "service-5xx": 30_000,
  "service-timeout": 45_000,
  "callbacks-lost": 0,
  "callbacks-duplicated": 10_000,
  "callbacks-reordered": 15_000,
  "callbacks-late": 0,
  "db-cut": 20_000,
  "redis-restart": 20_000,
}

/** A fault as applied: when it started and ended (the restart done, the window closed), ms since the epoch. */
export type AppliedFault = { kind: FaultKind; startedAt: number; endedAt: number; params: FaultParams }

/** The time in which a fault may touch a checkout: from its start to its end plus its tail (late callbacks: their delay). */
export function effectWindow(fault: AppliedFault): { start: number; end: number } {
  const extra = fault.params.kind === "callbacks-late" ? fault.params.maxDelayMs : 0
  return { start: fault.startedAt, end: fault.endedAt + TAIL_MS[fault.kind] + extra }
}

/** A finished checkout for the cost: when it started and ended (ms since the epoch) and how long it took. */
export type TimedCheckout = { startedAt: number; endedAt: number; ms: number }

export type FaultCost = {
  kind: FaultKind
  faults: number
  /** Checkouts that overlapped a window of this kind, and their p50 and p95. */
  touched: number
  p50: number
  p95: number
  /**
   * Those p50 and p95 less the p50 and p95 of the checkouts no window of
   * this kind touched (other kinds' faults may have): with faults every
   * minute few checkouts meet none at all.
   */
  p50Cost: number
  p95Cost: number
}

/**
 * Each kind's cost in latency: the checkouts whose time overlapped one of
 * its faults' effect windows against those that no fault of that kind
 * touched; and, as a baseline, the checkouts no fault touched at all.
 */
export function faultCosts(
  checkouts: TimedCheckout[],
  faults: AppliedFault[]
): { baseline: { n: number; p50: number; p95: number }; kinds: FaultCost[] } {
  const windows = faults.map((fault) => ({ kind: fault.kind, ...effectWindow(fault) }))
  const overlaps = (c: TimedCheckout, w: { start: number; end: number }) => c.startedAt <= w.end && c.endedAt >= w.start
  const untouched = checkouts.filter((c) => !windows.some((w) => overlaps(c, w))).map((c) => c.ms)
  const baseline = { n: untouched.length, p50: percentile(untouched, 0.5), p95: percentile(untouched, 0.95) }
  const kinds = FAULT_KINDS.filter((kind) => faults.some((f) => f.kind === kind)).map((kind) => {
    const mine = windows.filter((w) => w.kind === kind)
    const hit = (c: TimedCheckout) => mine.some((w) => overlaps(c, w))
    const touched = checkouts.filter(hit).map((c) => c.ms)
    const others = checkouts.filter((c) => !hit(c)).map((c) => c.ms)
    const p50 = percentile(touched, 0.5)
    const p95 = percentile(touched, 0.95)
    return {
      kind,
      faults: mine.length,
      touched: touched.length,
      p50,
      p95,
      p50Cost: p50 - percentile(others, 0.5),
      p95Cost: p95 - percentile(others, 0.95),
    }
  })
  return { baseline, kinds }
}
