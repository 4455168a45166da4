import type { Pool } from "pg"
import { glanceFigures } from "../../src/api/admin/card-service/glance-figures"
import { PROVIDER_ID_PREFIX } from "../../src/checkout/provider-lookup"
import { CARD_SERVICE_ACTIVITY_MODULE } from "../../src/modules/card-service-activity"
import CardServiceActivityModuleService, { DAY_MS } from "../../src/modules/card-service-activity/service"
import { publishActivitySink, recordActivity } from "../../src/observability/activity-buffer"
import { startDatabase, type PgDatabase } from "../helpers/pg-container"

jest.setTimeout(60_000)

/**
 * "Payments at a glance" (glance-figures.ts) against a real PostgreSQL: its
 * figures are SQL over Medusa's payment_session table and the plugin's
 * card_service_event table, and only the database can say what that SQL
 * counts. An embedded server (scripts/lib/embedded-db.js) with just the
 * columns the code reads; the activity module's own read methods over the
 * same connection. What is asserted is what the store owner reads on the
 * admin's page: sessions started and abandoned per window, and the events.
 */

const MINUTE = 60_000
const GRACE_MS = 15 * MINUTE

/** The embedded server (tests/helpers/pg-container.ts) and its connection pool, once started. */
let db: PgDatabase
let pool: Pool
/** Knex's raw over pg, as Medusa's PG_CONNECTION answers it. */
const knex = { raw: (sql: string, bindings: unknown[] = []) => db.raw(sql, bindings) }

/** The activity module's service as Medusa makes it, reduced to what it uses: its manager over the same connection. */
const activity = Object.assign(Object.create(CardServiceActivityModuleService.prototype), {
  manager_: { execute: async (sql: string, params: unknown[] = []) => (await knex.raw(sql, params)).rows },
}) as CardServiceActivityModuleService

function container({ recording }: { recording: boolean }) {
  const registry: Record<string, unknown> = {
    __pg_connection__: knex,
    ...(recording ? { [CARD_SERVICE_ACTIVITY_MODULE]: activity } : {}),
  }
  return {
    hasRegistration: (key: string) => key in registry,
    resolve: (key: string) => {
      if (!(key in registry)) throw new Error(`container has no ${key}`)
      return registry[key]
    },
  } as never
}

beforeAll(async () => {
  db = await startDatabase()
  pool = db.pool
  // A test that fails while a figure's query runs leaves its connection to
  // be cut when the server stops; that is no error of the figures.
  pool.on("connect", (client) => client.on("error", () => undefined))
  // The columns of Medusa's payment_session that the figures read.
  await pool.query(`create table "payment_session" (
    "id" text primary key,
    "provider_id" text not null,
    "status" text not null default 'pending',
    "data" jsonb not null default '{}',
    "created_at" timestamptz not null default now(),
    "deleted_at" timestamptz null
  )`)
  // As the activity module's migrations leave it.
  await pool.query(`create table "card_service_event" (
    "id" text not null primary key, "kind" text not null, "name" text not null, "reason_code" text null,
    "flag" text null, "http_status" integer null, "duration_ms" real null, "transaction_id" text null,
    "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(),
    "deleted_at" timestamptz null, "count" integer not null default 1
  )`)
  await pool.query(
    `create unique index "IDX_card_service_event_result_transaction" on "card_service_event" ("transaction_id") where kind = 'result'`
  )
})
afterAll(async () => {
  await db?.stop()
})
beforeEach(async () => {
  await pool.query(`truncate "payment_session", "card_service_event"`)
})

let sessions = 0
type SessionRow = { provider?: string; status?: string; data?: Record<string, unknown>; at: Date; deleted?: boolean }

async function addSessions(...rows: SessionRow[]): Promise<void> {
  for (const row of rows) {
    await pool.query(
      `insert into "payment_session" ("id", "provider_id", "status", "data", "created_at", "deleted_at") values ($1, $2, $3, $4, $5, $6)`,
      [
        `payses_${++sessions}`,
        row.provider ?? `${PROVIDER_ID_PREFIX}default`,
        row.status ?? "pending",
        JSON.stringify(row.data ?? {}),
        row.at,
        row.deleted ? row.at : null,
      ]
    )
  }
}

async function addEvents(...rows: { kind: string; name: string; reason_code?: string; duration_ms?: number; count?: number; at: Date }[]) {
  for (const row of rows) {
    await pool.query(
      `insert into "card_service_event" ("id", "kind", "name", "reason_code", "duration_ms", "count", "created_at") values ($1, $2, $3, $4, $5, $6, $7)`,
      [`csevt_${++sessions}`, row.kind, row.name, row.reason_code ?? null, row.duration_ms ?? null, row.count ?? 1, row.at]
    )
  }
}

const ago = (now: Date, ms: number) => new Date(now.getTime() - ms)
/** Started and abandoned per window, as the page shows them. */
const sessionFigures = async (now: Date, graceMs = GRACE_MS, recording = false) => {
  const figures = await glanceFigures(container({ recording }), now, graceMs)
  return Object.fromEntries(figures.windows.map((w) => [w.window, { started: w.started, abandoned: w.abandoned }]))
}

describe("sessions started and abandoned", () => {
  const now = new Date("2026-11-20T12:00:00.000Z")

  it("counts a session in the day and the week it was started in, up to now", async () => {
    await addSessions(
      { at: ago(now, 0), status: "authorized" },
      { at: ago(now, DAY_MS), status: "authorized" },
      { at: ago(now, DAY_MS + 1), status: "authorized" },
      { at: ago(now, 7 * DAY_MS), status: "authorized" },
      // Older than a week, and not yet started at `now`: neither window.
      { at: ago(now, 7 * DAY_MS + 1), status: "authorized" },
      { at: ago(now, -1), status: "authorized" }
    )
    expect(await sessionFigures(now)).toEqual({
      "24h": { started: 2, abandoned: 0 },
      "7d": { started: 4, abandoned: 0 },
    })
  })

  it("calls a session abandoned once the grace has passed with no result and no payment", async () => {
    await addSessions(
      // Past the grace, nothing reported: abandoned, whatever else its status says.
      { at: ago(now, GRACE_MS + 1), status: "pending" },
      { at: ago(now, GRACE_MS + MINUTE), status: "canceled" },
      { at: ago(now, 2 * DAY_MS), status: "error", data: { transaction_id: "" } },
      // Not yet past the grace: started only.
      { at: ago(now, GRACE_MS), status: "pending" },
      { at: ago(now, MINUTE), status: "pending" },
      // A result was reported, or the payment authorized or captured: not abandoned.
      { at: ago(now, HOURS(2)), status: "pending", data: { transaction_id: "7000000000000000000001" } },
      { at: ago(now, HOURS(2)), status: "authorized" },
      { at: ago(now, 3 * DAY_MS), status: "captured" },
      { at: ago(now, 3 * DAY_MS), status: "pending_authorization", data: { transaction_id: "7000000000000000000002" } }
    )
    expect(await sessionFigures(now)).toEqual({
      "24h": { started: 6, abandoned: 2 },
      "7d": { started: 9, abandoned: 3 },
    })
  })

  it("takes the grace in milliseconds: a minute's grace a minute either side", async () => {
    // issue 39: a ms/s slip in the cutoff made both count, or neither.
    await addSessions({ at: ago(now, 2 * MINUTE) }, { at: ago(now, MINUTE / 2) })
    expect(await sessionFigures(now, MINUTE)).toEqual({
      "24h": { started: 2, abandoned: 1 },
      "7d": { started: 2, abandoned: 1 },
    })
  })

  it("counts only this plugin's providers, and no deleted session", async () => {
    await addSessions(
      { at: ago(now, HOURS(1)), provider: `${PROVIDER_ID_PREFIX}default` },
      { at: ago(now, HOURS(1)), provider: `${PROVIDER_ID_PREFIX}eu` },
      { at: ago(now, HOURS(1)), provider: "pp_stripe_stripe" },
      { at: ago(now, HOURS(1)), provider: "pp_card-service" },
      { at: ago(now, HOURS(1)), provider: `xx${PROVIDER_ID_PREFIX}default` },
      { at: ago(now, HOURS(1)), deleted: true }
    )
    expect(await sessionFigures(now)).toEqual({
      "24h": { started: 2, abandoned: 2 },
      "7d": { started: 2, abandoned: 2 },
    })
  })

  it("shows zeros for a store with no sessions", async () => {
    expect(await sessionFigures(now)).toEqual({
      "24h": { started: 0, abandoned: 0 },
      "7d": { started: 0, abandoned: 0 },
    })
  })
})

function HOURS(n: number): number {
  return n * 60 * MINUTE
}

describe("the page's frame", () => {
  it("says when the figures were made, and the grace in whole minutes", async () => {
    const now = new Date("2026-11-20T12:00:00.000Z")
    const figures = await glanceFigures(container({ recording: false }), now, 90_000)
    expect(figures).toMatchObject({ recording: false, abandoned_after_minutes: 2, generated_at: "2026-11-20T12:00:00.000Z" })
    expect(figures.windows.map((w) => w.window)).toEqual(["24h", "7d"])
    expect((await glanceFigures(container({ recording: false }), now, GRACE_MS)).abandoned_after_minutes).toBe(15)
  })

  it("without the activity module counts sessions only, and says the events are not recorded", async () => {
    const now = new Date()
    await addEvents({ kind: "result", name: "approved", at: ago(now, MINUTE) })
    const figures = await glanceFigures(container({ recording: false }), now, GRACE_MS)
    expect(figures.recording).toBe(false)
    expect(figures.windows[0]).toMatchObject({ approved: 0, latency: [] })
  })
})

describe("events, with the activity module", () => {
  it("counts the recorded results, callbacks, sweep actions and call times per window", async () => {
    const now = new Date()
    await addEvents(
      { kind: "result", name: "approved", at: ago(now, HOURS(1)) },
      { kind: "result", name: "approved", at: ago(now, 2 * DAY_MS) },
      { kind: "result", name: "declined", reason_code: "203", at: ago(now, HOURS(1)) },
      { kind: "callback", name: "refused", count: 3, at: ago(now, HOURS(1)) },
      { kind: "call", name: "retrieve", duration_ms: 40, at: ago(now, HOURS(1)) }
    )
    const figures = await glanceFigures(container({ recording: true }), now, GRACE_MS)
    expect(figures.recording).toBe(true)
    const [day, week] = figures.windows
    expect(day).toMatchObject({ approved: 1, declined: 1, callbacks_refused: 3, approval_rate: 0.5 })
    expect(day.latency).toEqual([{ operation: "retrieve", calls: 1, p50_ms: 40, p95_ms: 40 }])
    expect(week).toMatchObject({ approved: 2, declined: 1 })
  })

  it("counts a payment held for review once, by its verdict: on hold until it comes, then an approval or a 481 decline; expired when none came (issue 41)", async () => {
    const now = new Date()
    const review = (transaction_id: string) => ({ kind: "result" as const, name: "review", reason_code: "480", flag: "DREVIEW", transaction_id })
    const figures = async () => (await glanceFigures(container({ recording: true }), new Date(Date.now() + 1000), GRACE_MS)).windows[0]
    // Four held, one still waiting; another instance reading the same review again writes nothing.
    expect(await activity.insertActivity(["t1", "t2", "t3", "t4"].map(review))).toHaveLength(4)
    expect(await activity.insertActivity([review("t1")])).toEqual([])
    expect(await figures()).toMatchObject({ approved: 0, declined: 0, decided: 0, on_hold: 4, review_expired: 0, approval_rate: null })

    // The verdicts: each changes its row once, and the instance that changed it hears of it (the metric).
    const approved = { kind: "result" as const, name: "approved", reason_code: "100", flag: "SOK", transaction_id: "t1" }
    const rejected = { kind: "result" as const, name: "declined", reason_code: "481", flag: "DREJECT", transaction_id: "t2" }
    const expired = { kind: "result" as const, name: "review_expired", transaction_id: "t3" }
    expect(await activity.insertActivity([approved, rejected, expired])).toEqual([
      expect.objectContaining({ name: "approved", transaction_id: "t1" }),
      expect.objectContaining({ name: "declined", reason_code: "481", transaction_id: "t2" }),
      expect.objectContaining({ name: "review_expired", transaction_id: "t3" }),
    ])
    expect(await activity.insertActivity([approved, rejected])).toEqual([])
    // A verdict after the review expired changes nothing: its order was canceled, the approval reversed.
    expect(await activity.insertActivity([{ ...approved, transaction_id: "t3" }])).toEqual([])
    // A review and its verdict queued in the same second go in one after the other.
    expect(await activity.insertActivity([review("t5"), { ...approved, transaction_id: "t5" }, { ...approved, transaction_id: "t6" }])).toHaveLength(3)

    expect(await figures()).toMatchObject({
      approved: 3,
      declined: 1,
      decided: 4,
      on_hold: 1,
      review_expired: 1,
      approval_rate: 3 / 4,
      top_declines: [{ reason_code: "481", reason: "Order rejected by the decision manager", count: 1 }],
    })
    // One row per transaction, whatever it became.
    const { rows } = await pool.query(`select count(*)::int as n from "card_service_event" where kind = 'result'`)
    expect(rows[0].n).toBe(6)
  })

  it("writes a batch as the buffer hands it over: a call's time, a result's flag, a minute's count; and prunes what is older than kept", async () => {
    const written = await activity.insertActivity([
      { kind: "call", name: "retrieve", duration_ms: 42, http_status: 200 },
      { kind: "callback", name: "refused", count: 4 },
      { kind: "result", name: "declined", reason_code: "204", flag: "DINSUFFICIENTFUNDS", transaction_id: "t-flag" },
    ])
    // Only results come back (the metric's new ones), with their flag.
    expect(written).toEqual([
      { kind: "result", name: "declined", reason_code: "204", flag: "DINSUFFICIENTFUNDS", transaction_id: "t-flag" },
    ])
    const figures = (await glanceFigures(container({ recording: true }), new Date(Date.now() + 1000), GRACE_MS)).windows[0]
    expect(figures.latency).toEqual([{ operation: "retrieve", calls: 1, p50_ms: 42, p95_ms: 42 }])
    expect(figures.callbacks_refused).toBe(4)
    expect(figures.top_declines).toEqual([{ reason_code: "204", reason: "Insufficient funds", count: 1 }])
    const { rows } = await pool.query(`select "id", "transaction_id" from "card_service_event" order by "kind"`)
    // Ids of the module's own prefix; a transaction id on results only.
    expect(rows.every((row) => row.id.startsWith("csevt_"))).toBe(true)
    expect(rows.map((row) => row.transaction_id)).toEqual([null, null, "t-flag"])

    await addEvents({ kind: "callback", name: "refused", at: ago(new Date(), 9 * DAY_MS) })
    await activity.pruneActivity(ago(new Date(), 8 * DAY_MS))
    const left = await pool.query(`select count(*)::int as n from "card_service_event"`)
    expect(left.rows[0].n).toBe(3)
  })

  it("writes what this instance has queued before it counts", async () => {
    publishActivitySink(activity)
    // A callback's answer is tallied for a minute before it is queued.
    recordActivity({ kind: "callback", name: "refused" })
    const figures = await glanceFigures(container({ recording: true }), new Date(Date.now() + 1000), GRACE_MS)
    expect(figures.windows[0].callbacks_refused).toBe(1)
  })
})
