import { generateEntityId, MedusaService } from "@medusajs/framework/utils"
import {
  flushActivity,
  publishActivitySink,
  type ActivityRow,
  type ActivitySink,
} from "../../observability/activity-buffer"
import { CardServiceEvent } from "./models/card-service-event"

type Manager = { execute(sql: string, params?: unknown[]): Promise<any[]> }

/** Counts of events other than calls, per kind, name and reason code, in the last day and week. */
export type EventCount = {
  kind: string
  name: string
  reason_code: string | null
  day: number
  week: number
}

/** Service-call latency per operation and window. */
export type LatencyRow = {
  operation: string
  window: "day" | "week"
  calls: number
  p50: number
  p95: number
}

/**
 * The plugin's events for the admin's "Payments at a glance"
 * (src/observability/activity-buffer.ts queues them; this writes them in one
 * statement per batch and reads them back aggregated). The queue reaches
 * this module through the sink it publishes when Medusa constructs it.
 */
export default class CardServiceActivityModuleService
  extends MedusaService({ CardServiceEvent })
  implements ActivitySink
{
  protected readonly manager_: Manager
  readonly __hooks = {
    // What is queued is written before the instance stops.
    onApplicationPrepareShutdown: () => flushActivity(),
  }

  constructor(container: { manager: Manager }) {
    // @ts-ignore MedusaService's constructor takes the module's cradle.
    super(...arguments)
    this.manager_ = container.manager
    publishActivitySink(this)
  }

  /**
   * One INSERT for the batch; a result whose transaction is already written
   * (by this or another instance) is skipped. Answers the results written now.
   */
  async insertActivity(rows: ActivityRow[]): Promise<ActivityRow[]> {
    const records = rows.map((row) => ({
      id: generateEntityId(undefined, "csevt"),
      kind: row.kind,
      name: row.name,
      reason_code: row.reason_code ?? null,
      flag: row.flag ?? null,
      http_status: row.http_status ?? null,
      duration_ms: row.duration_ms ?? null,
      transaction_id: row.kind === "result" ? (row.transaction_id ?? null) : null,
      count: row.count ?? 1,
    }))
    const inserted = await this.manager_.execute(
      `insert into "card_service_event" ("id", "kind", "name", "reason_code", "flag", "http_status", "duration_ms", "transaction_id", "count")
       select r.id, r.kind, r.name, r.reason_code, r.flag, r.http_status, r.duration_ms, r.transaction_id, r.count
       from jsonb_to_recordset(?::jsonb) as r("id" text, "kind" text, "name" text, "reason_code" text, "flag" text, "http_status" integer, "duration_ms" real, "transaction_id" text, "count" integer)
       on conflict ("transaction_id") where kind = 'result' do nothing
       returning "kind", "name", "reason_code", "flag", "transaction_id"`,
      [JSON.stringify(records)]
    )
    return inserted.filter((row) => row.kind === "result") as ActivityRow[]
  }

  async pruneActivity(before: Date): Promise<void> {
    await this.manager_.execute(`delete from "card_service_event" where "created_at" < ?`, [
      before.toISOString(),
    ])
  }

  /**
   * Events other than calls, counted for the day and the week before `now`.
   * A row stands for `count` events (a minute's tally, activity-buffer.ts).
   */
  async eventCounts(now: Date): Promise<EventCount[]> {
    const { day, week } = windows(now)
    const rows = await this.manager_.execute(
      `select "kind", "name", "reason_code",
         coalesce(sum("count") filter (where "created_at" >= ?), 0)::int as "day",
         sum("count")::int as "week"
       from "card_service_event"
       where "created_at" >= ? and "created_at" <= ? and "kind" <> 'call'
       group by "kind", "name", "reason_code"`,
      [day, week, now.toISOString()]
    )
    return rows as EventCount[]
  }

  /**
   * p50 and p95 of the service calls' durations per operation, for the day
   * and the week. A sampled call row stands for `count` calls of its minute
   * (activity-buffer.ts) and is read that many times, so the number of calls
   * is exact and a busy minute weighs what it did.
   */
  async latency(now: Date): Promise<LatencyRow[]> {
    const { day, week } = windows(now)
    const rows = await this.manager_.execute(
      `select e."name" as "operation", w."label" as "window", count(*)::int as "calls",
         percentile_cont(0.5) within group (order by e."duration_ms") as "p50",
         percentile_cont(0.95) within group (order by e."duration_ms") as "p95"
       from "card_service_event" e
       cross join lateral generate_series(1, e."count") as copies("n")
       join (values ('day', ?::timestamptz), ('week', ?::timestamptz)) as w("label", "since")
         on e."created_at" >= w."since"
       where e."kind" = 'call' and e."created_at" >= ? and e."created_at" <= ?
       group by e."name", w."label"`,
      [day, week, week, now.toISOString()]
    )
    return rows.map((row) => ({ ...row, p50: Number(row.p50), p95: Number(row.p95) }))
  }
}

export const DAY_MS = 24 * 60 * 60 * 1000

function windows(now: Date) {
  return {
    day: new Date(now.getTime() - DAY_MS).toISOString(),
    week: new Date(now.getTime() - 7 * DAY_MS).toISOString(),
  }
}
