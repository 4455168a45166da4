import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { appendRun, closeSitting, doneKeys, openPass, passPoints, passRuns, startedAgainWhileFailing, writePoints, type PassSettings } from "../../../scripts/lib/crash-pass"

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
