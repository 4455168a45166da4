import { PaymentSessionStatus } from "@medusajs/framework/utils"

/**
 * Whether this Medusa places an order whose payment is not yet authorized
 * (a payment session in `pending_authorization`): from 2.17.2, which added
 * the status, accepted it in cart completion (validate-cart-payments) and
 * added authorizePaymentSessionForOrderWorkflow, all in one release. On an
 * older Medusa a payment under review leaves the cart as it is until the
 * verdict, as before.
 */
export function ordersOnHoldSupported(): boolean {
  return (
    (PaymentSessionStatus as Record<string, string>).PENDING_AUTHORIZATION ===
    "pending_authorization"
  )
}
