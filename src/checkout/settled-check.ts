import type { MedusaContainer } from "@medusajs/framework/types"
import { loadCardServiceSession } from "./provider-lookup"
import { cartOfSession, type SettleHint, type SettleOutcome } from "./settle-payment"

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
): Promise<Extract<SettleOutcome, { kind: "order" }> | null> {
  try {
    const found = await loadCardServiceSession(container, sessionId)
    if (!found) return null
    const data = found.provider.verifySession(found.session.data, found.session.id)
    if (!data?.transaction_id) return null
    if (hint.transactionId && hint.transactionId !== data.transaction_id) return null
    const { cartId, orderId } = await cartOfSession(container, found.session)
    return cartId && orderId ? { kind: "order", orderId, cartId } : null
  } catch {
    return null
  }
}
