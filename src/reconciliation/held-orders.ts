import type { IPaymentModuleService, MedusaContainer, PaymentSessionDTO } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { settlePayment } from "../checkout/settle-payment"
import { ordersOnHoldSupported } from "../providers/card-service/orders-on-hold"
import type CardServiceProviderService from "../providers/card-service/service"
import { LOOKBACK_MS } from "./gone-sessions"
import type { Knex } from "./sweep-candidates"
import type { SessionAction } from "./sweep-types"

/**
 * The sessions of orders on hold (pending_authorization: payment marked for
 * review) whose next look is due, least recently changed first, in a batch
 * of their own so that abandoned checkouts never crowd them out. Looked at
 * until the review's time is over and a week beyond it: a verdict that comes
 * after the order was canceled for want of one is still found and its
 * approval reversed. Each look that finds nothing new puts the next one off
 * (review-verdict.ts, putOffNextLook) and so moves the session behind the
 * others: sessions that wait long, above all those canceled for want of a
 * verdict, never hold a newer order on hold out of the batch (issue 39: a
 * hundred expired reviews, never changed, stayed at its front for a week).
 */
export async function listHeldSessions(
  container: MedusaContainer,
  provider: CardServiceProviderService,
  providerId: string,
  now: Date,
  take: number
): Promise<PaymentSessionDTO[]> {
  if (!ordersOnHoldSupported()) return []
  const knex = container.resolve<Knex>(ContainerRegistrationKeys.PG_CONNECTION)
  const since = now.getTime() - provider.options.reviewTimeoutMs - LOOKBACK_MS
  const { rows } = await knex.raw(
    `select "id" from "payment_session"
      where "provider_id" = ? and "deleted_at" is null and "status" = 'pending_authorization'
        and "created_at" >= ?
        and coalesce("metadata"->'card_service'->'review_look'->>'next_at', '') <= ?
      order by "updated_at" asc
      limit ?`,
    [providerId, new Date(since).toISOString(), now.toISOString(), take]
  )
  if (!rows.length) return []
  const paymentModule = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
  return await paymentModule.listPaymentSessions({ id: rows.map((row) => row.id) }, { take: rows.length })
}

/**
 * Asks the service about one order on hold, through the callback's own path
 * (settlePayment, then review-verdict.ts): a verdict whose callback was lost
 * is found here, and an order whose review outlasted reviewTimeoutMs is
 * canceled.
 */
export async function sweepHeldOrder(
  container: MedusaContainer,
  sessionId: string,
  now: Date
): Promise<SessionAction | null> {
  const outcome = await settlePayment(container, sessionId, { source: "sweep", at: now })
  if (outcome.kind === "order" && outcome.review === "approved") {
    // review_closed, as the session's note and Needs attention say: the
    // order was made when it was placed on hold (issue 41: the figures and
    // the metric counted this as an order created).
    return {
      session_id: sessionId,
      status: "review_closed",
      message: `order ${outcome.orderId}: the review approved the payment; its payment is authorized`,
    }
  }
  if (outcome.kind === "review_closed" && !outcome.unchanged) {
    if (outcome.verdict === "not_released") {
      return {
        session_id: sessionId,
        status: "not_released",
        message: `order ${outcome.orderId}: the review approved a payment the order cannot take, and the card service refused to reverse it; see Needs attention`,
      }
    }
    const what = {
      rejected: "the review rejected the payment; the order was canceled and its stock released",
      expired: "no verdict on the review in time; the order was canceled and its stock released",
      reversed: "the review approved the payment after the order was canceled; the approval was reversed",
    }[outcome.verdict]
    return { session_id: sessionId, status: "review_closed", message: `order ${outcome.orderId}: ${what}` }
  }
  return null
}
