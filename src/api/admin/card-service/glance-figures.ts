import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { PROVIDER_ID_PREFIX } from "../../../checkout/provider-lookup"
import { CARD_SERVICE_ACTIVITY_MODULE } from "../../../modules/card-service-activity"
import type CardServiceActivityModuleService from "../../../modules/card-service-activity/service"
import { DAY_MS } from "../../../modules/card-service-activity/service"
import { flushActivity } from "../../../observability/activity-buffer"
import { assembleWindows, type SessionCounts } from "./glance-windows"
import type { GlanceResponse } from "./response-types"

type Knex = { raw(sql: string, bindings: unknown[]): Promise<{ rows: any[] }> }

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
