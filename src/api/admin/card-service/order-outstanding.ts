import { createPaymentSessionsWorkflow } from "@medusajs/medusa/core-flows"
import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { toMinorUnits } from "../../../lib/money"
import { OPEN_COLLECTION_STATUSES } from "../../../checkout/order-balance"
import { cardServiceProvider, PROVIDER_ID_PREFIX } from "../../../checkout/provider-lookup"
import type { OrderOutstandingResponse } from "./response-types"

type Outstanding = NonNullable<OrderOutstandingResponse["outstanding"]>

type SessionRow = {
  id: string
  status: string
  provider_id: string
  amount: unknown
  raw_amount?: unknown
  currency_code: string
  created_at: string | Date
}

type CollectionRow = {
  id: string
  status: string
  amount: unknown
  raw_amount?: unknown
  currency_code: string
  created_at: string | Date
  payment_sessions?: SessionRow[] | null
  payments?: { provider_id: string }[] | null
}

/** Sessions a shopper can still pay on (a failed attempt may be tried again on the same link). */
const PAYABLE_SESSION_STATUSES = ["pending", "requires_more", "error"]

/**
 * What the order owes after an edit, for the order widget: Medusa's own
 * payment collection of the order that waits to be paid (not_paid or
 * awaiting, linked to no cart: a cart's collection waiting is an order on
 * hold, not an amount to collect), the card-service provider a link would
 * use, and the newest link made for it. Null when nothing is owed.
 */
export async function orderOutstanding(
  container: MedusaContainer,
  orderId: string
): Promise<Outstanding | null> {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const { data } = await query.graph({
    entity: "order",
    fields: [
      "id",
      "status",
      "region_id",
      "payment_collections.id",
      "payment_collections.status",
      "payment_collections.amount",
      "payment_collections.raw_amount",
      "payment_collections.currency_code",
      "payment_collections.created_at",
      "payment_collections.payments.provider_id",
      "payment_collections.payment_sessions.id",
      "payment_collections.payment_sessions.status",
      "payment_collections.payment_sessions.provider_id",
      "payment_collections.payment_sessions.amount",
      "payment_collections.payment_sessions.raw_amount",
      "payment_collections.payment_sessions.currency_code",
      "payment_collections.payment_sessions.created_at",
    ],
    filters: { id: orderId },
  })
  const order = data[0] as
    | { id: string; status: string; region_id: string | null; payment_collections?: CollectionRow[] | null }
    | undefined
  if (!order || order.status === "canceled") return null
  const collections = (order.payment_collections ?? []).filter(Boolean)
  const waiting = collections.filter(
    (c) => (OPEN_COLLECTION_STATUSES as readonly string[]).includes(c.status) && Number(c.amount) > 0
  )
  if (!waiting.length) return null
  const { data: cartLinks } = await query.graph({
    entity: "cart_payment_collection",
    fields: ["payment_collection_id"],
    filters: { payment_collection_id: waiting.map((c) => c.id) },
  })
  const ofCarts = new Set(cartLinks.map((link: { payment_collection_id: string }) => link.payment_collection_id))
  const collection = waiting
    .filter((c) => !ofCarts.has(c.id))
    .sort((a, b) => new Date(b.created_at).getTime() - new Date(a.created_at).getTime())[0]
  if (!collection) return null

  const session = (collection.payment_sessions ?? [])
    .filter((s) => s.provider_id.startsWith(PROVIDER_ID_PREFIX) && PAYABLE_SESSION_STATUSES.includes(s.status))
    .sort((a, b) => new Date(b.created_at).getTime() - new Date(a.created_at).getTime())[0]
  return {
    order_id: order.id,
    payment_collection_id: collection.id,
    amount: Number(collection.amount),
    currency_code: collection.currency_code,
    status: collection.status,
    provider_id: await providerFor(container, collections, order.region_id),
    link: session
      ? {
          session_id: session.id,
          pay_url: payUrl(container, session.provider_id, session.id),
          created_at: new Date(session.created_at).toISOString(),
          out_of_date: !sameMinorAmount(session, collection),
        }
      : null,
  }
}

/**
 * A new link for what the order owes: a card-service payment session on its
 * collection, made by the workflow Medusa's own
 * `POST /admin/payment-collections/:id/payment-sessions` runs
 * (createPaymentSessionsWorkflow), which also deletes the collection's other
 * sessions: an earlier link stops working (an approval made on it is
 * reversed when its result comes).
 */
export async function newOutstandingLink(
  container: MedusaContainer,
  outstanding: Outstanding & { provider_id: string }
): Promise<Outstanding> {
  const { result } = await createPaymentSessionsWorkflow(container).run({
    input: { payment_collection_id: outstanding.payment_collection_id, provider_id: outstanding.provider_id },
  })
  return {
    ...outstanding,
    link: {
      session_id: result.id,
      pay_url: payUrl(container, outstanding.provider_id, result.id),
      created_at: new Date(result.created_at ?? Date.now()).toISOString(),
      out_of_date: false,
    },
  }
}

/** The order's own card-service provider (its earlier payments), else the first its region offers. */
async function providerFor(
  container: MedusaContainer,
  collections: CollectionRow[],
  regionId: string | null
): Promise<string | null> {
  const used = collections
    .flatMap((c) => c.payments ?? [])
    .map((p) => p?.provider_id)
    .find((id) => id?.startsWith(PROVIDER_ID_PREFIX))
  if (used) return used
  if (!regionId) return null
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const { data } = await query.graph({ entity: "region", fields: ["payment_providers.id"], filters: { id: regionId } })
  const offered = ((data[0]?.payment_providers ?? []) as { id: string }[])
    .map((p) => p?.id)
    .filter((id): id is string => !!id && id.startsWith(PROVIDER_ID_PREFIX))
    .sort()
  return offered[0] ?? null
}

function payUrl(container: MedusaContainer, providerId: string, sessionId: string): string {
  return `${cardServiceProvider(container, providerId).options.backendUrl}/card-service/pay/${sessionId}`
}

function sameMinorAmount(session: SessionRow, collection: CollectionRow): boolean {
  try {
    return (
      session.currency_code.toLowerCase() === collection.currency_code.toLowerCase() &&
      toMinorUnits((session.raw_amount ?? session.amount) as never, session.currency_code).toString() ===
        toMinorUnits((collection.raw_amount ?? collection.amount) as never, collection.currency_code).toString()
    )
  } catch {
    return false
  }
}
