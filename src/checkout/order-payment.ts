import type {
  ILockingModule,
  IOrderModuleService,
  IPaymentModuleService,
  MedusaContainer,
  PaymentSessionDTO,
} from "@medusajs/framework/types"
import { Modules, PaymentSessionStatus } from "@medusajs/framework/utils"
import { randomUUID } from "node:crypto"
import type { CardServiceSessionData } from "../providers/card-service/session-data"

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
 * dead one's lapses with its two-minute TTL. Until then this throws
 * OrderPaymentPending.
 *
 * Nothing is done for a session already authorized (the completion
 * finished), one with no transaction, or one whose transaction failed.
 */
export async function finishOrderPayment(
  container: MedusaContainer,
  session: Pick<PaymentSessionDTO, "id"> & { authorized_at?: Date | string | null },
  data: CardServiceSessionData | null,
  cart: { cartId: string; orderId: string }
): Promise<"finished" | "nothing_to_do"> {
  if (session.authorized_at || !data?.transaction_id || data.failure || data.state === "failed") {
    return "nothing_to_do"
  }
  const locking = container.resolve<ILockingModule>(Modules.LOCKING)
  const ownerId = `card-service:order-payment:${randomUUID()}`
  try {
    await locking.acquire(cart.cartId, { ownerId, expire: CART_LOCK_SECONDS })
  } catch {
    throw new OrderPaymentPending(cart.cartId)
  }
  try {
    const paymentModule = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
    // Read again under the lock: the completion may have finished meanwhile.
    const current = await paymentModule.retrievePaymentSession(session.id, {
      relations: ["payment", "payment.captures"],
    })
    if (current.authorized_at && current.payment) {
      await recordCaptures(container, current, cart.orderId)
      return "nothing_to_do"
    }
    await paymentModule.authorizePaymentSession(session.id, {})
    const authorized = await paymentModule.retrievePaymentSession(session.id, {
      relations: ["payment", "payment.captures"],
    })
    if (authorized.status !== PaymentSessionStatus.AUTHORIZED) {
      throw new Error(`payment session ${session.id} of order ${cart.orderId} was not authorized (${authorized.status})`)
    }
    await recordCaptures(container, authorized, cart.orderId)
    return "finished"
  } finally {
    await locking.release(cart.cartId, { ownerId }).catch(() => undefined)
  }
}

/** Longer than finishing one payment takes; Medusa's completion holds the same key for up to 120 s. */
const CART_LOCK_SECONDS = 60

/** The order transactions completeCartWorkflow records for a payment's captures, those it lacks. */
async function recordCaptures(
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
