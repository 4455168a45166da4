import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import {
  appendRun,
  closeSitting,
  dealPoints,
  doneKeys,
  openPass,
  passPoints,
  passRuns,
  startedAgainWhileFailing,
  writePoints,
  type PassSettings,
  type TimedRun,
} from "../../../scripts/lib/crash-pass"
import { fnv1a } from "../../../scripts/lib/crash-points"

const settings: PassSettings = {
  runs: 20,
  seed: 7,
  operations: ["capture"],
  kinds: ["service", "db", "answer"],
  cuts: ["kill"],
  points: null,
  sample: null,
  deadlineMs: 180_000,
}

const unchanged = () => ""

describe("a crash-point pass kept in a folder across sittings", () => {
  let dir: string
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "crash-pass-"))))
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

  it("takes up a pass of the same commit with the pass's settings, not the ones asked the second time", () => {
    expect(openPass(dir, "abc", settings, 5, unchanged).resumed).toBe(false)
    closeSitting(dir, 12)
    const again = openPass(dir, "abc", { ...settings, runs: 3, seed: 99 }, 8, unchanged)
    expect(again.resumed).toBe(true)
    expect(again.pass.settings).toEqual(settings)
    expect(again.pass.sittings).toEqual([
      expect.objectContaining({ lanes: 5, runs: 12, ended: expect.any(String) }),
      expect.objectContaining({ lanes: 8 }),
    ])
  })

  it("refuses to take up a pass from a commit whose product differs, and says how to run it", () => {
    openPass(dir, "abc", settings, 5, unchanged)
    const changedSince = jest.fn(() => " src/reconciliation/sweep.ts | 4 ++--")
    expect(() => openPass(dir, "def", settings, 5, changedSince)).toThrow(/product of commit abc[\s\S]*sweep\.ts[\s\S]*git worktree add <folder> abc/)
    expect(changedSince).toHaveBeenCalledWith("abc")
  })

  it("takes up a pass from a later commit whose product is the same (the harness fixed between sittings), each sitting naming its commit", () => {
    openPass(dir, "abc", settings, 5, unchanged)
    const again = openPass(dir, "def", settings, 6, unchanged)
    expect(again.pass.commit).toBe("abc")
    expect(again.pass.sittings.map((s) => s.commit)).toEqual(["abc", "def"])
  })

  it("keeps every run appended, and makes again a run whose line was cut short", () => {
    appendRun(dir, { point: "capture service:/capture#1 kill", run: 1 })
    appendRun(dir, { point: "capture service:/capture#1 kill", run: 2 })
    fs.appendFileSync(path.join(dir, "runs.jsonl"), '{"point":"capture db:insert:capture#1 kill","ru')
    const runs = passRuns(dir)
    expect(runs).toHaveLength(2)
    const done = doneKeys(runs)
    expect(done.has("capture service:/capture#1 kill#2")).toBe(true)
    expect(done.has("capture db:insert:capture#1 kill#1")).toBe(false)
  })

  it("has no runs before the first", () => {
    expect(passRuns(dir)).toEqual([])
  })

  it("tables every point any lane of any sitting found, once, in the order first found", () => {
    writePoints(dir, "2026-11-28T20-00-00-000Z-lane0", [{ id: "a" }, { id: "c" }])
    writePoints(dir, "2026-11-28T20-00-00-000Z-lane1", [{ id: "b" }, { id: "a" }])
    writePoints(dir, "2026-11-29T08-00-00-000Z-lane0", [{ id: "d" }])
    expect(passPoints(dir).map((p) => p.id)).toEqual(["a", "c", "b", "d"])
  })
})

describe("a lane that dies during a sitting", () => {
  const exits = (...codes: Array<number | null>) => {
    const start = jest.fn<Promise<number | null>, []>()
    for (const code of codes) start.mockResolvedValueOnce(code)
    return start
  }

  it("is started again until it ends well, each restart told", async () => {
    const start = exits(1, 0)
    const onRestart = jest.fn()
    await expect(startedAgainWhileFailing(start, { tries: 3, mayRestart: () => true, onRestart })).resolves.toBe(0)
    expect(start).toHaveBeenCalledTimes(2)
    expect(onRestart).toHaveBeenCalledWith(1, 1)
  })

  it("is started at most `tries` times, and its last code is the lane's", async () => {
    const start = exits(1, null, 2, 0)
    await expect(startedAgainWhileFailing(start, { tries: 3, mayRestart: () => true })).resolves.toBe(2)
    expect(start).toHaveBeenCalledTimes(3)
  })

  it("is not started again once the sitting is interrupted or its end is near", async () => {
    const start = exits(1, 0)
    await expect(startedAgainWhileFailing(start, { tries: 3, mayRestart: () => false })).resolves.toBe(1)
    expect(start).toHaveBeenCalledTimes(1)
  })

  it("that ended well is not started again", async () => {
    const start = exits(0, 0)
    await expect(startedAgainWhileFailing(start, { tries: 3, mayRestart: () => true })).resolves.toBe(0)
    expect(start).toHaveBeenCalledTimes(1)
  })
})

describe("dealPoints (the lanes' shares of a sitting)", () => {
  const ids = (shares: Array<Array<{ id: string }>>) => shares.map((share) => share.map((p) => p.id))
  const timed = (point: string, run: number, seconds: number): TimedRun => ({ point, run, phases: { prepare: 1_000, judge: seconds * 1_000 - 1_000 } })

  it("deals a pass's last runs evenly: the fifth pass's 44 runs left after its twelfth sitting, at most 7 on a lane of 7 (the id's hash gave one lane 17)", () => {
    // The fifth pass as it stood when sitting 13 began: its first 6,876 runs.
    const dir = path.join(__dirname, "../../../bench/crash-passes/03ad3b4-every-point-20-runs")
    const points = passPoints<{ id: string }>(dir)
    const earlier = passRuns<TimedRun>(dir).slice(0, 6_876)
    const left = (share: Array<{ id: string }>) =>
      share.reduce((n, p) => n + 20 - new Set(earlier.filter((r) => r.point === p.id).map((r) => r.run)).size, 0)
    expect(points).toHaveLength(346)
    const byHash = Array.from({ length: 7 }, (_, lane) => points.filter((p) => fnv1a(p.id) % 7 === lane))
    expect(byHash.map(left).reduce((a, b) => a + b)).toBe(44)
    expect(Math.max(...byHash.map(left))).toBe(17)
    const dealt = dealPoints(points, 7, 20, earlier, fnv1a)
    expect(dealt.map(left).reduce((a, b) => a + b)).toBe(44)
    expect(Math.max(...dealt.map(left))).toBeLessThanOrEqual(7)
    expect(dealt.flat().map((p) => p.id).sort()).toEqual(points.map((p) => p.id).sort())
  })

  it("weighs a point by how long its runs took: slow points are spread, not left on one lane", () => {
    const points = ["s1", "s2", "s3", "s4", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8"].map((id) => ({ id }))
    const earlier = points.map((p) => timed(p.id, 1, p.id.startsWith("s") ? 60 : 5))
    const shares = ids(dealPoints(points, 2, 3, earlier, fnv1a))
    expect(shares.map((share) => share.filter((id) => id.startsWith("s")).length)).toEqual([2, 2])
    expect(shares.map((share) => share.length)).toEqual([6, 6])
  })

  it("gives a point found in this sitting, with no runs yet, every earlier run's mean time", () => {
    const points = [{ id: "old-slow" }, { id: "new" }, { id: "old-fast" }]
    const earlier = [timed("old-slow", 1, 100), timed("old-fast", 1, 20)]
    // Work left: old-slow 1 x 100 s, new 2 x 60 s, old-fast 1 x 20 s.
    expect(ids(dealPoints(points, 2, 2, earlier, fnv1a))).toEqual([["new"], ["old-slow", "old-fast"]])
  })

  it("without earlier runs (a new pass, or no --pass), shares differ by at most one point, each in the points' order", () => {
    const points = Array.from({ length: 23 }, (_, i) => ({ id: `p${String(i).padStart(2, "0")}` }))
    const shares = ids(dealPoints(points, 5, 20, [], fnv1a))
    expect(shares.map((share) => share.length).sort()).toEqual([4, 4, 5, 5, 5])
    for (const share of shares) expect(share).toEqual([...share].sort())
    expect(shares.flat().sort()).toEqual(points.map((p) => p.id))
  })

  it("puts a point with no runs left where its id hashes, so every point is in exactly one share", () => {
    const points = [{ id: "done" }, { id: "a" }, { id: "b" }]
    const earlier = [1, 2].map((run) => timed("done", run, 10))
    const shares = ids(dealPoints(points, 3, 2, earlier, () => 2))
    expect(shares).toEqual([["a"], ["b"], ["done"]])
  })
})
