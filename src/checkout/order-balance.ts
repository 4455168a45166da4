import type { IPaymentModuleService, MedusaContainer, PaymentSessionDTO } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, MedusaError, Modules, PaymentSessionStatus } from "@medusajs/framework/utils"
import { toMinorUnits } from "../lib/money"
import type { CardServiceSessionData, FailureReason } from "../providers/card-service/session-data"
import { recordCaptures } from "./order-payment"
import type { SettleOutcome } from "./settle-types"

/**
 * An order's own payment collection: what the order owes beyond what its
 * cart paid. Medusa 2.21 makes one when an order edit is confirmed
 * (confirmOrderEditRequestWorkflow runs createOrUpdateOrderPaymentCollectionWorkflow:
 * a collection for the order's pending difference, linked to the order and to
 * no cart), and the store owner adds a payment session to it
 * (`POST /admin/payment-collections/:id/payment-sessions`, or the plugin's
 * admin route). Such a session has no cart to complete: once the service
 * approved it, the session is authorized for the order as Medusa itself does
 * for a collection with no cart (processPaymentWorkflow's
 * authorizePaymentSessionStep: the payment module's authorizePaymentSession,
 * which sets the collection's status), and the captures of a store that
 * captures at once are recorded on the order, as
 * authorizePaymentSessionForOrderWorkflow records them.
 */

/** Collection statuses in which Medusa still waits for the amount. */
export const OPEN_COLLECTION_STATUSES = ["not_paid", "awaiting"] as const

type CollectionRow = {
  id: string
  status: string
  amount?: unknown
  raw_amount?: unknown
  currency_code: string
}

/**
 * Whether the order still owes what the session asks for: its collection
 * open, for the session's amount and currency, and the order not canceled.
 * "changed": the amount owed is another now (a later edit changed the
 * collection, not the session); "closed": nothing is owed under it any more.
 */
export async function balanceStillOwed(
  container: MedusaContainer,
  session: Pick<PaymentSessionDTO, "payment_collection_id" | "amount" | "currency_code">,
  orderId: string
): Promise<"owed" | "changed" | "closed"> {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const [{ data: collections }, { data: orders }] = await Promise.all([
    query.graph({
      entity: "payment_collection",
      fields: ["id", "status", "amount", "raw_amount", "currency_code"],
      filters: { id: session.payment_collection_id },
    }),
    query.graph({ entity: "order", fields: ["id", "status"], filters: { id: orderId } }),
  ])
  const collection = collections[0] as CollectionRow | undefined
  const order = orders[0] as { status?: string } | undefined
  if (!collection || !order || order.status === "canceled") return "closed"
  if (!(OPEN_COLLECTION_STATUSES as readonly string[]).includes(collection.status)) return "closed"
  return sameAmount(collection, session) ? "owed" : "changed"
}

function sameAmount(
  collection: CollectionRow,
  session: Pick<PaymentSessionDTO, "amount" | "currency_code">
): boolean {
  try {
    return (
      collection.currency_code.toLowerCase() === session.currency_code.toLowerCase() &&
      toMinorUnits((collection.raw_amount ?? collection.amount) as never, collection.currency_code).toString() ===
        toMinorUnits(session.amount as never, session.currency_code).toString()
    )
  } catch {
    return false
  }
}

/** The failure a session gets when what it asks for is no longer owed. */
export function balanceFailure(state: "changed" | "closed", orderId: string): FailureReason {
  return state === "changed"
    ? {
        code: "balance_changed",
        message: `the amount order ${orderId} owes changed after this payment link was made; the approval was reversed`,
      }
    : {
        code: "balance_closed",
        message: `order ${orderId} no longer owes this amount (its payment collection or the order was closed); the approval was reversed`,
      }
}

/**
 * Authorizes a verified session of an order's own collection (its
 * transaction attached, no failure) and records its captures on the order.
 * A provider that refuses (the service's record says otherwise) leaves the
 * session failed, as cart completion would.
 */
export async function authorizeForOrder(
  container: MedusaContainer,
  sessionId: string,
  orderId: string
): Promise<SettleOutcome> {
  const paymentModule = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
  try {
    await paymentModule.authorizePaymentSession(sessionId, {})
  } catch (error) {
    if (!MedusaError.isMedusaError(error) || error.type !== MedusaError.Types.NOT_ALLOWED) throw error
    const refused = await paymentModule.retrievePaymentSession(sessionId)
    const failure = (refused.data as Partial<CardServiceSessionData> | null)?.failure
    if (failure) return { kind: "failed", cartId: null, failure }
    throw error
  }
  const authorized = await paymentModule.retrievePaymentSession(sessionId, {
    relations: ["payment", "payment.captures"],
  })
  if (authorized.status !== PaymentSessionStatus.AUTHORIZED) {
    // Deferred by the provider (a review, 480): nothing to record yet.
    return { kind: "pending", cartId: null }
  }
  await recordCaptures(container, authorized, orderId)
  return { kind: "order", orderId, cartId: null, balance: true }
}
