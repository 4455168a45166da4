import { createHook } from "node:async_hooks"
import {
  activityWritten,
  flushActivity,
  publishActivitySink,
  recordActivity,
  type ActivityRow,
  type ActivitySink,
} from "../../../src/observability/activity-buffer"

/**
 * Issue 39: the figures' rows (activity-buffer.ts) must grow with time and
 * checkouts, not with what anyone POSTs, and a database that hangs must
 * cost the process bounded memory and leave no caller waiting for ever.
 * The constants are written out here, not imported: the tests say what a
 * store gets.
 */
const STATE_KEY = Symbol.for("medusa-payment-card-service.activity-buffer")
const MINUTE = 60_000
const WRITE_TIMEOUT = 10_000
const QUEUE_CAP = 10_000

type Sink = ActivitySink & { rows: ActivityRow[]; statements: number; prunedBefore: Date[] }

/** A sink that keeps what it is given; `hang` makes an insert never answer (or answer when released). */
function memorySink(hang: (call: number) => Promise<void> | null = () => null): Sink {
  const sink: Sink = {
    rows: [],
    statements: 0,
    prunedBefore: [],
    async insertActivity(rows) {
      sink.statements += 1
      const waiting = hang(sink.statements)
      if (waiting) await waiting
      sink.rows.push(...rows)
      return []
    },
    async pruneActivity(before) {
      sink.prunedBefore.push(before)
    },
  }
  return sink
}

const never = () => new Promise<void>(() => undefined)
const result = (i: number): ActivityRow => ({ kind: "result", name: "approved", transaction_id: `t-${i}` })
const call = (durationMs: number): ActivityRow => ({ kind: "call", name: "retrieve", duration_ms: durationMs })
const total = (rows: ActivityRow[]) => rows.reduce((sum, row) => sum + (row.count ?? 1), 0)

/** A fresh buffer for each test: its state lives on globalThis (one per process). */
function freshBuffer(sink: ActivitySink): void {
  delete (globalThis as unknown as Record<symbol, unknown>)[STATE_KEY]
  publishActivitySink(sink)
}

afterEach(() => {
  jest.useRealTimers()
  delete process.env.CARD_SERVICE_ACTIVITY_KEEP_MS
})

describe("rows that anyone can cause are tallied per minute", () => {
  it("writes 200 refused and 3 ignored callbacks as one row per answer carrying its count", async () => {
    const sink = memorySink()
    freshBuffer(sink)

    for (let i = 0; i < 200; i++) recordActivity({ kind: "callback", name: "refused" })
    for (let i = 0; i < 3; i++) recordActivity({ kind: "callback", name: "ignored" })
    await flushActivity()

    expect(sink.rows).toEqual([
      { kind: "callback", name: "refused", count: 200 },
      { kind: "callback", name: "ignored", count: 3 },
    ])
  })

  it("writes a minute's tallies when the minute ends, not a row a second, and starts counting again", async () => {
    jest.useFakeTimers({ now: 0 })
    const sink = memorySink()
    freshBuffer(sink)

    for (let i = 0; i < 30; i++) {
      recordActivity({ kind: "callback", name: "refused" })
      recordActivity({ kind: "sweep", name: "failed" })
      await jest.advanceTimersByTimeAsync(1_000)
    }
    expect(sink.rows).toEqual([])
    await jest.advanceTimersByTimeAsync(MINUTE)
    recordActivity({ kind: "callback", name: "refused" })
    await jest.advanceTimersByTimeAsync(MINUTE + 1_000)

    expect(sink.rows).toEqual([
      { kind: "callback", name: "refused", count: 30 },
      { kind: "sweep", name: "failed", count: 30 },
      { kind: "callback", name: "refused", count: 1 },
    ])
  })

  it("keeps every call of a quiet minute as its own row, with its duration", async () => {
    const sink = memorySink()
    freshBuffer(sink)

    for (const ms of [12, 30, 7]) recordActivity(call(ms))
    await flushActivity()

    expect(sink.rows).toEqual([call(12), call(30), call(7)])
  })

  it("writes 1,000 retrieves of a minute as 5 sampled rows whose counts add up to 1,000", async () => {
    const sink = memorySink()
    freshBuffer(sink)

    for (let i = 0; i < 1_000; i++) recordActivity(call(i))
    await flushActivity()

    expect(sink.rows).toHaveLength(5)
    expect(total(sink.rows)).toBe(1_000)
    expect(sink.rows.every((row) => row.kind === "call" && row.name === "retrieve")).toBe(true)
    expect(new Set(sink.rows.map((row) => row.duration_ms)).size).toBe(5)
  })

  it("writes each payment result as its own row, once per transaction", async () => {
    const sink = memorySink()
    freshBuffer(sink)

    for (const i of [1, 2, 1, 3]) recordActivity(result(i))
    await flushActivity()

    expect(sink.rows).toEqual([result(1), result(2), result(3)])
  })
})

describe("an INSERT that hangs", () => {
  it("leaves no flush call waiting for each row queued meanwhile", async () => {
    const sink = memorySink(never)
    freshBuffer(sink)
    for (let i = 0; i < 200; i++) recordActivity(result(i))
    expect(sink.statements).toBe(1)

    // Every pending call is a promise: count those made while 5,000 more rows are queued.
    let promises = 0
    const hook = createHook({ init: (_id, type) => void (type === "PROMISE" && promises++) }).enable()
    try {
      for (let i = 200; i < 5_200; i++) recordActivity(result(i))
    } finally {
      hook.disable()
    }

    expect(promises).toBeLessThan(10)
    expect(sink.statements).toBe(1)
  })

  it("queues at most 10,000 rows and counts those it drops", async () => {
    let release: () => void = () => undefined
    const released = new Promise<void>((resolve) => (release = resolve))
    const sink = memorySink((statement) => (statement === 1 ? released : null))
    freshBuffer(sink)

    for (let i = 0; i < 50_000; i++) recordActivity(result(i))
    release()
    await flushActivity()
    await flushActivity()

    // The batch that hung, then the queue up to its cap.
    expect(sink.rows.length).toBeLessThanOrEqual(200 + QUEUE_CAP)
    expect(activityWritten().dropped).toBe(50_000 - sink.rows.length)
  })

  it("is given up on after a while: the next rows are written and flushActivity (shutdown, the figures) returns", async () => {
    jest.useFakeTimers({ now: 0 })
    const sink = memorySink((statement) => (statement === 1 ? never() : null))
    freshBuffer(sink)
    recordActivity(result(1))
    await jest.advanceTimersByTimeAsync(1_000)
    expect(sink.statements).toBe(1)

    recordActivity(result(2))
    let flushed = false
    void flushActivity().then(() => (flushed = true))
    await jest.advanceTimersByTimeAsync(WRITE_TIMEOUT)

    expect(flushed).toBe(true)
    expect(sink.rows).toEqual([result(2)])
    expect(activityWritten()).toMatchObject({ rows: 1, statements: 1, dropped: 1 })
  })
})

describe("retention: CARD_SERVICE_ACTIVITY_KEEP_MS", () => {
  const DEFAULT_KEEP = 8 * 24 * 60 * 60 * 1000

  async function prunedAfterOneWrite(): Promise<number> {
    const sink = memorySink()
    freshBuffer(sink)
    recordActivity(result(1))
    await flushActivity()
    return Date.now() - sink.prunedBefore[0].getTime()
  }

  it("keeps eight days by default", async () => {
    jest.useFakeTimers({ now: DEFAULT_KEEP * 2 })
    expect(await prunedAfterOneWrite()).toBe(DEFAULT_KEEP)
  })

  it("keeps what the variable says, read when pruning, and prunes as often as a 192nd of it", async () => {
    jest.useFakeTimers({ now: 10 * MINUTE })
    process.env.CARD_SERVICE_ACTIVITY_KEEP_MS = "600000"
    const sink = memorySink()
    freshBuffer(sink)

    for (let second = 0; second < 30; second++) {
      recordActivity(result(second))
      await jest.advanceTimersByTimeAsync(1_000)
    }

    expect(Date.now() - 30_000 - sink.prunedBefore[0].getTime()).toBeGreaterThanOrEqual(599_000)
    // 600,000 ms / 192 is about 3 s: a prune every third or fourth write, not hourly.
    expect(sink.prunedBefore.length).toBeGreaterThanOrEqual(7)
    expect(sink.prunedBefore.length).toBeLessThanOrEqual(10)
  })

  it.each(["", " ", "abc", "-5", "0", "1.5", "1e9", "99999999999999999999"])(
    "ignores %p and keeps eight days",
    async (value) => {
      jest.useFakeTimers({ now: DEFAULT_KEEP * 2 })
      process.env.CARD_SERVICE_ACTIVITY_KEEP_MS = value
      expect(await prunedAfterOneWrite()).toBe(DEFAULT_KEEP)
    }
  )
})

describe("a payment's result", () => {
  it("is queued once however often it is read, and once more with a review's verdict (issue 41)", async () => {
    const sink = memorySink()
    freshBuffer(sink)
    const review: ActivityRow = { kind: "result", name: "review", reason_code: "480", transaction_id: "t-1" }
    const verdict: ActivityRow = { kind: "result", name: "approved", reason_code: "100", transaction_id: "t-1" }
    recordActivity(review)
    recordActivity(review)
    recordActivity(verdict)
    recordActivity(verdict)
    await flushActivity()
    expect(sink.rows.map((row) => row.name)).toEqual(["review", "approved"])
  })
})
