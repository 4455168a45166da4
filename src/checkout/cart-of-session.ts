import type { MedusaContainer, PaymentSessionDTO } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"

/** The cart a payment session pays for, its order (when placed), and what the shopper's pages need of it. */
export async function cartOfSession(
  container: MedusaContainer,
  session: Pick<PaymentSessionDTO, "payment_collection_id">
): Promise<{
  cartId: string | null
  /** The cart's order, once the cart became one. */
  orderId: string | null
  email: string | null
  /** The cart's BCP 47 locale, when the storefront set one: the shopper's language. */
  locale: string | null
  /**
   * No cart: the order whose own payment collection this is, the amount an
   * order edit left owing (order-balance.ts). The order exists before this
   * session is paid, so it is not `orderId`.
   */
  balanceOf?: string | null
}> {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const { data: links } = await query.graph({
    entity: "cart_payment_collection",
    fields: ["cart_id"],
    filters: { payment_collection_id: session.payment_collection_id },
  })
  const cartId: string | null = links[0]?.cart_id ?? null
  if (!cartId) {
    // Medusa links a cart's collection to its order too, so only a
    // collection with no cart is read for an order of its own.
    const { data: owners } = await query.graph({
      entity: "order_payment_collection",
      fields: ["order_id"],
      filters: { payment_collection_id: session.payment_collection_id },
    })
    const balanceOf: string | null = owners[0]?.order_id ?? null
    const { data: orders } = balanceOf
      ? await query.graph({ entity: "order", fields: ["id", "email"], filters: { id: balanceOf } })
      : { data: [] }
    return { cartId: null, orderId: null, email: orders[0]?.email ?? null, locale: null, balanceOf }
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
