import type {
  ILockingModule,
  IOrderModuleService,
  IPaymentModuleService,
  MedusaContainer,
  PaymentSessionDTO,
} from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules, PaymentSessionStatus } from "@medusajs/framework/utils"
import type { CardServiceSessionData } from "../providers/card-service/session-data"
import { isUnderReview } from "../providers/card-service/status-mapping"
import { sessionRowWriter } from "../payment-notes/session-notes"
import { leasedLock } from "../lib/lock-lease"

/**
 * Thrown when a cart's order exists without its payment and the cart is
 * still locked by a completion: the caller answers as for any failure that
 * passes (the callback non-2xx so the service delivers again, the return
 * "pending", the sweep on its next pass).
 */
export class OrderPaymentPending extends Error {
  constructor(cartId: string) {
    super(`the order of cart ${cartId} has no payment yet and the cart is still being completed`)
    this.name = "OrderPaymentPending"
  }
}

/**
 * Medusa's cart completion creates the order first and authorizes the
 * payment session at its very end (core-flows completeCartWorkflow). A
 * Medusa instance that dies between the two (SIGKILL, a crash, a redeploy)
 * leaves an order with no payment, while the service holds the shopper's
 * approval: the order looks unpaid and the money is neither captured nor
 * released. Every later completion of the cart finds the order and stops, so
 * nothing in Medusa finishes it.
 *
 * This finishes it as that completion would have: the session is authorized
 * through Medusa's payment module (the provider checks the approval with the
 * service, and captures it when the store captures automatically) and the
 * captures are recorded on the order, as its completion records them
 * (addOrderTransactionStep). Only while holding the cart's lock, under the
 * key and owner Medusa's completion takes it with: a completion still under
 * way holds it until it is done (it authorizes before it releases), and a
 * dead one's lapses with its two-minute TTL. The lock is waited for a few
 * seconds (Medusa's locking `execute`, whose lease is renewed while held);
 * not taken by then, this throws OrderPaymentPending.
 *
 * Nothing is done for a session already authorized (the completion
 * finished), one with no transaction, or one whose transaction failed.
 *
 * "order_gone": the cart's link named an order that does not exist, and the
 * link is gone now too (orderGone below); the caller completes the cart as
 * one without an order.
 *
 * "on_hold": the session's payment is under review (480) and the order is
 * on hold, or is now: a completion that died before it placed the order on
 * hold left the session `pending`, and it is marked `pending_authorization`
 * as that completion's authorization would have marked it (Medusa's payment
 * module does no more for that status); the caller applies the review's
 * verdict (review-verdict.ts).
 */
export async function finishOrderPayment(
  container: MedusaContainer,
  session: Pick<PaymentSessionDTO, "id" | "payment_collection_id"> & {
    authorized_at?: Date | string | null
    status?: string
  },
  data: CardServiceSessionData | null,
  cart: { cartId: string; orderId: string }
): Promise<"finished" | "nothing_to_do" | "order_gone" | "on_hold"> {
  if (!mayLackOrderPayment(session, data)) return "nothing_to_do"
  const locking = container.resolve<ILockingModule>(Modules.LOCKING)
  let holding = false
  try {
    return await locking.execute(
      cart.cartId,
      async () => {
        holding = true
        if (await orderGone(container, session.payment_collection_id, cart)) return "order_gone"
        return await finishUnderCartLock(container, session.id, cart.orderId, data)
      },
      leasedLock(CART_WAIT_SECONDS)
    )
  } catch (error) {
    // Not taken within the wait: a completion holds the cart.
    if (!holding) throw new OrderPaymentPending(cart.cartId)
    throw error
  }
}

/**
 * Whether the order of a session's cart may lack the session's payment:
 * Medusa never authorized the session, and its data names a transaction
 * that did not fail, or one under review whose order was never placed on
 * hold. (Whether the cart is an order is the caller's read.)
 */
export function mayLackOrderPayment(
  session: { authorized_at?: Date | string | null; status?: string },
  data: CardServiceSessionData | null
): boolean {
  if (session.authorized_at || !data?.transaction_id) return false
  return (!data.failure && data.state !== "failed") || diedBeforeHold(session, data)
}

/**
 * A session whose transaction is under review (480) and which Medusa's
 * completion never marked `pending_authorization`: its order exists (the
 * caller's read) but the completion died before it authorized the session
 * (bench:soak, issue 33: an instance killed in the middle). Without the
 * mark, the verdict found an order that is not on hold, and nothing applied
 * it: an approval stayed held, a rejected order stayed open.
 */
function diedBeforeHold(session: { status?: string }, data: CardServiceSessionData): boolean {
  return session.status === "pending" && data.state === "pending" && isUnderReview(data.failure?.code ?? "")
}

/**
 * How long Medusa's cart completion may hold the cart: its lock's TTL
 * (completeCartWorkflow's acquireLockStep, two minutes).
 */
export const COMPLETION_LOCK_MS = 120_000

/**
 * How long to wait for the cart's lock: a completion still running usually
 * authorizes and lets go within this (the order then needs nothing); a dead
 * one's lock outlasts it, and the caller tries again later.
 */
const CART_WAIT_SECONDS = 5

/**
 * Whether the order the cart's link names is gone; if so, the links its
 * completion made to the cart and the payment collection are dismissed.
 *
 * Medusa's completion creates the order, then links it to the cart and the
 * payment collection; when a later step fails, its compensation deletes the
 * order (createOrdersStep: deleteOrders) and dismisses the links, each in
 * its own step. The soak (issue 33, database connections cut while carts
 * were completing) left links to orders that no longer existed: every later
 * completion of the cart answered that order without making one (it reads
 * the cart's link first), and the payment was authorized and captured for
 * an order nobody has. Dismissing the dead links lets the cart be completed
 * again into a real order. Only the two links that name the cart and its
 * payment collection: Link.delete on the order would cascade to the
 * payment collection (order-payment-collection's deleteCascade).
 */
async function orderGone(
  container: MedusaContainer,
  paymentCollectionId: string,
  { cartId, orderId }: { cartId: string; orderId: string }
): Promise<boolean> {
  const orders = container.resolve<IOrderModuleService>(Modules.ORDER)
  const [found] = await orders.listOrders({ id: orderId }, { select: ["id"], take: 1 })
  if (found) return false
  await container.resolve(ContainerRegistrationKeys.LINK).dismiss([
    { [Modules.ORDER]: { order_id: orderId }, [Modules.CART]: { cart_id: cartId } },
    { [Modules.ORDER]: { order_id: orderId }, [Modules.PAYMENT]: { payment_collection_id: paymentCollectionId } },
  ])
  return true
}

async function finishUnderCartLock(
  container: MedusaContainer,
  sessionId: string,
  orderId: string,
  data: CardServiceSessionData | null
): Promise<"finished" | "nothing_to_do" | "on_hold"> {
  const paymentModule = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
  const withPayment = { relations: ["payment", "payment.captures"] }
  // Read again under the lock: the completion may have finished meanwhile.
  const current = await paymentModule.retrievePaymentSession(sessionId, withPayment)
  await linkOrderToCollection(container, orderId, current.payment_collection_id)
  if (current.authorized_at) {
    await recordCaptures(container, current, orderId)
    return "nothing_to_do"
  }
  if (current.status === PaymentSessionStatus.PENDING_AUTHORIZATION) return "on_hold"
  if (data && diedBeforeHold(current, data)) {
    await sessionRowWriter(paymentModule).update({ id: sessionId, status: PaymentSessionStatus.PENDING_AUTHORIZATION })
    return "on_hold"
  }
  await paymentModule.authorizePaymentSession(sessionId, {})
  const authorized = await paymentModule.retrievePaymentSession(sessionId, withPayment)
  if (authorized.status !== PaymentSessionStatus.AUTHORIZED) {
    throw new Error(`payment session ${sessionId} of order ${orderId} was not authorized (${authorized.status})`)
  }
  await recordCaptures(container, authorized, orderId)
  return "finished"
}

/**
 * The link between the order and the cart's payment collection, made when
 * it is missing. Medusa's completion links the order to the cart and to the
 * payment collection in steps of their own, after it creates the order and
 * before it authorizes: a completion that died in between (bench:crash-points,
 * issue 42) left an order whose payment, once authorized here, Medusa did not
 * count as the order's. The order looked unpaid while the service held (and,
 * capturing automatically, took) the shopper's money.
 */
async function linkOrderToCollection(container: MedusaContainer, orderId: string, paymentCollectionId: string): Promise<void> {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const { data: links } = await query.graph({
    entity: "order_payment_collection",
    fields: ["order_id"],
    filters: { payment_collection_id: paymentCollectionId },
  })
  if (links.some((link: { order_id?: string }) => link.order_id === orderId)) return
  await container.resolve(ContainerRegistrationKeys.LINK).create({
    [Modules.ORDER]: { order_id: orderId },
    [Modules.PAYMENT]: { payment_collection_id: paymentCollectionId },
  })
}

/**
 * The order a cart's completion made and linked to the cart's payment
 * collection, but not to the cart: the completion died between its two link
 * steps (bench:crash-points, issue 42). The cart has no order then, and
 * completing it again fails for good ("Cannot create multiple links between
 * 'order' and 'payment'"): the collection has its order already. The cart is
 * linked to that order, as the completion would have, and the order is
 * returned; null when the collection has no order.
 */
export async function relinkCartOrder(container: MedusaContainer, cartId: string, paymentCollectionId: string): Promise<string | null> {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const { data: links } = await query.graph({
    entity: "order_payment_collection",
    fields: ["order_id"],
    filters: { payment_collection_id: paymentCollectionId },
  })
  const orderId: string | undefined = links[0]?.order_id
  if (!orderId) return null
  await container.resolve(ContainerRegistrationKeys.LINK).create({
    [Modules.ORDER]: { order_id: orderId },
    [Modules.CART]: { cart_id: cartId },
  })
  return orderId
}

/** The order transactions completeCartWorkflow records for a payment's captures, those it lacks. */
export async function recordCaptures(
  container: MedusaContainer,
  session: Pick<PaymentSessionDTO, "payment">,
  orderId: string
): Promise<void> {
  const payment = session.payment
  const captures = payment?.captures ?? []
  if (!payment || !captures.length) return
  const orders = container.resolve<IOrderModuleService>(Modules.ORDER)
  const existing = await orders.listOrderTransactions(
    { order_id: orderId, reference: "capture", reference_id: captures.map((capture) => capture.id) },
    { select: ["reference_id"] }
  )
  const recorded = new Set(existing.map((transaction) => transaction.reference_id))
  const missing = captures.filter((capture) => !recorded.has(capture.id))
  if (!missing.length) return
  await orders.addOrderTransactions(
    missing.map((capture) => ({
      order_id: orderId,
      amount: (capture as { raw_amount?: unknown }).raw_amount ?? capture.amount,
      currency_code: payment.currency_code,
      reference: "capture",
      reference_id: capture.id,
    })) as never
  )
}
