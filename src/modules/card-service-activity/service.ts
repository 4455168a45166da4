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
   * One INSERT per batch. A result is written once per transaction, by
   * whichever instance comes first, with one exception: a result still
   * under review (480) becomes its verdict when the verdict is read (an
   * approval, a rejection) or "review_expired" when the order was canceled
   * for want of one, so that each payment is counted once, by what it
   * finally was (issue 41: an approved review was counted as held for ever
   * and never as an approval). Answers the results written or changed now.
   */
  async insertActivity(rows: ActivityRow[]): Promise<ActivityRow[]> {
    const written: ActivityRow[] = []
    // One statement cannot change a row twice (a review and its verdict in
    // the same second): a transaction's later rows go in the next statement.
    for (const batch of roundsByTransaction(rows)) {
      written.push(...(await this.insertRound_(batch)))
    }
    return written
  }

  protected async insertRound_(rows: ActivityRow[]): Promise<ActivityRow[]> {
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
       on conflict ("transaction_id") where kind = 'result' do update
         set "name" = excluded."name", "reason_code" = excluded."reason_code", "flag" = excluded."flag", "updated_at" = now()
         where "card_service_event"."name" = '${UNDER_REVIEW}' and excluded."name" <> '${UNDER_REVIEW}'
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

/** The result name of a payment held for review (payment-results.ts): the one a later row may change. */
const UNDER_REVIEW = "review"

/**
 * The rows in statements of their own: a transaction's first result goes in
 * the first round, its second in the second, and so on, in queued order.
 */
function roundsByTransaction(rows: ActivityRow[]): ActivityRow[][] {
  const rounds: ActivityRow[][] = []
  const seen = new Map<string, number>()
  for (const row of rows) {
    const id = row.kind === "result" ? row.transaction_id : null
    const round = id ? (seen.get(id) ?? 0) : 0
    if (id) seen.set(id, round + 1)
    ;(rounds[round] ??= []).push(row)
  }
  return rounds
}

function windows(now: Date) {
  return {
    day: new Date(now.getTime() - DAY_MS).toISOString(),
    week: new Date(now.getTime() - 7 * DAY_MS).toISOString(),
  }
}
