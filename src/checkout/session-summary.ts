import type { MedusaRequest } from "@medusajs/framework/http"
import type { MedusaContainer } from "@medusajs/framework/types"
import { failureMessageKey } from "../lib/i18n"
import { loadCardServiceSession } from "./provider-lookup"
import { cartOfSession } from "./settle-payment"
import { shopperText } from "./shopper-text"

export type SessionSummary = {
  id: string
  /** Medusa's session status: pending, authorized, captured, error, ... */
  status: string
  /** paid (an order exists), failed, or pending. */
  outcome: "paid" | "failed" | "pending"
  order_id: string | null
  cart_id: string | null
  /**
   * Why the payment failed: `code` for the storefront's logic (a section 7
   * reason code or the plugin's own), `message` a plain sentence for the
   * shopper in their language (cart locale, else Accept-Language).
   */
  failure: { code: string; message: string } | null
  pay_url: string
}

/** What a polling storefront needs to know about a session; null if it is not ours. */
export async function summarizeSession(
  container: MedusaContainer,
  sessionId: string,
  /** The storefront's request, whose Accept-Language is the shopper's. */
  req: Pick<MedusaRequest, "headers"> = { headers: {} }
): Promise<SessionSummary | null> {
  const found = await loadCardServiceSession(container, sessionId)
  if (!found) {
    return null
  }
  const { session, provider } = found
  const data = provider.verifySession(session.data, session.id)
  const { cartId, orderId, locale } = await cartOfSession(container, session)
  const text = shopperText(req, provider.options.messages, locale)
  const code = data ? data.failure?.code ?? null : "tampered"
  const failure = code ? { code, message: text.t(failureMessageKey(code)) } : null
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
