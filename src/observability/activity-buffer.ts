/**
 * The rows behind the admin's "Payments at a glance": the plugin's own
 * events (a call to the service, a payment result, a callback's answer, a
 * sweep action), written to the card_service_event table by the activity
 * module, so every instance's figures land in the one database.
 *
 * Rows are queued here and written together, one multi-row INSERT per
 * second at most (or per 200 rows), off the request's path: a checkout adds
 * no statement of its own and waits for none. The price is that an instance
 * that dies loses at most its last second of rows. A payment result is
 * written once per transaction (a unique index; the instance whose row went
 * in counts it in the results metric as well).
 *
 * The provider and the routes queue rows; the activity module publishes
 * itself as the sink when Medusa loads it (as the settings module publishes
 * the settings source: a provider cannot resolve another module). Without
 * the module nothing is written and the admin says the figures are off.
 */

export type ActivityKind = "call" | "result" | "callback" | "sweep"

export type ActivityRow = {
  kind: ActivityKind
  /** call: operation; result: its kind (payment-results.ts); callback: outcome; sweep: status. */
  name: string
  reason_code?: string | null
  flag?: string | null
  http_status?: number | null
  duration_ms?: number | null
  /** Results only: written once per transaction. Not shown anywhere. */
  transaction_id?: string | null
}

export type ActivitySink = {
  /** Writes the rows; answers the result rows that were new (not written before by any instance). */
  insertActivity(rows: ActivityRow[]): Promise<ActivityRow[]>
  /** Deletes rows older than `before`. */
  pruneActivity(before: Date): Promise<void>
}

type BufferState = {
  sink: ActivitySink | null
  queue: ActivityRow[]
  timer: ReturnType<typeof setTimeout> | null
  flushing: Promise<void> | null
  /** Transaction ids queued lately: a result read three times in a checkout is queued once. */
  recentResults: Set<string>
  lastPrune: number
  onNewResults: ((rows: ActivityRow[]) => void) | null
  /** Rows and INSERT statements written since load (the benchmark reports them per checkout). */
  written: { rows: number; statements: number }
  enabled: boolean
}

const FLUSH_AFTER_MS = 1_000
const FLUSH_AT_ROWS = 200
const RECENT_RESULTS_CAP = 10_000
/** The admin shows 7 days; a day more is kept, then pruned (at most hourly per instance). */
export const KEEP_MS = 8 * 24 * 60 * 60 * 1000
const PRUNE_EVERY_MS = 60 * 60 * 1000

const STATE_KEY = Symbol.for("medusa-payment-card-service.activity-buffer")

function state(): BufferState {
  const holder = globalThis as unknown as Record<symbol, BufferState | undefined>
  return (holder[STATE_KEY] ??= {
    sink: null,
    queue: [],
    timer: null,
    flushing: null,
    recentResults: new Set(),
    lastPrune: 0,
    onNewResults: null,
    written: { rows: 0, statements: 0 },
    enabled: true,
  })
}

/** Called by the activity module when Medusa constructs it. */
export function publishActivitySink(sink: ActivitySink): void {
  state().sink = sink
}

export function activitySinkPublished(): boolean {
  return state().sink !== null
}

/** Who hears of result rows that were new (the results metric). Without a sink, every queued result is new. */
export function onNewResults(listener: (rows: ActivityRow[]) => void): void {
  state().onNewResults = listener
}

export function recordActivity(row: ActivityRow): void {
  const s = state()
  if (!s.enabled) return
  if (row.kind === "result" && row.transaction_id) {
    if (s.recentResults.has(row.transaction_id)) return
    if (s.recentResults.size >= RECENT_RESULTS_CAP) s.recentResults.clear()
    s.recentResults.add(row.transaction_id)
  }
  if (!s.sink) {
    if (row.kind === "result") s.onNewResults?.([row])
    return
  }
  s.queue.push(row)
  if (s.queue.length >= FLUSH_AT_ROWS) {
    void flushActivity()
  } else if (!s.timer) {
    s.timer = setTimeout(() => void flushActivity(), FLUSH_AFTER_MS)
    s.timer.unref?.()
  }
}

/** Writes what is queued now (tests, shutdown); waits for a write under way. */
export async function flushActivity(): Promise<void> {
  const s = state()
  if (s.timer) {
    clearTimeout(s.timer)
    s.timer = null
  }
  while (s.flushing) await s.flushing
  const sink = s.sink
  if (!sink || s.queue.length === 0) return
  const rows = s.queue
  s.queue = []
  const writing = write(s, sink, rows)
  s.flushing = writing
  try {
    await writing
  } finally {
    s.flushing = null
  }
}

async function write(s: BufferState, sink: ActivitySink, rows: ActivityRow[]): Promise<void> {
  try {
    const fresh = await sink.insertActivity(rows)
    s.written.rows += rows.length
    s.written.statements += 1
    if (fresh.length) s.onNewResults?.(fresh)
    const now = Date.now()
    if (now - s.lastPrune >= PRUNE_EVERY_MS) {
      s.lastPrune = now
      await sink.pruneActivity(new Date(now - KEEP_MS))
    }
  } catch {
    // Figures are not worth failing or retrying a payment for; the rows
    // are dropped (the database is down, or the table is not migrated yet).
  }
}

/** Rows and statements written by this process so far (bench:checkout reports them). */
export function activityWritten(): { rows: number; statements: number } {
  return { ...state().written }
}

/**
 * Switches the recording of rows off and on in this process. For the
 * checkout benchmark, which compares a checkout with and without them in
 * one run; a store has no reason to.
 */
export function setActivityRecording(enabled: boolean): void {
  state().enabled = enabled
}
