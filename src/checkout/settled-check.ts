import type { MedusaContainer } from "@medusajs/framework/types"
import type { CardServiceSessionData } from "../providers/card-service/session-data"
import { loadCardServiceSession } from "./provider-lookup"
import { cartOfSession, type SettleHint, type SettleOutcome } from "./settle-payment"

type OrderOutcome = Extract<SettleOutcome, { kind: "order" }>

/**
 * Read-only, before any lock: the cart is already an order and the hint names
 * the very transaction the session was settled with (or none). Settling under
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
  try {
    const found = await loadCardServiceSession(container, sessionId)
    if (!found) return null
    const data = found.provider.verifySession(found.session.data, found.session.id)
    if (!data?.transaction_id) return null
    return settledOrder(data, await cartOfSession(container, found.session), hint)
  } catch {
    return null
  }
}

/** settledAlready for a caller that has read the session (verified) and its cart. */
export function settledOrder(
  data: CardServiceSessionData | null,
  cart: { cartId: string | null; orderId: string | null },
  hint: SettleHint
): OrderOutcome | null {
  if (!data?.transaction_id) return null
  if (hint.transactionId && hint.transactionId !== data.transaction_id) return null
  return cart.cartId && cart.orderId ? { kind: "order", orderId: cart.orderId, cartId: cart.cartId } : null
}
