/**
 * `npm run bench:load`: two Medusa instances with the plugin on one
 * PostgreSQL and one Redis, the sandbox, and a round-robin proxy, all on
 * loopback; concurrent shoppers through whole checkouts with the card
 * service authorizing only and, alternating, with pp_system_default, which
 * only authorizes too: the goals judged like for like (issue 33). Prints
 * throughput and form-post-to-order latency of each side, each goal as the
 * median of the alternations' ratios with their spread (load-goals.ts), the
 * counts that must be zero, and where the card path's time and CPU went
 * (load-split.ts, load-cpu-report.ts). A benchmark, not a test: the goals are
 * reported, not asserted.
 *
 *   npm run bench:load -- [--concurrency 10,50,100] [--alternations A] [--per-shopper K] [--time-cap S]
 *                          [--capture-side] [--no-auto-capture] [--faults] [--cpu-profile] [--statements]
 *                          [--settle-start alternate|random]
 *
 * --alternations: rounds of each side at each concurrency (default 5, the
 * fewest a verdict takes); sides alternate round by round, the order reversed
 * every other alternation. --per-shopper K: each of the N shoppers pays for K
 * carts one after another in a round (default: enough for rounds of about
 * 40). --time-cap: seconds per concurrency before no new alternation starts
 * (default 900). --capture-side: a third side, the card service capturing
 * automatically (the store's CARD_SERVICE_AUTO_CAPTURE; --no-auto-capture
 * turns it off), reported beside the goals, not judged. --faults:
 * afterwards, three runs at concurrency 10 with a fault each (sandbox 503s and
 * slow answers, SIGKILL of one instance, a Redis restart), with the capturing
 * card side. --cpu-profile: each instance writes a V8 CPU profile when it
 * stops, into cpu-profiles/ of the log directory printed at start; `npm run
 * bench:profile -- <that directory>` says where the time went. --statements:
 * the embedded PostgreSQL counts statements (pg_stat_statements) during each
 * side's rounds (scripts/lib/load-statements.ts). --settle-start random: the
 * proxy sends each session's first callback to either instance at random, as
 * before issue 33, to see the wait that caused (load-cluster.ts, startProxy).
 * docs/benchmarks.md describes every option.
 */
import os from "node:os"
import { parseArgs } from "node:util"
import { positiveWhole } from "./lib/cli-numbers"
import { startCluster, Cluster, type SettleStart } from "./lib/load-cluster"
import { measureSplit, splitLines } from "./lib/load-split"
import { audit, followLeftBehind, followWithoutCapture, type Audit } from "./lib/load-audit"
import { alternationsOf, goalLines, judgeGoals, MIN_ALTERNATIONS } from "./lib/load-goals"
import { runShoppers, type RunResult } from "./lib/load-rounds"
import { type CheckoutResult, percentile, type Provider } from "./lib/load-shoppers"
import { statementLines } from "./lib/load-statements"
import { CARD_SIDES, cpuLines, hasSide } from "./lib/load-cpu-report"

type Options = {
  levels: number[]
  alternations: number
  /** Checkouts per shopper in a round; undefined: enough for rounds of about ROUND_TARGET. */
  perShopper?: number
  timeCapMs: number
  faults: boolean
  faultCheckouts: number
  cpuProfile: boolean
  autoCapture: boolean
  statements: boolean
  captureSide: boolean
  settleStart: SettleStart
}

/**
 * Checkouts a round aims at: a round's p99 is its slowest checkout below
 * 100, and with 10 shoppers paying once each, a round ends with the slowest
 * of ten while the cores idle; forty keeps ten in flight four times as long.
 */
const ROUND_TARGET = 40

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      concurrency: { type: "string" },
      alternations: { type: "string" },
      "per-shopper": { type: "string" },
      "time-cap": { type: "string" },
      "fault-checkouts": { type: "string" },
      faults: { type: "boolean" },
      "cpu-profile": { type: "boolean" },
      "no-auto-capture": { type: "boolean" },
      statements: { type: "boolean" },
      "capture-side": { type: "boolean" },
      "settle-start": { type: "string" },
    },
  })
  const whole = (name: "alternations" | "per-shopper" | "time-cap" | "fault-checkouts") => {
    const text = values[name]
    return text === undefined ? undefined : positiveWhole(name, text)
  }
  const levels = values.concurrency?.split(",").map((n) => positiveWhole("concurrency", n)) ?? [10, 50, 100]
  if (levels.some((n) => n > 200)) throw new Error("--concurrency above 200 is not what this machine is for")
  const settleStart = values["settle-start"] ?? "alternate"
  if (settleStart !== "alternate" && settleStart !== "random")
    throw new Error(`--settle-start: alternate or random, got ${settleStart}`)
  return {
    levels,
    alternations: whole("alternations") ?? MIN_ALTERNATIONS,
    perShopper: whole("per-shopper"),
    timeCapMs: (whole("time-cap") ?? 900) * 1000,
    faults: values.faults ?? false,
    faultCheckouts: whole("fault-checkouts") ?? 30,
    cpuProfile: values["cpu-profile"] ?? false,
    autoCapture: !values["no-auto-capture"],
    statements: values.statements ?? false,
    captureSide: values["capture-side"] ?? false,
    settleStart,
  }
}

const perShopperAt = (options: Options, concurrency: number) =>
  options.perShopper ?? Math.max(1, Math.round(ROUND_TARGET / concurrency))

const log = (line: string) =>
  process.stderr.write(
    `[bench:load ${new Date().toISOString().slice(11, 19)}] ${line}\n`
  )

type Side = {
  n: number
  failed: number
  perSecond: number
  p50: number
  p95: number
  p99: number
}

function side(run: RunResult, provider: Provider): Side {
  const mine = run.results.filter((r) => r.provider === provider)
  const ok = mine.filter((r) => r.ok)
  const ms = ok.map((r) => r.ms!)
  return {
    n: ok.length,
    failed: mine.length - ok.length,
    perSecond: ok.length / (run.wallMs[provider] / 1000),
    p50: percentile(ms, 0.5),
    p95: percentile(ms, 0.95),
    p99: percentile(ms, 0.99),
  }
}

// 5xx already shown by an earlier report: each report shows its own phase's.
let reported5xx = 0
let reportedCallback5xx = 0

/**
 * The machine's 1-minute load average, sampled every 10 s since the last
 * report: the benchmark shares 2 cores with whatever else runs, and the
 * figures mean little without it.
 */
let loadSamples: number[] = []
const sampleLoad = () => loadSamples.push(os.loadavg()[0])
function loadLine(): string {
  sampleLoad()
  const min = Math.min(...loadSamples)
  const max = Math.max(...loadSamples)
  const now = loadSamples[loadSamples.length - 1]
  loadSamples = [now]
  return `  load average (1 min, ${os.cpus().length} cores): ${now.toFixed(1)} now, ${min.toFixed(1)} to ${max.toFixed(1)} during the phase`
}

/** Card sessions whose callbacks and return reached both instances, of those that ended in an order. */
function spread(cluster: Cluster, run: RunResult): number {
  return run.results.filter(
    (r) =>
      r.provider !== "system" &&
      r.ok &&
      (cluster.counters.settledOn.get(r.sessionId!)?.size ?? 0) > 1
  ).length
}

function report(
  cluster: Cluster,
  title: string,
  run: RunResult,
  counts: Audit,
  extra: string[] = []
) {
  const sides = { card: side(run, "card"), authorize: side(run, "authorize"), system: side(run, "system") }
  const system = sides.system
  const f = (v: number, d = 0) => (Number.isFinite(v) ? v.toFixed(d) : "-")
  const row = (name: string, s: Side) =>
    `  ${name.padEnd(22)} ${String(s.n).padStart(5)} ${String(s.failed).padStart(6)} ${f(s.perSecond, 2).padStart(8)} ${f(s.p50).padStart(7)} ${f(s.p95).padStart(7)} ${f(s.p99).padStart(7)}`
  const compared = CARD_SIDES.filter(([provider]) => hasSide(run, provider))
  const lines = [
    "",
    `${title}: ${run.concurrency} concurrent shoppers${run.timedOut ? " (time cap reached)" : ""}`,
    `  ${"".padEnd(22)} ${"done".padStart(5)} ${"failed".padStart(6)} ${"per s".padStart(8)} ${"p50 ms".padStart(7)} ${"p95 ms".padStart(7)} ${"p99 ms".padStart(7)}`,
    ...compared.map(([provider, name]) => row(name, sides[provider])),
    row("pp_system_default", system),
    ...cpuLines(run, { card: sides.card.n, authorize: sides.authorize.n, system: system.n }).map((line) => `  ${line}`),
    ...(run.statements
      ? compared.flatMap(([provider, name]) =>
          statementLines(name, { card: run.statements![provider], system: run.statements!.system }, {
            card: sides[provider].n,
            system: system.n,
          }).map((line) => `  ${line}`)
        )
      : []),
    ...compared.map(
      ([provider, name]) =>
        `  pooled over the phase, ${name}/system: throughput ${f(sides[provider].perSecond / system.perSecond, 2)}x, ` +
          `p50 ${f(sides[provider].p50 / system.p50, 2)}x, p95 ${f(sides[provider].p95 / system.p95, 2)}x, ` +
          `p99 ${f(sides[provider].p99 / system.p99, 2)}x`
    ),
    ...compared.flatMap(([provider, name]) => [
      provider === "authorize"
        ? `  THE GOALS, like for like (both sides authorize only), per alternation of the sides:`
        : `  not judged (Medusa records a capture inside the checkout), per alternation of the sides:`,
      ...goalLines(name, judgeGoals(alternationsOf(run.rounds, provider))).map((line) => `    ${line}`),
    ]),
    `  must be zero: double orders ${counts.doubleOrders}, double captures ${counts.doubleCaptures}, ` +
      `approvals left behind ${counts.approvalsLeftBehind}, 5xx from Medusa ${counts.upstream5xx - reported5xx} ` +
      `(run total ${counts.upstream5xx}; the other counts are totals over the run)`,
    `  of those 5xx: ${counts.upstream5xx - reported5xx - (counts.callback5xx - reportedCallback5xx)} to shoppers, ` +
      `${counts.callback5xx - reportedCallback5xx} to the service's callbacks (the plugin's "deliver again")`,
    `  also: orders without a capture ${counts.ordersWithoutCapture}, callback copies never delivered ${counts.undeliveredCallbacks}`,
    ...counts.leftBehindDetails.map((detail) => `  left behind: ${detail}`),
    ...counts.withoutCaptureDetails.map((detail) => `  ${detail}`),
    `  sessions whose callbacks and return reached both instances: ${spread(cluster, run)} of ${sides.card.n + sides.authorize.n}`,
    ...extra.map((line) => `  ${line}`),
    ...splitLines(measureSplit(cluster, run.results)).map((line) => `  ${line}`),
  ]
  const errors = [
    ...new Set(run.results.filter((r) => !r.ok).map((r) => r.error)),
  ].slice(0, 5)
  for (const error of errors) lines.push(`  failure: ${error}`)
  lines.push(loadLine())
  reported5xx = counts.upstream5xx
  reportedCallback5xx = counts.callback5xx
  // Which requests Medusa answered with 5xx since the last report (the
  // instances' logs, in the directory printed at start, say why).
  for (const answer of cluster.counters.upstream5xxPaths.splice(0)) {
    lines.push(`  5xx: ${answer}`)
  }
  process.stdout.write(lines.join("\n") + "\n")
}

/**
 * report, then what became of each approval the audit found left behind
 * (followLeftBehind) and of each order it found without a capture
 * (followWithoutCapture): a delay the sweep ends is told apart from a loss.
 */
async function reportAndFollow(
  cluster: Cluster,
  title: string,
  run: RunResult,
  counts: Audit,
  all: CheckoutResult[],
  extra: string[] = []
) {
  report(cluster, title, run, counts, extra)
  const lines = [
    ...(await followLeftBehind(cluster, all, counts.leftBehindIds)),
    ...(await followWithoutCapture(cluster, counts.withoutCaptureIds)),
  ]
  if (lines.length) process.stdout.write(lines.map((line) => `  ${line}`).join("\n") + "\n")
}

/**
 * The sides a run drives: the card service authorizing only and the system
 * provider (the goals, like for like), and with --capture-side the card
 * service capturing automatically.
 */
function sidesOf(options: Options): Provider[] {
  return options.captureSide ? ["card", "authorize", "system"] : ["authorize", "system"]
}

/** Checkouts per side at a concurrency: the alternations' rounds. */
const checkoutsAt = (options: Options, concurrency: number) =>
  options.alternations * concurrency * perShopperAt(options, concurrency)

async function faultRun(
  cluster: Cluster,
  all: CheckoutResult[],
  options: Options,
  title: string,
  inject: () => Promise<string[]>
) {
  const before = { ...cluster.counters }
  let notes: string[] = []
  // The fault comes 1 s into the first round's payments (the carts are
  // built before the clock starts), so it meets payments in flight.
  let paymentsStarted: () => void = () => {}
  const firstPayments = new Promise<void>((resolve) => (paymentsStarted = resolve))
  const running = runShoppers(cluster, {
    concurrency: 10,
    checkouts: options.faultCheckouts,
    timeCapMs: options.timeCapMs,
    onPayments: () => paymentsStarted(),
  })
  await firstPayments
  await new Promise((resolve) => setTimeout(resolve, 1000))
  notes = await inject()
  const run = await running
  all.push(...run.results)
  const counts = await audit(cluster, all, 20_000)
  const retries = run.results.reduce((sum, r) => sum + r.retries, 0)
  await reportAndFollow(cluster, `fault: ${title}`, run, counts, all, [
    ...notes,
    `cost: ${cluster.counters.proxy502 - before.proxy502} requests lost in flight (502 from the proxy), ` +
      `${cluster.counters.rerouted - before.rerouted} refused and re-routed, ${retries} store calls repeated by shoppers`,
  ])
}

async function main() {
  const options = parseOptions(process.argv.slice(2))
  const started = Date.now()
  const total = options.levels.reduce((sum, n) => sum + checkoutsAt(options, n), 0)
  const cluster = await startCluster({
    log,
    stock: sidesOf(options).length * total + 3 * 2 * options.faultCheckouts + 100,
    // A variant per concurrent shopper (see demo-seed.ts, seedLoadProduct).
    variants: Math.max(...options.levels),
    cpuProfile: options.cpuProfile,
    autoCapture: options.autoCapture,
    statements: options.statements,
    authorizeSide: true,
    settleStart: options.settleStart,
  })
  const stop = async () => {
    log("stopping")
    await cluster.stop()
  }
  process.once("SIGINT", () => stop().then(() => process.exit(130)))
  try {
    log(
      `ready in ${((Date.now() - started) / 1000).toFixed(0)} s; logs in ${cluster.logDir}; ` +
        `load average ${os.loadavg().map((v) => v.toFixed(1)).join(" ")}`
    )
    loadSamples = []
    setInterval(sampleLoad, 10_000).unref()
    // Warm-up: the first checkouts compile routes and fill caches on both instances.
    const warm = await runShoppers(cluster, {
      concurrency: 4,
      checkouts: 8,
      timeCapMs: 120_000,
      providers: sidesOf(options),
    })
    const all: CheckoutResult[] = [...warm.results]
    for (const concurrency of options.levels) {
      const perShopper = perShopperAt(options, concurrency)
      log(
        `${options.alternations} alternations of rounds of ${concurrency * perShopper} checkouts ` +
          `(${concurrency} shoppers, ${perShopper} each) at concurrency ${concurrency}`
      )
      const run = await runShoppers(cluster, {
        concurrency,
        checkouts: checkoutsAt(options, concurrency),
        timeCapMs: options.timeCapMs,
        perShopper,
        providers: sidesOf(options),
      })
      all.push(...run.results)
      await reportAndFollow(cluster, "load", run, await audit(cluster, all), all)
    }
    if (options.faults) {
      await faultRun(
        cluster,
        all,
        options,
        "sandbox 503 bursts and slow answers on retrieve and capture",
        async () => {
          for (let i = 0; i < 3; i++) {
            cluster.sandbox.injectFault({
              type: "status",
              status: 503,
              count: 4,
              path: "/payment/retrieve",
            })
            cluster.sandbox.injectFault({
              type: "status",
              status: 503,
              count: 4,
              path: "/capture",
            })
            cluster.sandbox.injectFault({
              type: "delay",
              ms: 2000,
              count: 5,
              path: "/payment/retrieve",
            })
            cluster.sandbox.injectFault({
              type: "delay",
              ms: 2000,
              count: 5,
              path: "/capture",
            })
            await new Promise((resolve) => setTimeout(resolve, 2000))
          }
          return [
            "injected: 3 bursts of 4x 503 and 5x 2 s delays on retrieve and on capture, 2 s apart",
          ]
        }
      )
      cluster.sandbox.clearFaults()
      await faultRun(
        cluster,
        all,
        options,
        "SIGKILL of one instance mid-run",
        async () => {
          cluster.killInstance(1)
          return [
            `killed ${cluster.instances[1].name} with SIGKILL 1 s into the first round's payments; the survivor served the rest`,
          ]
        }
      )
      log("restarting the killed instance")
      const restartStarted = Date.now()
      await cluster.startInstance(1)
      log(
        `instance back in ${((Date.now() - restartStarted) / 1000).toFixed(0)} s`
      )
      await faultRun(
        cluster,
        all,
        options,
        "restart of the Redis server",
        async () => {
          const t = Date.now()
          await cluster.restartRedis()
          return [
            `Redis stopped (SIGTERM) and started again on its port in ${Date.now() - t} ms, 1 s into the first round's payments`,
          ]
        }
      )
    }
    log(`done in ${((Date.now() - started) / 1000).toFixed(0)} s; load average ${os.loadavg().map((v) => v.toFixed(1)).join(" ")}`)
  } finally {
    await stop()
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
