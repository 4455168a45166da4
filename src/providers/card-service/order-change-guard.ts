import { ContainerRegistrationKeys, MathBN, MedusaError } from "@medusajs/framework/utils"
import { applicationWith } from "./container-member"

type Query = {
  graph(input: {
    entity: string
    fields: string[]
    filters: Record<string, unknown>
  }): Promise<{ data: Array<Record<string, any>> }>
}

/** Order changes Medusa counts as open (the order module's createOrderChange refuses a second one). */
const OPEN_CHANGE_STATUSES = ["pending", "requested"]

/** How the owner's admin names each kind of order change. */
const CHANGE_NAMES: Record<string, string> = {
  edit: "order edit",
  return: "return",
  claim: "claim",
  exchange: "exchange",
}

/**
 * Medusa's refund route (`refundPaymentWorkflow`) refunds first, and never
 * undoes it (the money has gone), then records the refund on the order: an
 * order transaction and, for what the order does not already owe the
 * customer, a credit line in an order change of its own. An order with an
 * open change (an edit, a return, a claim or an exchange begun and neither
 * confirmed nor canceled) refuses a second change: the route answered 400
 * after the service had refunded, the order's transaction was taken back,
 * so the order did not count the refund, and the owner's retry refunded
 * again. The provider refuses such a refund before anything is sent.
 *
 * Read through the application's container (the provider's own, the
 * payment module's, has no query): where it cannot be read (a provider
 * built outside Medusa, a payment of no order) nothing is refused.
 */
export async function openChangeRefusal(
  paymentCollectionId: string | null,
  amount: number
): Promise<MedusaError | null> {
  const query = queryOfApplication()
  if (!query || !paymentCollectionId) return null
  try {
    const { data: links } = await query.graph({
      entity: "order_payment_collection",
      fields: ["order_id"],
      filters: { payment_collection_id: paymentCollectionId },
    })
    const orderId = links[0]?.order_id as string | undefined
    if (!orderId) return null
    const { data: changes } = await query.graph({
      entity: "order_change",
      fields: ["id", "change_type", "status"],
      filters: { order_id: orderId, status: OPEN_CHANGE_STATUSES },
    })
    if (!changes.length) return null
    const { data: orders } = await query.graph({ entity: "order", fields: ["id", "summary"], filters: { id: orderId } })
    if (!creditLineNeeded(orders[0]?.summary, amount)) return null
    const kind = CHANGE_NAMES[changes[0].change_type as string] ?? "change"
    return new MedusaError(
      MedusaError.Types.NOT_ALLOWED,
      `card-service: order ${orderId} has an open ${kind} (${changes[0].id}); Medusa would make the refund and then fail to record it on the order, which takes one change at a time. Nothing was refunded: confirm or cancel that change, then refund`
    )
  } catch {
    return null
  }
}

/**
 * Whether Medusa's refund route adds a credit line for `amount`: for the
 * part of it the order does not already owe the customer (a negative
 * pending difference), as `refundPaymentWorkflow` computes it.
 */
export function creditLineNeeded(
  summary: { pending_difference?: unknown; raw_pending_difference?: unknown } | null | undefined,
  amount: number
): boolean {
  const pending = summary?.raw_pending_difference ?? summary?.pending_difference ?? 0
  const pendingValue = MathBN.convert(pending as never)
  if (!MathBN.lt(pendingValue, 0)) return MathBN.gt(amount, 0)
  return MathBN.gt(amount, MathBN.mult(pendingValue, -1))
}

function queryOfApplication(): Query | null {
  return applicationWith(ContainerRegistrationKeys.QUERY)?.resolve<Query>(ContainerRegistrationKeys.QUERY) ?? null
}
