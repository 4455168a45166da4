import type { IPaymentModuleService, MedusaContainer, PaymentSessionDTO } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import { settlePayment } from "../checkout/settle-payment"
import { ordersOnHoldSupported } from "../providers/card-service/orders-on-hold"
import type CardServiceProviderService from "../providers/card-service/service"
import { LOOKBACK_MS } from "./gone-sessions"
import type { SessionAction } from "./sweep-types"

/**
 * The sessions of orders on hold (pending_authorization: payment marked for
 * review), oldest first, in a batch of their own so that abandoned checkouts
 * never crowd them out. Looked at until the review's time is over and a week
 * beyond it: a verdict that comes after the order was canceled for want of
 * one is still found and its approval reversed.
 */
export async function listHeldSessions(
  container: MedusaContainer,
  provider: CardServiceProviderService,
  providerId: string,
  now: Date,
  take: number
): Promise<PaymentSessionDTO[]> {
  if (!ordersOnHoldSupported()) return []
  const paymentModule = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
  const since = now.getTime() - provider.options.reviewTimeoutMs - LOOKBACK_MS
  // The payment module filters any column; its filter type names fewer.
  return await paymentModule.listPaymentSessions(
    {
      provider_id: providerId,
      status: "pending_authorization",
      created_at: { $gte: new Date(since).toISOString() },
    } as Record<string, unknown>,
    { take, order: { updated_at: "ASC" } }
  )
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
    return {
      session_id: sessionId,
      status: "order_created",
      message: `the review approved the payment of order ${outcome.orderId}; its payment is authorized`,
    }
  }
  if (outcome.kind === "review_closed") {
    const what = {
      rejected: "the review rejected the payment; the order was canceled and its stock released",
      expired: "no verdict on the review in time; the order was canceled and its stock released",
      reversed: "the review approved the payment after the order was canceled; the approval was reversed",
    }[outcome.verdict]
    return { session_id: sessionId, status: "review_closed", message: `order ${outcome.orderId}: ${what}` }
  }
  return null
}
