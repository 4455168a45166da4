import type { MedusaContainer } from "@medusajs/framework/types"
import type { CardServiceSessionData } from "../providers/card-service/session-data"
import { loadCardServiceSession } from "./provider-lookup"
import { cartOfSession } from "./cart-of-session"
import type { SettleHint, SettleOutcome } from "./settle-types"
import { readSettledMark, writeSettledMark } from "./settled-marks"

/** A cart's order (a session of an order's own collection is never answered from here). */
type OrderOutcome = Extract<SettleOutcome, { kind: "order" }> & { cartId: string }

/**
 * Read-only, before any lock: the cart is already an order and the hint names
 * the very transaction the session was settled with (or none). A session
 * settled with the hint's transaction is answered from its mark
 * (settled-marks.ts) without reading the database. Settling under
 * the lock would change nothing and answer this same order, so late callback
 * copies and the browser's return need not queue behind a settlement running
 * for the session to learn it. Every other case (another transaction, which
 * may be a second tab's approval to reverse; no order yet; a read that fails)
 * is left to the locked path, which is the one that decides about money.
 */
export async function settledAlready(
  container: MedusaContainer,
  sessionId: string,
  hint: SettleHint
): Promise<OrderOutcome | null> {
  return (await lookBeforeLock(container, sessionId, hint)).settled
}

/**
 * settledAlready, with the session's payment collection as read (null when
 * the session was not found or the read failed): the callback notes a hint
 * there when its settlement fails, even if the cart changed meanwhile and
 * Medusa deleted the session.
 */
export async function lookBeforeLock(
  container: MedusaContainer,
  sessionId: string,
  hint: SettleHint
): Promise<{ settled: OrderOutcome | null; collectionId: string | null }> {
  let collectionId: string | null = null
  const mark = await readSettledMark(container, sessionId, hint.transactionId)
  if (mark) return { settled: { kind: "order", orderId: mark.orderId, cartId: mark.cartId }, collectionId }
  try {
    // Only the seal is checked here (the sealer is medusa-config.ts's).
    const found = await loadCardServiceSession(container, sessionId, { refreshSettings: false })
    if (!found) return { settled: null, collectionId }
    collectionId = found.session.payment_collection_id ?? null
    const data = found.provider.verifySession(found.session.data, found.session.id)
    if (!data?.transaction_id) return { settled: null, collectionId }
    const cart = await cartOfSession(container, found.session)
    const settled = settledOrder(data, cart, hint, found.session)
    // Settled without this plugin's settlement marking it (the storefront
    // completed the cart, or the mark expired or lives on another instance's
    // cache): marked now, so the next copy and the return need no reads.
    if (settled) {
      await writeSettledMark(container, sessionId, {
        transactionId: data.transaction_id,
        orderId: settled.orderId,
        cartId: settled.cartId,
        locale: cart.locale,
      })
    }
    return { settled, collectionId }
  } catch {
    return { settled: null, collectionId }
  }
}

/**
 * settledAlready for a caller that has read the session (verified) and its
 * cart. An order whose session Medusa never authorized is not settled: its
 * completion stopped before recording the payment, which the locked path
 * finishes (order-payment.ts).
 */
export function settledOrder(
  data: CardServiceSessionData | null,
  cart: { cartId: string | null; orderId: string | null },
  hint: SettleHint,
  session: { authorized_at?: Date | string | null }
): OrderOutcome | null {
  if (!data?.transaction_id || !session.authorized_at) return null
  if (hint.transactionId && hint.transactionId !== data.transaction_id) return null
  return cart.cartId && cart.orderId ? { kind: "order", orderId: cart.orderId, cartId: cart.cartId } : null
}
