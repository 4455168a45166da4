/**
 * `npm run bench:crash-points`: every crash point of every money operation,
 * each hit on purpose (issue 42). A cluster of three Medusa instances on one
 * PostgreSQL and one Redis behind the round-robin proxy, and the sandbox.
 * Each operation (crash-operations.ts) is run once with nothing in its way,
 * noting every request an instance made to the service, every transaction it
 * wrote and every answer it gave (crash-points.ts): those are its points.
 * Then each point, run after run: the operation starts, the instance stops
 * exactly there (crash-traps.ts: the sandbox holds the service's answer
 * after acting, a trigger holds the write, the proxy holds the answer), and
 * is SIGKILLed there, or has its database connections or its Redis
 * connections dropped instead and goes on. The
 * killed instance comes back after a drawn pause; the browser comes back or
 * does not, the owner presses the button again or does not, at drawn times;
 * the sweep runs every few seconds. The run ends settled by itself (the
 * operation ended and the soak's invariants hold), in Needs attention with
 * an instruction, or as a breach.
 *
 *   npm run bench:crash-points -- [--runs N] [--lanes N] [--operations a,b] [--kinds service,db,answer] [--cuts kill,db-drop,redis-drop]
 *                                 [--points TEXT] [--sample N] [--seed N] [--deadline S] [--discover-only]
 *                                 [--pass DIR] [--minutes M]
 *
 * --runs: runs of each point (default 20). --lanes: clusters side by side,
 * each running every N-th point (default 1). --operations, --kinds, --cuts:
 * only these. --points: only points whose id contains TEXT. --sample: N of
 * the points, drawn by the seed (CI's short run: another draw each run).
 * --seed: the timings' and the sample's seed (default from the clock;
 * printed). --deadline: seconds a run
 * may take to settle after its crash (default 180). --discover-only: print
 * the points and stop. --pass: keep the pass in DIR, every run written as it
 * is judged, and take up one already there (crash-pass.ts): a pass longer
 * than a sitting, on one commit. --minutes: start no run after M minutes
 * (the pass goes on at the next sitting). docs/benchmarks.md, "Crash
 * points", has a full table.
 */
import { execFileSync, spawn } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { parseArgs } from "node:util"
import { positiveNumber, positiveWhole } from "./lib/cli-numbers"
import {
  involvesBrowser,
  involvesOwner,
  OPERATIONS,
  operations,
  type OperationContext,
  type OperationName,
  type Subject,
  type Timing,
} from "./lib/crash-operations"
import {
  appendRun,
  closeSitting,
  doneKeys,
  openPass,
  passPoints,
  passRuns,
  dealPoints,
  startedAgainWhileFailing,
  writePoints,
  type PassFile,
  type PassSettings,
  type TimedRun,
} from "./lib/crash-pass"
import { CUTS, fnv1a, POINT_KINDS, pointsOf, requestPattern, samplePoints, type Cut, type Discovery, type Point, type PointKind } from "./lib/crash-points"
import { DbTraps, dropRedisConnections, instanceOfPort, locksInRedis } from "./lib/crash-traps"
import { startCluster, type Cluster, type ProxiedAnswer } from "./lib/load-cluster"
import { percentile } from "./lib/load-goals"
import { storeClient } from "./lib/load-shoppers"
import { storeOwner } from "./lib/soak-admin"
import { deliveredTransactions, serviceRecords, storeFacts } from "./lib/soak-facts"
import { seededRandom } from "./lib/soak-faults"
import { checkInvariants, type AttemptFacts, type Breach } from "./lib/soak-invariants"

type Options = {
  runs: number
  operations: OperationName[]
  kinds: PointKind[]
  cuts: Cut[]
  points: string | null
  /** Only this many of the points, drawn by the seed; null: all. */
  sample: number | null
  seed: number
  deadlineMs: number
  discoverOnly: boolean
  /** Clusters side by side, each running its share of the points (shareOfLane; the runs mostly wait on timers: leases, Medusa's cart lock). */
  lanes: number
  /** Set in a lane's own process: which lane it is (0-based), and where it writes its runs. */
  lane: number | null
  out: string | null
  /** The pass's folder (--pass), or null: the table of this sitting only. */
  pass: string | null
  /** Start no run after this many minutes; null: no limit. */
  minutes: number | null
  /** Set by the parent in a lane's own process: when the sitting's --minutes are up (epoch ms), the same for a lane started again. */
  endsAt: number | null
  /** Set by the parent in a lane's own process with --pass: the runs the pass held when the sitting started (the lanes deal its points by them). */
  runsBefore: number | null
}

function listOf<T extends string>(name: string, text: string | undefined, known: readonly T[]): T[] {
  if (!text) return [...known]
  const asked = text.split(",")
  const unknown = asked.filter((a) => !(known as readonly string[]).includes(a))
  if (unknown.length) throw new Error(`--${name}: unknown ${unknown.join(", ")}; known: ${known.join(", ")}`)
  return asked as T[]
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      runs: { type: "string" },
      operations: { type: "string" },
      kinds: { type: "string" },
      cuts: { type: "string" },
      points: { type: "string" },
      sample: { type: "string" },
      seed: { type: "string" },
      deadline: { type: "string" },
      "discover-only": { type: "boolean" },
      lanes: { type: "string" },
      lane: { type: "string" },
      out: { type: "string" },
      pass: { type: "string" },
      minutes: { type: "string" },
      "ends-at": { type: "string" },
      "runs-before": { type: "string" },
    },
  })
  return {
    runs: values.runs ? positiveWhole("runs", values.runs) : 20,
    operations: listOf("operations", values.operations, OPERATIONS),
    kinds: listOf("kinds", values.kinds, POINT_KINDS),
    cuts: listOf("cuts", values.cuts, CUTS),
    points: values.points ?? null,
    sample: values.sample ? positiveWhole("sample", values.sample) : null,
    seed: values.seed ? positiveWhole("seed", values.seed) : Date.now() % 1_000_000,
    deadlineMs: values.deadline ? positiveNumber("deadline", values.deadline) * 1000 : 180_000,
    discoverOnly: !!values["discover-only"],
    lanes: values.lanes ? positiveWhole("lanes", values.lanes) : 1,
    lane: values.lane === undefined ? null : Number(values.lane),
    out: values.out ?? null,
    pass: values.pass ? path.resolve(values.pass) : null,
    minutes: values.minutes ? positiveNumber("minutes", values.minutes) : null,
    endsAt: values["ends-at"] ? positiveWhole("ends-at", values["ends-at"]) : null,
    runsBefore: values["runs-before"] === undefined ? null : Number(values["runs-before"]),
  }
}

const passSettings = (o: Options): PassSettings => ({
  runs: o.runs,
  seed: o.seed,
  operations: o.operations,
  kinds: o.kinds,
  cuts: o.cuts,
  points: o.points,
  sample: o.sample,
  deadlineMs: o.deadlineMs,
})

/** The pass's settings are the pass's: a later sitting asks for none. */
function applyPassSettings(options: Options, settings: PassSettings) {
  Object.assign(options, settings, {
    operations: settings.operations as OperationName[],
    kinds: settings.kinds as PointKind[],
    cuts: settings.cuts as Cut[],
  })
}

const git = (...args: string[]) => execFileSync("git", args, { cwd: path.join(__dirname, ".."), encoding: "utf8" }).trim()
/** What a pass pins: the product, and what it is installed with. */
const PRODUCT = ["src", "package.json", "package-lock.json"]

/**
 * The commit whose code this is. A pass runs committed code: with changes in
 * src/, scripts/ or the lockfile not committed there is no commit to name.
 */
function codeCommit(): string {
  const changed = git("status", "--porcelain", "--", ...PRODUCT, "scripts")
  if (changed) throw new Error(`--pass runs committed code; not committed:\n${changed}`)
  return git("rev-parse", "HEAD")
}

/** The product's files changed since `commit` ("" when none). */
const productChangedSince = (commit: string) => git("diff", "--stat", commit, "HEAD", "--", ...PRODUCT)

/**
 * A lane's share of the points. Lanes discover apart, and a racing copy's
 * writes make one lane find a point another does not, so a share by place in
 * a lane's own list left points to no lane and gave others to two. Every
 * lane writes what it found beside the others' (the pass's folder, or the
 * sitting's) and waits for them; the points are all of them (and every
 * earlier sitting's), the sample is drawn from those, and every lane deals
 * them the same (dealPoints: by the runs each has left and how long its runs
 * took, from the runs the pass held when the sitting started).
 */
async function shareOfLane(options: Options, found: Point[]): Promise<Point[]> {
  const dir = options.pass ?? path.dirname(options.out!)
  const sitting = pass ? pass.sittings.length : 1
  writePoints(dir, `s${sitting}-lane${options.lane}`, found)
  const mine = (name: string) => name.startsWith(`points-s${sitting}-lane`)
  for (const until = Date.now() + 10 * 60_000; fs.readdirSync(dir).filter(mine).length < options.lanes; await sleep(1_000)) {
    if (Date.now() > until) {
      log(`not every lane wrote its points in 10 minutes: sharing those written`)
      break
    }
  }
  const all = samplePoints(passPoints<Point>(dir), options.sample, options.seed)
  const earlier = options.pass ? passRuns<TimedRun>(options.pass).slice(0, options.runsBefore ?? 0) : []
  return dealPoints(all, options.lanes, options.runs, earlier, fnv1a)[options.lane!]
}

/** A run as the pass keeps it: its subject's ids are this sitting's store's, of no use in another. */
function withoutSubject({ subject: _subject, ...run }: RunResult): Omit<RunResult, "subject"> {
  return run
}

/** The pass (--pass) of this sitting: opened by the parent, read by its lanes. */
let pass: PassFile | null = null

const log = (line: string) => process.stderr.write(`[bench:crash-points ${new Date().toISOString().slice(11, 19)}] ${line}\n`)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The sweep's grace for an attempt nobody reported: short, so a run sees its "outcome unknown". */
const GRACE_MS = 20_000
/** Seconds between the harness's sweeps after a crash (the store's schedule is every minute). */
const SWEEP_EVERY_MS = 5_000
/** Restarts of killed instances under way (a run waits for two instances up, not for every restart). */
const restarts = new Set<Promise<void>>()

/** How long an operation may take to reach its point before the run counts it "not reached". */
const REACH_MS = 90_000

type Outcome = "settled" | "attention" | "breach" | "not reached"

type RunResult = {
  point: string
  run: number
  timing: Timing
  outcome: Outcome
  /** Crash to settled, ms. */
  settleMs?: number
  /** What it ended as (the operation's end), or why it is in the middle row or a breach. */
  detail: string
  /** Locks held in Redis when the instance stopped (the settle lock, the delivery claim, Medusa's cart lock...). */
  locks: string[]
  answers: string[]
  subject: Partial<Subject>
  /** The checkout before the trap made no order by itself and the sweep finished it: what the store held (crash-operations.ts, checkedOut). */
  checkoutStall?: string
  /** Where the run's time went, ms: waiting for two instances up, prepare, act until the point, crash to judged, the tail (the world's and the act's ends). */
  phases?: { instances: number; prepare: number; reach: number; judge: number; tail: number }
}

async function main() {
  const options = parseOptions(process.argv.slice(2))
  if (options.pass) {
    if (options.lane === null) {
      const opened = openPass(options.pass, codeCommit(), passSettings(options), options.lanes, productChangedSince)
      pass = opened.pass
      log(
        opened.resumed
          ? `taking up the pass in ${options.pass} (commit ${pass.commit.slice(0, 7)}, sitting ${pass.sittings.length}; its settings, not this command's)`
          : `a new pass in ${options.pass} (commit ${pass.commit.slice(0, 7)})`
      )
    } else {
      pass = JSON.parse(fs.readFileSync(path.join(options.pass, "pass.json"), "utf8")) as PassFile
    }
    applyPassSettings(options, pass.settings)
  }
  if (options.lanes > 1 && options.lane === null) return await runLanes(options, process.argv.slice(2))
  // Lanes boot a few seconds apart: many Medusa boots at once on two cores time out on their database pool.
  if (options.lane) await sleep(options.lane * 8_000)
  const booted = Date.now()
  const until = options.endsAt ?? (options.minutes === null ? Infinity : booted + options.minutes * 60_000)
  const cluster = await startCluster({
    log,
    instanceCount: 3,
    stock: 100_000,
    authorizeSide: true,
    persistentRedis: true,
    instanceEnv: {
      // The harness sweeps itself, every few seconds after a crash; the
      // schedule stays on (it decides whether a callback copy may be answered
      // before it is settled) but never comes round during a run.
      CARD_SERVICE_RECONCILE_SCHEDULE: "0 0 1 1 *",
      CARD_SERVICE_RECONCILE_GRACE_MS: String(GRACE_MS),
      LOG_LEVEL: process.env.LOAD_LOG_LEVEL ?? "warn",
    },
  })
  const traps = await DbTraps.install(cluster)
  const ctx: OperationContext = { cluster, shop: storeClient(cluster), owner: storeOwner(cluster) }
  const results: RunResult[] = []
  const attempts = new Map<string, AttemptFacts>()
  let stopping = false
  process.once("SIGINT", () => {
    stopping = true
    log("Ctrl-C: stopping after this run")
  })
  try {
    log(`ready in ${((Date.now() - booted) / 1000).toFixed(0)} s; logs in ${cluster.logDir}; seed ${options.seed}`)
    const found: Point[] = []
    for (const name of options.operations) {
      const discovery = await discover(ctx, traps, name, attempts)
      const ofOperation = pointsOf(discovery, options.cuts, options.kinds).filter((p) => !options.points || p.id.includes(options.points))
      log(`${name}: ${ofOperation.length} points (${discovery.serviceRequests.length} service requests, ${new Set(discovery.writes.map((w) => w.xid)).size} transactions, ${discovery.answers.length} answers)`)
      found.push(...ofOperation)
    }
    const points = options.lane === null ? samplePoints(found, options.sample, options.seed) : await shareOfLane(options, found)
    if (!options.out) for (const point of points) process.stdout.write(`point ${point.id}: ${point.where}\n`)
    const done = doneKeys(options.pass ? passRuns(options.pass) : [])
    if (done.size) log(`${done.size} runs of the pass made in earlier sittings`)
    if (options.discoverOnly) {
      if (options.out) fs.writeFileSync(options.out, JSON.stringify({ points, results: [] }))
      return
    }
    const started = Date.now()
    for (let run = 1; run <= options.runs && !stopping; run++) {
      for (const point of points) {
        if (Date.now() > until && !stopping) {
          stopping = true
          log(`--minutes ${options.minutes} are up: no more runs in this sitting`)
        }
        if (stopping) break
        if (done.has(`${point.id}#${run}`)) continue
        // Drawn from the seed, the point and the run's number: the same whichever lane or sitting makes it.
        const timing = drawTiming(seededRandom(fnv1a(`${options.seed}:${point.id}:${run}`)), point.operation)
        const result = await runPoint(ctx, traps, point, run, timing, options.deadlineMs, attempts).catch(
          (error: Error): RunResult => ({
            point: point.id,
            run,
            timing,
            outcome: "breach",
            detail: `the harness failed: ${error.message}`,
            locks: [],
            answers: [],
            subject: {},
          })
        )
        if (stopping && options.pass && result.outcome !== "settled") {
          // Ctrl-C reaches the whole process group: the lane's PostgreSQL stops under the run.
          // What that run came to is the stop's, not the point's: the next sitting makes it again.
          log(`${point.id} run ${run}: stopped under it (${result.outcome}: ${result.detail.slice(0, 120)}); made again at the next sitting`)
          break
        }
        results.push(result)
        if (options.pass) appendRun(options.pass, withoutSubject(result))
        log(
          `${point.id} run ${run}: ${result.outcome}${result.settleMs !== undefined ? ` in ${(result.settleMs / 1000).toFixed(1)} s` : ""}: ${result.detail}` +
            (result.outcome !== "settled" ? ` [${result.answers.join(", ")}]` : "") +
            (result.phases ? ` (${Object.entries(result.phases).map(([k, ms]) => `${k} ${(ms / 1000).toFixed(1)}`).join(", ")} s)` : "")
        )
      }
    }
    if (options.out) fs.writeFileSync(options.out, JSON.stringify({ points, results }))
    else if (report(options, points, results, started)) process.exitCode = 1
    if (options.pass && options.lane === null) closeSitting(options.pass, results.length)
  } finally {
    await Promise.all(restarts)
    await traps.close()
    await cluster.stop()
  }
}

/**
 * `--lanes N`: N clusters at once, each in a process of its own running its
 * share of the points (shareOfLane), their runs merged into one table. A
 * run spends most of its time waiting (a killed instance's lease, Medusa's
 * two-minute cart lock, the sweep's period), not computing.
 */
async function runLanes(options: Options, argv: string[]) {
  const started = Date.now()
  const runsBefore = options.pass ? passRuns(options.pass).length : 0
  // One end for every lane, a lane started again included: the command's --minutes, from now.
  const endsAt = options.minutes === null ? null : started + options.minutes * 60_000
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "crash-lanes-"))
  let interrupted = false
  const lanes = Array.from({ length: options.lanes }, (_, lane) => {
    const out = path.join(dir, `lane-${lane}.json`)
    const args = [require.resolve("ts-node/dist/bin"), "--swc", __filename, ...argv, "--lane", String(lane), "--out", out, "--seed", String(options.seed)]
    if (endsAt !== null) args.push("--ends-at", String(endsAt))
    if (options.pass) args.push("--runs-before", String(runsBefore))
    return { out, exited: laneUntilDone(lane, args, () => !interrupted && (endsAt === null || Date.now() < endsAt - LANE_RESTART_MARGIN_MS)) }
  })
  process.once("SIGINT", () => {
    interrupted = true
    log("Ctrl-C: each lane stops after its run")
  })
  const codes = await Promise.all(lanes.map((l) => l.exited))
  const points: Point[] = []
  const results: RunResult[] = []
  for (const lane of lanes) {
    if (!fs.existsSync(lane.out)) continue
    const written = JSON.parse(fs.readFileSync(lane.out, "utf8")) as { points: Point[]; results: RunResult[] }
    for (const point of written.points) if (!points.some((p) => p.id === point.id)) points.push(point)
    results.push(...written.results)
  }
  if (options.discoverOnly) {
    for (const point of points) process.stdout.write(`point ${point.id}: ${point.where}\n`)
  }
  // The sitting's runs are those the pass gained: a lane's runs before it died, or a lane stopped by
  // Ctrl-C before it wrote its out file, are in it and not in its out file.
  const sittingRuns = options.pass ? passRuns(options.pass).length - runsBefore : results.length
  const breached = !options.discoverOnly && report(options, points, results, started, sittingRuns)
  if (options.pass) closeSitting(options.pass, sittingRuns)
  const failed = codes.filter((code) => code !== 0).length
  if (failed) log(`${failed} lane(s) ended with an error: their points are missing from the table`)
  if (failed || breached) process.exitCode = 1
}

/** Lane starts a sitting makes at most: a lane that died (a boot timed out, a store call failed) is started again. */
const LANE_TRIES = 3
/** No lane is started again this close to the sitting's end: its cluster's boot alone takes minutes. */
const LANE_RESTART_MARGIN_MS = 10 * 60_000

/**
 * A lane's process, started again while it dies and `mayRestart()` says so
 * (startedAgainWhileFailing). The lanes of a sitting wait for each other's
 * points (shareOfLane), so a lane that died before writing its own held the
 * others ten minutes and its share was left for the next sitting (seen once: a
 * store call refused during discovery). Started again, it finds its points,
 * takes up its share, and in a pass leaves out the runs its first life made.
 */
function laneUntilDone(lane: number, args: string[], mayRestart: () => boolean): Promise<number | null> {
  return startedAgainWhileFailing(
    () => {
      const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"], env: process.env })
      child.stderr.on("data", (chunk: Buffer) => {
        for (const line of chunk.toString().split("\n").filter(Boolean)) process.stderr.write(`[lane ${lane}] ${line}\n`)
      })
      return new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
    },
    { tries: LANE_TRIES, mayRestart, onRestart: (code, tries) => log(`lane ${lane} ended with code ${code} (try ${tries} of ${LANE_TRIES}): starting it again`) }
  )
}

/** One run's timing, from the seed: the browser's return, the owner's second press, the pause before a killed instance restarts. */
function drawTiming(random: () => number, operation: OperationName): Timing {
  const pickFrom = <T>(items: T[]) => items[Math.floor(random() * items.length)]
  return {
    returnAfterMs: involvesBrowser(operation) ? pickFrom([0, 500, 2_000, 8_000, null]) : null,
    ownerRetryAfterMs: involvesOwner(operation) ? pickFrom([1_000, 5_000, 15_000, null]) : null,
    downMs: Math.round(random() * 5_000),
  }
}

/**
 * The operation once, nothing in its way: the service requests, the writes
 * and the proxied answers it made until it was done.
 */
async function discover(ctx: OperationContext, traps: DbTraps, name: OperationName, attempts: Map<string, AttemptFacts>): Promise<Discovery> {
  const operation = operations[name]
  const { cluster } = ctx
  const subject = await operation.prepare(ctx)
  if (name === "reverse") canceledOnPurpose.add(subject.cartId)
  const answers: Discovery["answers"] = []
  cluster.proxyHooks.beforeAnswer = (answer) => {
    answers.push({ method: answer.method, url: answer.url, status: answer.status })
    return "forward"
  }
  const requestsBefore = cluster.sandbox.requests().length
  const since = await traps.record()
  try {
    await operation.act(ctx, subject)
    let end: string | null = null
    // An order edit is judged a minute and more after it (the sweep's grace): up to 150 s.
    for (const until = Date.now() + 150_000; !end && Date.now() < until; await sleep(500)) end = await operation.done(ctx, subject)
    if (!end) throw new Error(`${name} did not end without a crash: ${subject.answers.join(", ")}`)
    // What follows the end closely (a late callback copy, the return) belongs to it.
    await sleep(2_000)
  } finally {
    cluster.proxyHooks.beforeAnswer = undefined
  }
  noteAttempt(attempts, subject, true)
  const { writes } = await traps.recorded(since)
  const serviceRequests = cluster.sandbox
    .requests()
    .slice(requestsBefore)
    .map((r) => ({ method: r.method, path: r.path }))
  return { operation: name, serviceRequests, writes, answers }
}

function noteAttempt(attempts: Map<string, AttemptFacts>, subject: Subject, returned: boolean) {
  // What the return told the shopper is read when the run is judged: the browser may come back after the crash.
  if (subject.reference)
    attempts.set(subject.reference, {
      cartId: subject.cartId,
      returned,
      get told() {
        return subject.told
      },
    })
}

type Sprung = { instance: number | null; cut: (how: Cut) => Promise<void>; locks: string[] }

/** Arms the point's trap; `sprung` resolves when the instance stands at it. */
function armPoint(ctx: OperationContext, traps: DbTraps, point: Point): { sprung: Promise<Sprung>; disarm: () => Promise<void> } {
  const { cluster } = ctx
  if (point.service) {
    const { path: endpoint, method, nth } = point.service
    let disarmed = false
    const sprung = new Promise<Sprung>((resolve) => {
      cluster.sandbox.holdAnswer({
        path: endpoint,
        skip: nth - 1,
        match: () => !disarmed,
        onHold: (held) => {
          if (held.method !== method) return held.release()
          const instance = instanceOfPort(cluster, held.remotePort)
          resolve({
            instance,
            locks: [],
            cut: async (how) => {
              if (how === "kill") {
                if (instance !== null) cluster.killInstance(instance)
                held.drop()
                return
              }
              if (instance !== null) await cutConnections(cluster, traps, instance, how)
              held.release()
            },
          })
        },
      })
    })
    return {
      sprung,
      disarm: async () => {
        disarmed = true
        cluster.sandbox.clearFaults()
      },
    }
  }
  if (point.write) {
    const write = point.write
    let armed = true
    const sprung = (async (): Promise<Sprung> => {
      await traps.arm(write)
      for (;;) {
        const at = await traps.sprung()
        if (at) {
          const instance = instanceOfPort(cluster, at.clientPort)
          return {
            instance,
            locks: [],
            cut: async (how) => {
              if (how === "redis-drop") {
                // The transaction goes on and commits; the instance's Redis work around it is cut.
                if (instance !== null) await cutConnections(cluster, traps, instance, how)
                await traps.release()
                return
              }
              if (how === "kill" && instance !== null) cluster.killInstance(instance)
              await traps.terminate(at.pid)
              await traps.release()
            },
          }
        }
        if (!armed) return new Promise<Sprung>(() => undefined)
        await sleep(20)
      }
    })()
    return {
      sprung,
      disarm: async () => {
        armed = false
        await traps.release()
      },
    }
  }
  const { method, pattern, nth } = point.answer!
  let seen = 0
  let resolveSprung: (sprung: Sprung) => void = () => undefined
  const sprung = new Promise<Sprung>((resolve) => (resolveSprung = resolve))
  cluster.proxyHooks.beforeAnswer = (answer: ProxiedAnswer) => {
    if (answer.method !== method || requestPattern(answer.url) !== pattern || ++seen !== nth) return "forward"
    cluster.proxyHooks.beforeAnswer = undefined
    const index = cluster.instances.indexOf(answer.instance)
    return new Promise<"drop">((answered) =>
      resolveSprung({
        instance: index,
        locks: [],
        cut: async () => {
          cluster.killInstance(index)
          answered("drop")
        },
      })
    )
  }
  return {
    sprung,
    disarm: async () => {
      cluster.proxyHooks.beforeAnswer = undefined
    },
  }
}

/** Drops the instance's database connections ("db-drop") or its Redis connections ("redis-drop"); it goes on. */
async function cutConnections(cluster: Cluster, traps: DbTraps, instance: number, how: Exclude<Cut, "kill">) {
  const pid = cluster.instances[instance].child.pid!
  if (how === "db-drop") {
    if ((await traps.terminateInstance([pid])) === 0) log(`no database connection of ${cluster.instances[instance].name} to drop`)
  } else if ((await dropRedisConnections(cluster.redis.url, pid)) === 0) log(`no Redis connection of ${cluster.instances[instance].name} to drop`)
}

/** The locks in Redis now, named: what the stopped instance held (crash-traps.ts, locksInRedis). */
async function heldLocks(cluster: Cluster): Promise<string[]> {
  try {
    return [...new Set((await locksInRedis(cluster)).map((lock) => lock.name))].sort()
  } catch (error) {
    log(`could not read the locks: ${(error as Error).message}`)
    return []
  }
}

async function runPoint(
  ctx: OperationContext,
  traps: DbTraps,
  point: Point,
  run: number,
  timing: Timing,
  deadlineMs: number,
  attempts: Map<string, AttemptFacts>
): Promise<RunResult> {
  const { cluster } = ctx
  const operation = operations[point.operation]
  const began = Date.now()
  // Two instances up at least: a run may kill one while another restarts.
  while (cluster.instances.filter((i) => i.up).length < 2) await sleep(200)
  const up = Date.now()
  const subject = await operation.prepare(ctx)
  if (point.operation === "reverse") canceledOnPurpose.add(subject.cartId)
  const prepared = Date.now()
  const result: RunResult = { point: point.id, run, timing, outcome: "not reached", detail: "", locks: [], answers: subject.answers, subject }
  if (subject.checkoutStall) {
    result.checkoutStall = subject.checkoutStall
    log(`${point.id} run ${run}: the checkout before the trap stalled: ${subject.checkoutStall}`)
  }
  const trap = armPoint(ctx, traps, point)
  const acting = operation.act(ctx, subject).catch((error: Error) => {
    subject.answers.push(`act failed: ${error.message.slice(0, 120)}`)
  })
  const reached = await Promise.race([
    trap.sprung,
    sleep(REACH_MS).then(() => null),
  ])
  if (!reached) {
    await trap.disarm()
    await acting
    noteAttempt(attempts, subject, true)
    result.detail = "the operation never came to this point"
    await waitForEnd(ctx, subject, point.operation, 60_000)
    return result
  }
  result.locks = await heldLocks(cluster)
  const crashedAt = Date.now()
  let judged = 0
  await reached.cut(point.cut)
  await trap.disarm()
  if (point.cut === "kill" && reached.instance !== null) {
    const index = reached.instance
    const restart = sleep(timing.downMs)
      .then(() => cluster.startInstance(index))
      .catch((error: Error) => {
        log(`${cluster.instances[index].name} did not restart: ${error.message}`)
      })
    restarts.add(restart)
    void restart.finally(() => restarts.delete(restart))
  }
  noteAttempt(attempts, subject, timing.returnAfterMs !== null || !involvesBrowser(point.operation))
  // What the world does after the crash is over before the run is judged.
  let recovered = false
  const recovering = operation
    .recover(ctx, subject, timing)
    .catch((error: Error) => {
      subject.answers.push(`recover failed: ${error.message}`)
    })
    .finally(() => (recovered = true))
  let sweeping = true
  const sweeper = sweepEvery(ctx, () => sweeping)
  try {
    for (const until = crashedAt + deadlineMs; Date.now() < until; await sleep(500)) {
      if (!recovered) continue
      const end = await operation.done(ctx, subject).catch(() => null)
      if (!end) continue
      const breaches = await breachesOf(ctx, subject, attempts)
      if (breaches.length) continue
      const attention = await attentionOf(ctx, subject)
      result.outcome = attention.length ? "attention" : "settled"
      result.settleMs = Date.now() - crashedAt
      result.detail = attention.length ? `${end}; yet Needs attention says: ${attention.join(" | ")}` : end
      return result
    }
    const breaches = await breachesOf(ctx, subject, attempts)
    const attention = await attentionOf(ctx, subject)
    const end = await operation.done(ctx, subject).catch(() => null)
    if (attention.length) {
      result.outcome = "attention"
      result.detail = attention.join(" | ")
    } else {
      result.outcome = "breach"
      result.detail = breaches.length
        ? breaches.map((b) => `${b.invariant}: ${b.detail}`).join(" | ")
        : `not ended after ${deadlineMs / 1000} s (${end ?? "no end"}), and nothing in Needs attention`
    }
    return result
  } finally {
    judged = Date.now()
    sweeping = false
    await Promise.all([sweeper, recovering, Promise.race([acting, sleep(30_000)])])
    result.phases = { instances: up - began, prepare: prepared - up, reach: crashedAt - prepared, judge: judged - crashedAt, tail: Date.now() - judged }
  }
}

/** The sweep, as the schedule would run it, every SWEEP_EVERY_MS on an instance that is up, while `on()`. */
async function sweepEvery(ctx: OperationContext, on: () => boolean) {
  for (let next = Date.now() + SWEEP_EVERY_MS; on(); await sleep(250)) {
    if (Date.now() < next) continue
    next = Date.now() + SWEEP_EVERY_MS
    const up = ctx.cluster.instances.find((i) => i.up)
    if (up) await ctx.owner.sweep(up.url).catch(() => undefined)
  }
}

/** After a run whose point was never reached: the operation's end, so the next run starts from a quiet store. */
async function waitForEnd(ctx: OperationContext, subject: Subject, name: OperationName, ms: number) {
  for (const until = Date.now() + ms; Date.now() < until; await sleep(500)) {
    if (await operations[name].done(ctx, subject).catch(() => null)) return
  }
}

/** Carts whose order a run's operation set out to cancel (the owner's cancel): any other canceled order not on hold is a breach. */
const canceledOnPurpose = new Set<string>()

/** The soak's invariants over the whole store, the breaches about this run's payment. */
async function breachesOf(ctx: OperationContext, subject: Subject, attempts: Map<string, AttemptFacts>): Promise<Breach[]> {
  const { cluster } = ctx
  const { breaches } = checkInvariants(
    serviceRecords(cluster),
    await storeFacts(cluster, Infinity),
    attempts,
    deliveredTransactions(cluster),
    { settledBefore: Infinity, canceledOnPurpose }
  )
  return breaches.filter(
    (b) =>
      (b.transactionId && b.transactionId === subject.transactionId) ||
      (b.cartId && b.cartId === subject.cartId) ||
      (b.orderId && b.orderId === subject.orderId) ||
      (subject.paymentId && b.detail.includes(subject.paymentId))
  )
}

/** Needs attention's entries about this run's session or payment that ask the owner to act. */
async function attentionOf(ctx: OperationContext, subject: Subject): Promise<string[]> {
  const answer = await ctx.owner.call("/admin/card-service/reconciliation", undefined, "GET")
  const entries = (answer.json?.entries ?? []) as Array<{ id: string; status: string; message: string; needs_action: boolean }>
  return entries
    .filter((e) => e.needs_action && (e.id === subject.sessionId || e.id === subject.paymentId))
    .map((e) => `${e.status}: ${e.message}`)
}

/** The table: of this sitting's runs, or with --pass of every sitting's. Whether it holds a breach. */
function report(options: Options, sittingPoints: Point[], sittingResults: RunResult[], startedAt: number, sittingRuns = sittingResults.length): boolean {
  const points = options.pass ? passPoints<Point>(options.pass) : sittingPoints
  const results = options.pass ? passRuns<RunResult>(options.pass) : sittingResults
  const f = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : "-")
  const sitting = `${sittingRuns} runs in ${((Date.now() - startedAt) / 60_000).toFixed(1)} min`
  const lines = [
    "",
    pass
      ? `crash points: the pass in ${options.pass}, product of ${pass.commit.slice(0, 7)}: ${points.length} points, ${results.length} runs ` +
        `(of ${points.length * options.runs}) in ${pass.sittings.length} sitting(s), this one ${sitting}; seed ${options.seed}`
      : `crash points: ${points.length} points, ${sitting}, seed ${options.seed}`,
    "| point | locks held | runs | settled by itself | needs attention | breaches | not reached | settle p50 | settle p95 |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ]
  for (const point of points) {
    const mine = results.filter((r) => r.point === point.id)
    const count = (o: Outcome) => mine.filter((r) => r.outcome === o).length
    const times = mine.filter((r) => r.outcome === "settled").map((r) => r.settleMs!)
    const locks = [...new Set(mine.flatMap((r) => r.locks))].sort().join(", ") || "none"
    lines.push(
      `| ${point.id} | ${locks} | ${mine.length} | ${count("settled")} | ${count("attention")} | ${count("breach")} | ${count("not reached")} | ` +
        `${f(percentile(times, 0.5))} | ${f(percentile(times, 0.95))} |`
    )
  }
  const total = (o: Outcome) => results.filter((r) => r.outcome === o).length
  lines.push(
    "",
    `all: ${results.length} runs: settled by itself ${total("settled")}, needs attention ${total("attention")}, breaches ${total("breach")}, not reached ${total("not reached")}`
  )
  for (const r of results.filter((r) => r.outcome === "attention" || r.outcome === "breach")) {
    lines.push(`  ${r.outcome.toUpperCase()} ${r.point} run ${r.run} (${JSON.stringify(r.timing)}): ${r.detail} [${r.answers.join(", ")}] locks held: ${r.locks.join(", ") || "none"}`)
  }
  const stalls = results.filter((r) => r.checkoutStall)
  if (stalls.length) lines.push("", `checkouts before the trap that only the sweep finished: ${stalls.length}`)
  for (const r of stalls) lines.push(`  STALL ${r.point} run ${r.run}: ${r.checkoutStall}`)
  process.stdout.write(lines.join("\n") + "\n")
  const file = path.join(process.cwd(), ".crash-runs", `crash-points-${new Date(startedAt).toISOString().replace(/[:.]/g, "-")}.json`)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, JSON.stringify({ options, points, results }, null, 1))
  log(`every run written to ${file}`)
  return results.some((r) => r.outcome === "breach")
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
