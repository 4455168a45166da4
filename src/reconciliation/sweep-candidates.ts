import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { UNDER_REVIEW_CODE } from "../providers/card-service/status-mapping"

/** The PG_CONNECTION as the sweep's id queries use it. */
export type Knex = { raw(sql: string, bindings: unknown[]): Promise<{ rows: Array<{ id: string }> }> }

/** Statuses a session leaves once it is authorized, captured or canceled. */
export const OPEN_STATUSES = ["pending", "requires_more", "error"] as const

/**
 * The ids of one provider's open sessions that may need the sweep, oldest
 * first, at most `take`:
 *
 * - a result noted (a hint) for another transaction than the one attached;
 * - a transaction attached that has not failed, whose cart has no order or an
 *   order whose completion may have died before recording the payment, or
 *   one under review (480) whose completion may have died before it placed
 *   the order on hold (order-payment.ts, mayLackOrderPayment);
 * - payment attempts with no result, the last one older than the grace
 *   period, not yet shown to the store owner as outcome unknown.
 *
 * The rest need nothing more: carts left at the payment step, declined
 * payments, attempts already shown as outcome unknown. Under steady traffic
 * they outnumber any batch, and a pass over the newest open sessions left a
 * hint noted while an instance died behind them for good (bench:soak).
 * sweepSession (sweep.ts) decides each candidate; this only leaves out what
 * it would pass over.
 */
export async function sessionsToSweep(
  container: MedusaContainer,
  {
    providerId,
    since,
    graceEndedAt,
    take,
  }: { providerId: string; since: Date; graceEndedAt: Date; take: number }
): Promise<string[]> {
  const knex = container.resolve<Knex>(ContainerRegistrationKeys.PG_CONNECTION)
  const { rows } = await knex.raw(
    `select "id" from "payment_session"
      where "provider_id" = ? and "deleted_at" is null
        and "status" in (${OPEN_STATUSES.map(() => "?").join(", ")})
        and "created_at" >= ?
        and (
          exists (
            select 1 from jsonb_array_elements(
              case when jsonb_typeof("metadata"->'card_service'->'hints') = 'array'
                then "metadata"->'card_service'->'hints' else '[]'::jsonb end
            ) as "hint"
            where ("hint"->>'transaction_id') is distinct from ("data"->>'transaction_id')
          )
          or coalesce("data"->>'transaction_id', '') <> ''
            and coalesce("data"->>'state', '') <> 'failed'
            and coalesce(jsonb_typeof("data"->'failure'), 'null') = 'null'
            and coalesce("metadata"->'card_service'->'reconcile'->>'status', '') <> 'not_released'
          or coalesce("data"->>'transaction_id', '') <> ''
            and "status" = 'pending' and "data"->>'state' = 'pending'
            and "data"->'failure'->>'code' = ?
          or coalesce("data"->>'transaction_id', '') = ''
            and coalesce("metadata"->'card_service'->'hints', '[]'::jsonb) = '[]'::jsonb
            and coalesce("metadata"->'card_service'->'attempts', '[]'::jsonb) <> '[]'::jsonb
            and ("metadata"->'card_service'->'attempts'->-1->>'at') <= ?
            and coalesce("metadata"->'card_service'->'reconcile'->>'status', '') <> 'outcome_unknown'
        )
      order by "created_at" asc
      limit ?`,
    [providerId, ...OPEN_STATUSES, since.toISOString(), UNDER_REVIEW_CODE, graceEndedAt.toISOString(), take]
  )
  return rows.map((row) => row.id)
}
