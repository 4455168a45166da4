import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { billingFromCart, paymentFormFields } from "../providers/card-service/form-fields"
import type { CardServiceSessionData } from "../providers/card-service/session-data"
import type CardServiceProviderService from "../providers/card-service/service"
import { recordAttempt } from "../payment-notes/session-notes"
import { CallBudgetExceeded } from "./call-budget"
import { formCodeFor } from "./form-codes"
import { loadCardServiceSession } from "./provider-lookup"
import { cartOfSession } from "./cart-of-session"
import { matchesMedusaRecord } from "./medusa-record"
import { balanceStillOwed } from "./order-balance"

export type PaymentAttempt =
  | {
      kind: "ready"
      sessionId: string
      data: CardServiceSessionData
      provider: CardServiceProviderService
      /** The service's /order/start. */
      action: string
      /** Every hidden field, including a fresh reference and the verification code. */
      fields: Record<string, string>
      /** The cart's locale, when the storefront set one. */
      cartLocale: string | null
    }
  /** No session by that id, or not the card service's. */
  | { kind: "unknown" }
  /** Already paid: an order exists or the session is authorized. */
  | { kind: "finished"; orderId: string | null; provider: CardServiceProviderService; cartLocale: string | null }
  /** The session's data does not carry a valid seal. */
  | { kind: "tampered"; provider: CardServiceProviderService; cartLocale: string | null }
  /** Too many service calls for anonymous requests just now (call-budget.ts): try again shortly. */
  | { kind: "busy"; provider: CardServiceProviderService; cartLocale: string | null }

/**
 * Everything one payment attempt needs, for the hosted page and for a custom
 * storefront's form. Each call makes a fresh merchantReferenceCode, because
 * the service declines a reference it saw in the last 15 minutes (section 8).
 */
export async function preparePaymentAttempt(
  container: MedusaContainer,
  sessionId: string
): Promise<PaymentAttempt> {
  const found = await loadCardServiceSession(container, sessionId)
  if (!found) {
    return { kind: "unknown" }
  }
  const { session, provider } = found
  const { cartId, orderId, locale, balanceOf } = await cartOfSession(container, session)
  if (orderId || session.status === "authorized" || session.status === "captured") {
    return { kind: "finished", orderId: orderId ?? balanceOf ?? null, provider, cartLocale: locale }
  }
  const data = provider.verifySession(session.data, session.id)
  // Sealed terms Medusa does not record for the session are not paid for:
  // settlement would refuse the approval (settle-payment.ts).
  if (!data || !matchesMedusaRecord(data, session)) {
    return { kind: "tampered", provider, cartLocale: locale }
  }
  if (balanceOf) {
    // What an order edit left owing: only while the order still owes it.
    const owed = await balanceStillOwed(container, session, balanceOf)
    if (owed === "closed") return { kind: "unknown" }
    if (owed === "changed") return { kind: "tampered", provider, cartLocale: locale }
  }

  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  // The billing fields come from the cart, or for an order's outstanding
  // amount from the order.
  const billingSource = cartId ? { entity: "cart", id: cartId } : balanceOf ? { entity: "order", id: balanceOf } : null
  const { data: carts } = billingSource
    ? await query.graph({
        entity: billingSource.entity,
        fields: ["id", "email", "billing_address.*", "shipping_address.*"],
        filters: { id: billingSource.id },
      })
    : { data: [] }

  let authorization: string
  try {
    authorization = await formCodeFor(provider, session.id)
  } catch (error) {
    if (error instanceof CallBudgetExceeded) {
      return { kind: "busy", provider, cartLocale: locale }
    }
    throw error
  }
  const merchantReferenceCode = provider.newReference(session.id)
  // Kept so that an attempt whose result never arrives can be looked up at
  // the service by the store owner (the sweep's "outcome unknown").
  await recordAttempt(container, session.id, merchantReferenceCode)
  const fields = paymentFormFields(
    data,
    { merchantReferenceCode, authorization },
    carts[0] ? billingFromCart(carts[0]) : {}
  )
  return {
    kind: "ready",
    sessionId: session.id,
    data,
    provider,
    action: data.form.action,
    fields,
    cartLocale: locale,
  }
}
