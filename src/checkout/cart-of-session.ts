import type { MedusaContainer, PaymentSessionDTO } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"

/** The cart a payment session pays for, its order (when placed), and what the shopper's pages need of it. */
export async function cartOfSession(
  container: MedusaContainer,
  session: Pick<PaymentSessionDTO, "payment_collection_id">
): Promise<{
  cartId: string | null
  orderId: string | null
  email: string | null
  /** The cart's BCP 47 locale, when the storefront set one: the shopper's language. */
  locale: string | null
}> {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const { data: links } = await query.graph({
    entity: "cart_payment_collection",
    fields: ["cart_id"],
    filters: { payment_collection_id: session.payment_collection_id },
  })
  const cartId: string | null = links[0]?.cart_id ?? null
  if (!cartId) {
    return { cartId: null, orderId: null, email: null, locale: null }
  }
  const [{ data: carts }, { data: orders }] = await Promise.all([
    query.graph({ entity: "cart", fields: ["id", "email", "locale"], filters: { id: cartId } }),
    query.graph({ entity: "order_cart", fields: ["order_id"], filters: { cart_id: cartId } }),
  ])
  return {
    cartId,
    orderId: orders[0]?.order_id ?? null,
    email: carts[0]?.email ?? null,
    locale: carts[0]?.locale ?? null,
  }
}
