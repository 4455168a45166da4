/**
 * A crash-point pass that outlives one sitting (issue 42): twenty runs of
 * every point take most of a day on a 2-core machine, longer than a session
 * or a CI job lasts. `--pass DIR` keeps the pass in a folder: what it is
 * (pass.json: the commit whose product code it runs, its options, its sittings), the
 * points each lane found, and every run, one JSON line each, appended the
 * moment it is judged. Run again with the same folder, on the same commit,
 * it takes up the runs not yet made; the table is printed from every sitting's
 * runs. A run is drawn from the pass's seed, its point and its number, so a
 * sitting or a lane more or less changes no run's timing.
 */
import fs from "node:fs"
import path from "node:path"

/** What fixes a pass: changing any of it is another pass. */
export type PassSettings = {
  runs: number
  seed: number
  operations: string[]
  kinds: string[]
  cuts: string[]
  points: string | null
  sample: number | null
  deadlineMs: number
}

export type Sitting = { started: string; ended?: string; lanes: number; runs?: number; commit?: string }

export type PassFile = {
  /**
   * The commit whose product runs (src/ and the lockfile): a pass is the
   * table of one product. A later sitting may run from a later commit whose
   * product is the same (the harness fixed between sittings); each sitting
   * names its own.
   */
  commit: string
  settings: PassSettings
  sittings: Sitting[]
}

const PASS = "pass.json"
const RUNS = "runs.jsonl"

export type PassRun = { point: string; run: number }

/**
 * Opens the pass in `dir`, or starts it there. An existing pass must be of
 * the same product: `productChangedSince(pass.commit)` names what of the
 * product changed since (nothing: ""). Its settings are the pass's, whatever
 * else was asked.
 */
export function openPass(
  dir: string,
  commit: string,
  asked: PassSettings,
  lanes: number,
  productChangedSince: (commit: string) => string
): { pass: PassFile; resumed: boolean } {
  fs.mkdirSync(dir, { recursive: true })
  const file = path.join(dir, PASS)
  const resumed = fs.existsSync(file)
  const pass: PassFile = resumed ? JSON.parse(fs.readFileSync(file, "utf8")) : { commit, settings: asked, sittings: [] }
  const changed = pass.commit === commit ? "" : productChangedSince(pass.commit)
  if (changed) {
    throw new Error(
      `${file} is a pass of the product of commit ${pass.commit}, and this code's product differs from it:\n${changed}\n` +
        `run it from a checkout of that commit (git worktree add <folder> ${pass.commit}), or start another pass in another folder`
    )
  }
  pass.sittings.push({ started: new Date().toISOString(), lanes, commit })
  fs.writeFileSync(file, JSON.stringify(pass, null, 1) + "\n")
  return { pass, resumed }
}

/** Closes this sitting (the last one) with the runs it made. */
export function closeSitting(dir: string, runs: number) {
  const file = path.join(dir, PASS)
  const pass: PassFile = JSON.parse(fs.readFileSync(file, "utf8"))
  const sitting = pass.sittings[pass.sittings.length - 1]
  Object.assign(sitting, { ended: new Date().toISOString(), runs })
  fs.writeFileSync(file, JSON.stringify(pass, null, 1) + "\n")
}

/**
 * Every run of the pass so far. A line cut short (the machine stopped while
 * it was written) is not a run: that run is made again.
 */
export function passRuns<T extends PassRun>(dir: string): T[] {
  const file = path.join(dir, RUNS)
  if (!fs.existsSync(file)) return []
  const runs: T[] = []
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (!line.trim()) continue
    try {
      runs.push(JSON.parse(line) as T)
    } catch {
      // The torn last line of a sitting that was stopped.
    }
  }
  return runs
}

/** Appends one judged run: one write of one line, so lanes side by side never mix theirs. */
export function appendRun(dir: string, run: PassRun) {
  fs.appendFileSync(path.join(dir, RUNS), JSON.stringify(run) + "\n")
}

/** The runs made already, as "point#run" keys. */
export const doneKeys = (runs: PassRun[]) => new Set(runs.map((r) => `${r.point}#${r.run}`))

/** The points a lane found, kept beside the runs (a later sitting's lanes may find them apart). */
export function writePoints<T extends { id: string }>(dir: string, name: string, points: T[]) {
  fs.writeFileSync(path.join(dir, `points-${name}.json`), JSON.stringify(points) + "\n")
}

/** Every point any lane of any sitting found, once each, in the order first found. */
export function passPoints<T extends { id: string }>(dir: string): T[] {
  const files = fs.readdirSync(dir).filter((f) => /^points-.*\.json$/.test(f)).sort()
  const points = new Map<string, T>()
  for (const file of files) {
    for (const point of JSON.parse(fs.readFileSync(path.join(dir, file), "utf8")) as T[]) {
      if (!points.has(point.id)) points.set(point.id, point)
    }
  }
  return [...points.values()]
}

/**
 * A process run by `start` (its exit code), started again while it ends with
 * another code than 0, at most `tries` times in all, and only while
 * `mayRestart()` says so (the sitting not interrupted, time left for a boot).
 * Its last exit code.
 */
export async function startedAgainWhileFailing(
  start: () => Promise<number | null>,
  { tries, mayRestart, onRestart }: { tries: number; mayRestart: () => boolean; onRestart?: (code: number | null, tried: number) => void }
): Promise<number | null> {
  for (let tried = 1; ; tried++) {
    const code = await start()
    if (code === 0 || tried >= tries || !mayRestart()) return code
    onRestart?.(code, tried)
  }
}

/** A run as the pass keeps it, with where its time went (ms) when it has that. */
export type TimedRun = PassRun & { phases?: Record<string, number> }

/**
 * The lanes' shares of a sitting's points, one list a lane, each in the
 * order of `points`. A point's work is the runs it has left (of `runs`, by
 * the `earlier` runs) times the mean time of its earlier runs (every earlier
 * run's mean for a point with none yet; a point with no runs left weighs
 * nothing and goes where its id hashes); the points are dealt largest work
 * first to the lane with the least so far. A share by the hash of the id
 * alone was even at a pass's start and not near its end: the points still
 * lacking runs were few, and the slow ones (about a minute a run against
 * seconds), so one lane of seven had 17 of the last 44 runs, and in another
 * sitting three lanes ran on alone for half an hour.
 *
 * Every lane deals the same from the same points and the same `earlier`:
 * the runs the pass held when the sitting started, not those its lanes made
 * since, so a lane started again deals as its first life did.
 */
export function dealPoints<T extends { id: string }>(
  points: T[],
  lanes: number,
  runs: number,
  earlier: TimedRun[],
  hash: (id: string) => number
): T[][] {
  const made = new Map<string, Set<number>>()
  // Each point's earlier runs' time, summed, and how many; "" holds every point's.
  const took = new Map<string, { ms: number; n: number }>()
  for (const r of earlier) {
    if (r.run <= runs) made.set(r.point, (made.get(r.point) ?? new Set()).add(r.run))
    if (!r.phases) continue
    const ms = Object.values(r.phases).reduce((a, b) => a + b, 0)
    for (const key of [r.point, ""]) {
      const t = took.get(key) ?? { ms: 0, n: 0 }
      took.set(key, { ms: t.ms + ms, n: t.n + 1 })
    }
  }
  const meanTime = (id: string) => {
    const t = took.get(id) ?? took.get("")
    return t ? t.ms / t.n : 1
  }
  const work = new Map(points.map((p) => [p.id, (runs - (made.get(p.id)?.size ?? 0)) * meanTime(p.id)]))
  const laneOf = new Map<string, number>()
  const load = Array.from({ length: lanes }, () => 0)
  const byWork = points.filter((p) => work.get(p.id)! > 0).sort((a, b) => work.get(b.id)! - work.get(a.id)! || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  for (const point of byWork) {
    const lane = load.indexOf(Math.min(...load))
    load[lane] += work.get(point.id)!
    laneOf.set(point.id, lane)
  }
  return load.map((_, lane) => points.filter((p) => (laneOf.has(p.id) ? laneOf.get(p.id) : hash(p.id) % lanes) === lane))
}
