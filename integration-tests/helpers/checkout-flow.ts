import { createApiKeysWorkflow } from "@medusajs/core-flows"
import type { MedusaContainer } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import type { AxiosInstance } from "axios"
import { payLikeABrowser } from "./browser-step"
import { CARD_SERVICE_PROVIDER_ID, SeededStore, seedStore } from "./seed-store"
import { storeApi } from "./store-api"

export const CARDS = {
  approved: { number: "4000000000001000", cardType: "VISA" },
  approvedMastercard: { number: "5200000000001005", cardType: "MASTER" },
  declined: { number: "4000000000002032", cardType: "VISA" },
  partial: { number: "4000000000001109", cardType: "VISA" },
} as const

/** Basic auth for the admin API with a secret API key, as the notes describe. */
export async function adminHeaders(container: MedusaContainer) {
  const {
    result: [key],
  } = await createApiKeysWorkflow(container).run({
    input: { api_keys: [{ title: "tests", type: "secret", created_by: "tests" }] },
  })
  return { Authorization: `Basic ${Buffer.from(`${key.token}:`).toString("base64")}` }
}

/**
 * A seeded store, a cart and a card-service payment session, as a storefront
 * leaves them; `sessionData` is what the storefront sends with the session.
 */
export async function cartWithSession(
  api: AxiosInstance,
  container: MedusaContainer,
  store?: SeededStore,
  sessionData?: Record<string, unknown>,
  cartOptions: { locale?: string } = {}
) {
  const seeded = store ?? (await seedStore(container))
  const storefront = storeApi(api, seeded)
  const cart = await storefront.createCart(cartOptions)
  const collection = await storefront.startPaymentSession(cart.id, CARD_SERVICE_PROVIDER_ID, sessionData)
  return { store: seeded, storefront, cart, session: collection.payment_sessions[0] }
}

/** Checkout to an order with an approved card; returns the order and its payment. */
export async function checkoutToOrder(
  api: AxiosInstance,
  container: MedusaContainer,
  seeded?: SeededStore
) {
  const { store, cart, session } = await cartWithSession(api, container, seeded)
  const paid = await payLikeABrowser(api, store.publishableKey, session.id, CARDS.approved)
  const orderId = paid.storefrontLocation?.searchParams.get("order_id")
  if (!orderId) {
    throw new Error(`checkout did not end in an order: ${paid.storefrontLocation}`)
  }
  const payment = await paymentOfOrder(container, orderId)
  return { store, cart, session, orderId, payment }
}

export async function paymentOfOrder(container: MedusaContainer, orderId: string) {
  const query = container.resolve("query")
  const { data } = await query.graph({
    entity: "order",
    fields: [
      "id",
      "payment_status",
      "payment_collections.payments.*",
      "payment_collections.payments.captures.*",
      "payment_collections.payments.refunds.*",
    ],
    filters: { id: orderId },
  })
  return data[0].payment_collections[0].payments[0]
}

export async function orderOfCart(container: MedusaContainer, cartId: string) {
  const query = container.resolve("query")
  const { data } = await query.graph({
    entity: "order_cart",
    fields: ["order_id"],
    filters: { cart_id: cartId },
  })
  return data[0]?.order_id ?? null
}

/**
 * Puts a placed order back into the state a Medusa instance killed inside
 * completeCartWorkflow leaves: the order and its cart link exist, the
 * approval is attached to the session, but the session was never authorized
 * (the workflow authorizes at its very end and that transaction never
 * committed): no payment, no capture, no order transaction, the collection
 * unpaid, and no settled mark.
 */
export async function forgetOrderPayment(
  container: MedusaContainer,
  { orderId, sessionId, payment }: { orderId: string; sessionId: string; payment: { id: string; payment_collection_id: string } },
  {
    /**
     * Also the order's link to the payment collection: a completion killed
     * after it made the order and before it linked the collection (issue
     * 42, bench:crash-points) leaves that too.
     */
    unlinked = false,
    /**
     * Also the order's link to the cart, and the cart's completion: a
     * completion killed after it linked the payment collection and before it
     * linked the cart leaves that.
     */
    cartUnlinked = false,
  }: { unlinked?: boolean; cartUnlinked?: boolean } = {}
) {
  const pg = container.resolve("__pg_connection__")
  if (unlinked) await pg.raw(`delete from order_payment_collection where order_id = ?`, [orderId])
  if (cartUnlinked) {
    const [{ cart_id }] = (await pg.raw(`select cart_id from order_cart where order_id = ?`, [orderId])).rows
    await pg.raw(`delete from order_cart where order_id = ?`, [orderId])
    await pg.raw(`update cart set completed_at = null where id = ?`, [cart_id])
  }
  await pg.raw(`delete from capture where payment_id = ?`, [payment.id])
  await pg.raw(`delete from payment where id = ?`, [payment.id])
  await pg.raw(`delete from order_transaction where order_id = ?`, [orderId])
  await pg.raw(`update payment_session set authorized_at = null, status = 'pending' where id = ?`, [sessionId])
  const zero = JSON.stringify({ value: "0", precision: 20 })
  await pg.raw(
    `update payment_collection set status = 'not_paid', completed_at = null,
       authorized_amount = 0, raw_authorized_amount = ?::jsonb, captured_amount = 0, raw_captured_amount = ?::jsonb
     where id = ?`,
    [zero, zero, payment.payment_collection_id]
  )
  await container.resolve<{ invalidate: (key: string) => Promise<void> }>(Modules.CACHE).invalidate(`card-service:settled:${sessionId}`)
}
