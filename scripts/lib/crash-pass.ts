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
