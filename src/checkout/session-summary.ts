import type { MedusaContainer } from "@medusajs/framework/types"
import type { CardServiceSessionState } from "../api/store/card-service/response-types"
import { loadCardServiceSession } from "./provider-lookup"
import { cartOfSession } from "./settle-payment"

/** What a polling storefront needs to know about a session; null if it is not ours. */
export async function summarizeSession(
  container: MedusaContainer,
  sessionId: string
): Promise<CardServiceSessionState | null> {
  const found = await loadCardServiceSession(container, sessionId)
  if (!found) {
    return null
  }
  const { session, provider } = found
  const data = provider.verifySession(session.data, session.id)
  const { cartId, orderId } = await cartOfSession(container, session)
  const failure = data?.failure
    ? { code: data.failure.code, message: data.failure.message }
    : data
      ? null
      : { code: "tampered", message: "the payment session data was altered; start a new payment" }
  return {
    id: session.id,
    status: session.status,
    outcome: orderId ? "paid" : failure && data?.state !== "pending" ? "failed" : "pending",
    order_id: orderId,
    cart_id: cartId,
    failure,
    pay_url: `${provider.options.backendUrl}/card-service/pay/${session.id}`,
  }
}
