import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { PROVIDER_ID_PREFIX } from "../../../checkout/provider-lookup"
import { plainReason } from "../../../lib/payment-results"
import { CARD_SERVICE_ACTIVITY_MODULE } from "../../../modules/card-service-activity"
import type CardServiceActivityModuleService from "../../../modules/card-service-activity/service"
import {
  DAY_MS,
  type EventCount,
  type LatencyRow,
} from "../../../modules/card-service-activity/service"
import { flushActivity } from "../../../observability/activity-buffer"
import type { GlanceResponse, GlanceWindow } from "./response-types"

type Knex = { raw(sql: string, bindings: unknown[]): Promise<{ rows: any[] }> }

/** Started sessions, and those abandoned, for one window. */
export type SessionCounts = { started: number; abandoned: number }

const WINDOWS = [
  { window: "24h", key: "day" },
  { window: "7d", key: "week" },
] as const

/**
 * "Payments at a glance" from the database, so every instance shows the
 * same figures: sessions from Medusa's payment_session rows (no write of
 * ours), the rest from the plugin's events (card_service_event, written by
 * the activity module). What this instance has queued is written first.
 */
export async function glanceFigures(
  container: MedusaContainer,
  now: Date,
  abandonedAfterMs: number
): Promise<GlanceResponse> {
  const activity = container.hasRegistration(CARD_SERVICE_ACTIVITY_MODULE)
    ? container.resolve<CardServiceActivityModuleService>(CARD_SERVICE_ACTIVITY_MODULE)
    : null
  if (activity) await flushActivity()
  const [sessions, events, latency] = await Promise.all([
    sessionCounts(container, now, abandonedAfterMs),
    activity ? activity.eventCounts(now) : Promise.resolve([]),
    activity ? activity.latency(now) : Promise.resolve([]),
  ])
  return {
    recording: activity !== null,
    abandoned_after_minutes: Math.round(abandonedAfterMs / 60_000),
    generated_at: now.toISOString(),
    windows: assembleWindows(sessions, events, latency),
  }
}

/**
 * One pass over the card-service sessions of the last week. Medusa's
 * payment_session has no index on created_at or provider_id, so this reads
 * the table once per page view (a session's result: its data names a
 * transaction once one was reported and checked).
 */
async function sessionCounts(
  container: MedusaContainer,
  now: Date,
  abandonedAfterMs: number
): Promise<Record<"day" | "week", SessionCounts>> {
  const knex = container.resolve<Knex>(ContainerRegistrationKeys.PG_CONNECTION)
  const { rows } = await knex.raw(
    `select ("created_at" >= ?) as "in_day",
       ("status" not in ('authorized', 'captured')
         and coalesce("data"->>'transaction_id', '') = ''
         and "created_at" < ?) as "abandoned",
       count(*)::int as "n"
     from "payment_session"
     where left("provider_id", ?) = ? and "created_at" >= ? and "created_at" <= ? and "deleted_at" is null
     group by 1, 2`,
    [
      new Date(now.getTime() - DAY_MS).toISOString(),
      new Date(now.getTime() - abandonedAfterMs).toISOString(),
      PROVIDER_ID_PREFIX.length,
      PROVIDER_ID_PREFIX,
      new Date(now.getTime() - 7 * DAY_MS).toISOString(),
      now.toISOString(),
    ]
  )
  const counts = { day: { started: 0, abandoned: 0 }, week: { started: 0, abandoned: 0 } }
  for (const row of rows) {
    const n = Number(row.n)
    counts.week.started += n
    if (row.abandoned) counts.week.abandoned += n
    if (row.in_day) {
      counts.day.started += n
      if (row.abandoned) counts.day.abandoned += n
    }
  }
  return counts
}

/** Pure: the two windows from the session counts and the event aggregates. */
export function assembleWindows(
  sessions: Record<"day" | "week", SessionCounts>,
  events: EventCount[],
  latency: LatencyRow[]
): GlanceWindow[] {
  return WINDOWS.map(({ window, key }) => {
    const count = (kind: string, names?: string[]) =>
      events
        .filter((e) => e.kind === kind && (!names || names.includes(e.name)))
        .reduce((sum, e) => sum + e[key], 0)
    const results = (name: string) => count("result", [name])
    const approved = results("approved")
    const allResults = count("result")
    const declines = new Map<string, number>()
    for (const e of events) {
      if (e.kind === "result" && e.name === "declined" && e[key] > 0) {
        const code = e.reason_code ?? "?"
        declines.set(code, (declines.get(code) ?? 0) + e[key])
      }
    }
    const sweep = new Map<string, number>()
    for (const e of events) {
      if (e.kind === "sweep" && e[key] > 0) sweep.set(e.name, (sweep.get(e.name) ?? 0) + e[key])
    }
    return {
      window,
      started: sessions[key].started,
      approved,
      declined: results("declined"),
      three_ds_failed: results("3ds_failed"),
      under_review: results("review"),
      errors: results("error"),
      top_declines: [...declines.entries()]
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .slice(0, 5)
        .map(([code, n]) => ({ reason_code: code, reason: plainReason(code), count: n })),
      abandoned: sessions[key].abandoned,
      approval_rate: allResults ? approved / allResults : null,
      latency: latency
        .filter((row) => row.window === key)
        .sort((a, b) => b.p95 - a.p95 || a.operation.localeCompare(b.operation))
        .map((row) => ({
          operation: row.operation,
          calls: row.calls,
          p50_ms: Math.round(row.p50 * 10) / 10,
          p95_ms: Math.round(row.p95 * 10) / 10,
        })),
      callbacks_refused: count("callback", ["refused", "ignored"]),
      callbacks_unavailable: count("callback", ["unavailable"]),
      sweep_actions: count("sweep"),
      sweep_by_status: [...sweep.entries()]
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .map(([status, n]) => ({ status, count: n })),
    }
  })
}
