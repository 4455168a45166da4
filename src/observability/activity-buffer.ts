/**
 * The rows behind the admin's "Payments at a glance": the plugin's own
 * events (a call to the service, a payment result, a callback's answer, a
 * sweep action), written to the card_service_event table by the activity
 * module, so every instance's figures land in the one database.
 *
 * Rows are queued here and written together, one multi-row INSERT per
 * second at most (or per 200 rows), off the request's path: a checkout adds
 * no statement of its own and waits for none. A payment result is written
 * once per transaction (a unique index; the instance whose row went in
 * counts it in the results metric as well); a result under review is
 * changed once more, to its verdict.
 *
 * Anyone can POST a callback, and every callback used to be a row: 200
 * malformed POSTs were 200 rows, kept eight days (issue 39). So the table
 * grows with time and checkouts, not with requests: callback answers and
 * sweep actions are tallied per name and written as one row per name per
 * minute carrying a count; calls to the service (which anonymous requests
 * cause too, up to the call budget of src/checkout/call-budget.ts) are
 * sampled, at most CALL_ROWS_PER_MINUTE rows per operation per minute whose
 * counts add up to the minute's calls. The figures sum the counts, so they
 * are the same as with a row per event. An instance that dies loses at most
 * its last minute of these, and its last second of results.
 *
 * The provider and the routes queue rows; the activity module publishes
 * itself as the sink when Medusa loads it (as the settings module publishes
 * the settings source: a provider cannot resolve another module). Without
 * the module nothing is written and the admin says the figures are off.
 */

export type ActivityKind = "call" | "result" | "callback" | "sweep"

export type ActivityRow = {
  kind: ActivityKind
  /**
   * call: operation; result: its kind (payment-results.ts), or
   * "review_expired" (a review with no verdict in time: its order was
   * canceled); callback: outcome; sweep: status.
   */
  name: string
  reason_code?: string | null
  flag?: string | null
  http_status?: number | null
  duration_ms?: number | null
  /**
   * Results only: one row per transaction, written once, except that a
   * result under review becomes its verdict (the activity module). Not shown
   * anywhere.
   */
  transaction_id?: string | null
  /** How many events of one minute the row stands for (tallies, sampled calls); 1 when absent. */
  count?: number
}

export type ActivitySink = {
  /** Writes the rows; answers the result rows that were new (not written before by any instance). */
  insertActivity(rows: ActivityRow[]): Promise<ActivityRow[]>
  /** Deletes rows older than `before`. */
  pruneActivity(before: Date): Promise<void>
}

/** One minute's callbacks and sweep actions by name, and its calls by operation. */
type Minute = {
  tallies: Map<string, ActivityRow & { count: number }>
  calls: Map<string, CallSample>
  timer: ReturnType<typeof setTimeout> | null
}

/** A uniform sample of one operation's calls in a minute (reservoir sampling), and how many there were. */
type CallSample = { seen: number; kept: ActivityRow[] }

type BufferState = {
  sink: ActivitySink | null
  queue: ActivityRow[]
  timer: ReturnType<typeof setTimeout> | null
  /** The one write under way; nothing else waits on it but flushActivity. */
  flushing: Promise<void> | null
  minute: Minute
  /**
   * Transaction ids with the result queued lately: a result read three times
   * in a checkout is queued once, and a review's verdict once more.
   */
  recentResults: Set<string>
  lastPrune: number
  onNewResults: ((rows: ActivityRow[]) => void) | null
  /**
   * Rows and INSERT statements written since load (the benchmark reports
   * them per checkout), and rows dropped: over the queue's cap, or in a
   * write that failed or did not answer in time.
   */
  written: { rows: number; statements: number; dropped: number }
  enabled: boolean
}

const FLUSH_AFTER_MS = 1_000
const FLUSH_AT_ROWS = 200
const RECENT_RESULTS_CAP = 10_000
/** Tallies and call samples are written once per this, per instance. */
export const MINUTE_MS = 60_000
/**
 * Call rows per operation per minute. Below it every call is a row of its
 * own, as before; above it 5 a minute are still 7,200 durations a day per
 * operation, plenty for a p95, while a flood of retrieves is 5 rows.
 */
export const CALL_ROWS_PER_MINUTE = 5
/**
 * Rows queued at most while the database does not take them (50 batches);
 * beyond it rows are dropped and counted, so a hung INSERT costs the
 * process a bounded amount of memory.
 */
export const MAX_QUEUED_ROWS = 10_000
/**
 * How long a write may take before the buffer gives up on it and writes the
 * next batch: a batch takes milliseconds, and a statement that hangs (a lock,
 * a dead connection) must not keep the figures, or a shutdown's last flush,
 * waiting for ever.
 */
export const WRITE_TIMEOUT_MS = 10_000
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
    minute: { tallies: new Map(), calls: new Map(), timer: null },
    recentResults: new Set(),
    lastPrune: 0,
    onNewResults: null,
    written: { rows: 0, statements: 0, dropped: 0 },
    enabled: true,
  })
}

/**
 * How long rows are kept: `CARD_SERVICE_ACTIVITY_KEEP_MS` (whole
 * milliseconds, read at each prune so a compressed-time soak can shorten
 * it), else eight days. Anything else in the variable is ignored.
 */
export function activityKeepMs(env: NodeJS.ProcessEnv = process.env): number {
  const given = env.CARD_SERVICE_ACTIVITY_KEEP_MS?.trim() ?? ""
  const ms = /^\d+$/.test(given) ? Number(given) : NaN
  return Number.isSafeInteger(ms) && ms > 0 ? ms : KEEP_MS
}

/** Hourly at the default (eight days / 192); more often when rows are kept for less. */
function pruneEveryMs(keepMs: number): number {
  return Math.min(PRUNE_EVERY_MS, keepMs / 192)
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
    const key = `${row.transaction_id}:${row.name}`
    if (s.recentResults.has(key)) return
    if (s.recentResults.size >= RECENT_RESULTS_CAP) s.recentResults.clear()
    s.recentResults.add(key)
  }
  if (!s.sink) {
    if (row.kind === "result") s.onNewResults?.([row])
    return
  }
  switch (row.kind) {
    case "callback":
    case "sweep":
      return tally(s, row)
    case "call":
      return sampleCall(s, row)
    default:
      enqueue(s, row)
  }
}

function tally(s: BufferState, row: ActivityRow): void {
  const key = `${row.kind}:${row.name}`
  const tallied = s.minute.tallies.get(key)
  if (tallied) tallied.count += 1
  else s.minute.tallies.set(key, { kind: row.kind, name: row.name, count: 1 })
  startMinute(s)
}

function sampleCall(s: BufferState, row: ActivityRow): void {
  let sample = s.minute.calls.get(row.name)
  if (!sample) {
    sample = { seen: 0, kept: [] }
    s.minute.calls.set(row.name, sample)
  }
  sample.seen += 1
  if (sample.kept.length < CALL_ROWS_PER_MINUTE) {
    sample.kept.push(row)
  } else {
    // Each call of the minute ends up kept with the same chance, so the
    // durations written are a fair sample of the minute's, not its first.
    const slot = Math.floor(Math.random() * sample.seen)
    if (slot < CALL_ROWS_PER_MINUTE) sample.kept[slot] = row
  }
  startMinute(s)
}

function startMinute(s: BufferState): void {
  if (s.minute.timer) return
  s.minute.timer = setTimeout(() => endMinute(state()), MINUTE_MS)
  s.minute.timer.unref?.()
}

/** Queues the minute's tallies and call samples as rows, and starts the next minute. */
function endMinute(s: BufferState): void {
  const { tallies, calls, timer } = s.minute
  if (timer) clearTimeout(timer)
  s.minute = { tallies: new Map(), calls: new Map(), timer: null }
  for (const row of tallies.values()) enqueue(s, row)
  for (const { seen, kept } of calls.values()) {
    // The kept rows share the minute's count, so the figures' number of
    // calls is exact and each kept duration weighs what it stands for.
    kept.forEach((row, i) => {
      const count = Math.floor(seen / kept.length) + (i < seen % kept.length ? 1 : 0)
      enqueue(s, count === 1 ? row : { ...row, count })
    })
  }
}

function enqueue(s: BufferState, row: ActivityRow): void {
  if (s.queue.length >= MAX_QUEUED_ROWS) {
    s.written.dropped += 1
    return
  }
  s.queue.push(row)
  if (s.queue.length >= FLUSH_AT_ROWS) {
    startWrite(s)
  } else if (!s.timer && !s.flushing) {
    s.timer = setTimeout(() => startWrite(state()), FLUSH_AFTER_MS)
    s.timer.unref?.()
  }
}

/**
 * Writes what is queued unless a write is under way: then that write's end
 * starts the next one. So a hung INSERT leaves one write pending, not one
 * waiting call per row queued meanwhile.
 */
function startWrite(s: BufferState): void {
  if (s.timer) {
    clearTimeout(s.timer)
    s.timer = null
  }
  const sink = s.sink
  if (s.flushing || !sink || s.queue.length === 0) return
  const rows = s.queue
  s.queue = []
  s.flushing = write(s, sink, rows).finally(() => {
    s.flushing = null
    if (s.queue.length >= FLUSH_AT_ROWS) startWrite(s)
    else if (s.queue.length > 0 && !s.timer) {
      s.timer = setTimeout(() => startWrite(state()), FLUSH_AFTER_MS)
      s.timer.unref?.()
    }
  })
}

/**
 * Writes what is queued now, this minute's tallies and samples included
 * (the figures, shutdown, tests). Waits for the write under way and then
 * this one, each given up after WRITE_TIMEOUT_MS.
 */
export async function flushActivity(): Promise<void> {
  const s = state()
  endMinute(s)
  if (s.flushing) await s.flushing
  startWrite(s)
  if (s.flushing) await s.flushing
}

async function write(s: BufferState, sink: ActivitySink, rows: ActivityRow[]): Promise<void> {
  let fresh: ActivityRow[]
  try {
    fresh = await withinWriteTimeout(sink.insertActivity(rows))
  } catch {
    // Figures are not worth failing or retrying a payment for; the rows
    // are dropped (the database is down or hangs, or the table is not
    // migrated yet). A statement given up on may still land later: its
    // rows are counted as dropped all the same.
    s.written.dropped += rows.length
    return
  }
  s.written.rows += rows.length
  s.written.statements += 1
  if (fresh.length) s.onNewResults?.(fresh)
  const now = Date.now()
  const keepMs = activityKeepMs()
  if (now - s.lastPrune >= pruneEveryMs(keepMs)) {
    s.lastPrune = now
    await withinWriteTimeout(sink.pruneActivity(new Date(now - keepMs))).catch(() => undefined)
  }
}

function withinWriteTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("the activity write did not answer in time")), WRITE_TIMEOUT_MS)
    timer.unref?.()
  })
  // race subscribes to `work`, so its late failure is not an unhandled rejection.
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer))
}

/** Rows and statements written by this process so far, and rows dropped (bench:checkout reports them). */
export function activityWritten(): { rows: number; statements: number; dropped: number } {
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
