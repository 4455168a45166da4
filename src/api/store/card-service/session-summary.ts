import type { MedusaRequest } from "@medusajs/framework/http"
import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import type { CardServiceSessionState } from "./response-types"
import { failureMessageKey } from "../../../lib/i18n"
import { loadCardServiceSession } from "../../../checkout/provider-lookup"
import { cartOfSession } from "../../../checkout/cart-of-session"
import { shopperText } from "../../../checkout/shopper-text"

/** What a polling storefront needs to know about a session; null if it is not ours. */
export async function summarizeSession(
  container: MedusaContainer,
  sessionId: string,
  /** The storefront's request, whose Accept-Language is the shopper's. */
  req: Pick<MedusaRequest, "headers"> = { headers: {} }
): Promise<CardServiceSessionState | null> {
  const found = await loadCardServiceSession(container, sessionId)
  if (!found) {
    return null
  }
  const { session, provider } = found
  const data = provider.verifySession(session.data, session.id)
  const { cartId, orderId, locale } = await cartOfSession(container, session)
  const text = shopperText(req, provider.options.messages, locale)
  const code = data ? (data.failure?.code ?? null) : "tampered"
  const failure = code
    ? { code, message: text.t(failureMessageKey(code)) }
    : null
  const countryCode = cartId ? await shippingCountry(container, cartId) : null
  return {
    id: session.id,
    status: session.status,
    outcome: orderId
      ? "paid"
      : failure && data?.state !== "pending"
        ? "failed"
        : "pending",
    order_id: orderId,
    cart_id: cartId,
    country_code: countryCode,
    failure,
    pay_url: `${provider.options.backendUrl}/card-service/pay/${session.id}`,
  }
}

/**
 * The cart's shipping country, lower case: a storefront whose paths carry
 * the country (Medusa's starter: /dk/checkout) sends the returning shopper
 * to that country's pages. Every such country is in the cart's region.
 */
async function shippingCountry(
  container: MedusaContainer,
  cartId: string
): Promise<string | null> {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const { data } = await query.graph({
    entity: "cart",
    fields: ["shipping_address.country_code"],
    filters: { id: cartId },
  })
  const code = data[0]?.shipping_address?.country_code
  return typeof code === "string" && /^[a-z]{2}$/i.test(code)
    ? code.toLowerCase()
    : null
}
