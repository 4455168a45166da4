import { ContainerRegistrationKeys, MathBN, MedusaError } from "@medusajs/framework/utils"
import { applicationWith } from "./container-member"
import { unrecordedRows, type OrderTransactionRow, type Row } from "./order-transactions"

export type Query = {
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
    const orderId = await orderOfCollection(query, paymentCollectionId)
    if (!orderId) return null
    const change = await openChangeOf(query, orderId)
    if (!change) return null
    const { data: orders } = await query.graph({ entity: "order", fields: ["id", "summary"], filters: { id: orderId } })
    if (!creditLineNeeded(orders[0]?.summary, amount)) return null
    return new MedusaError(
      MedusaError.Types.NOT_ALLOWED,
      `card-service: order ${orderId} has an open ${change.kind} (${change.id}); Medusa would make the refund and then fail to record it on the order, which takes one change at a time. Nothing was refunded: confirm or cancel that change, then refund`
    )
  } catch {
    return null
  }
}

/**
 * Medusa records a refund on its order after making it (an order
 * transaction, then a credit line in an order change of its own), and
 * records with it every refund of the payment the order lacks, each for the
 * amount of the refund being made. A second refund made while an earlier
 * one is not yet recorded (two refunds sent at once, or one whose workflow
 * stopped midway) was made at the service and then recorded wrong: the
 * earlier refund for the second's amount, and a credit line refused or an
 * order change left open. The provider refuses it before anything is sent;
 * the sweep records a stopped refund within minutes
 * (reconciliation/order-records.ts).
 *
 * `refundKey` is the row Medusa made for this refund. Where the records
 * cannot be read, nothing is refused.
 */
export async function unrecordedRefundRefusal(
  paymentId: string | null,
  paymentCollectionId: string | null,
  refundKey: string | undefined
): Promise<MedusaError | null> {
  const query = queryOfApplication()
  if (!query || !paymentId || !paymentCollectionId) return null
  try {
    const orderId = await orderOfCollection(query, paymentCollectionId)
    if (!orderId) return null
    const [{ data: payments }, { data: orders }] = await Promise.all([
      query.graph({
        entity: "payment",
        fields: ["id", "refunds.id", "refunds.amount", "refunds.raw_amount", "refunds.created_at"],
        filters: { id: paymentId },
      }),
      query.graph({
        entity: "order",
        fields: ["id", "transactions.id", "transactions.reference", "transactions.reference_id", "transactions.amount", "transactions.raw_amount"],
        filters: { id: orderId },
      }),
    ])
    const others = ((payments[0]?.refunds ?? []) as Row[]).filter((row) => row.id !== refundKey)
    const transactions = (orders[0]?.transactions ?? []) as OrderTransactionRow[]
    const [earlier] = unrecordedRows({ id: paymentId, refunds: others }, transactions, new Date(8.64e15)).refunds
    if (!earlier) return null
    return new MedusaError(
      MedusaError.Types.NOT_ALLOWED,
      `card-service: refund ${earlier.id} of this payment is not yet recorded on order ${orderId} (Medusa records a refund on the order after making it, one at a time, and would record that one wrong). Nothing was refunded: refund again in a moment; a refund whose recording stopped is recorded by the reconciliation sweep within minutes`
    )
  } catch {
    return null
  }
}

/** The order a payment collection is the order's (Medusa's link), or undefined. */
async function orderOfCollection(query: Query, paymentCollectionId: string): Promise<string | undefined> {
  const { data: links } = await query.graph({
    entity: "order_payment_collection",
    fields: ["order_id"],
    filters: { payment_collection_id: paymentCollectionId },
  })
  return links[0]?.order_id as string | undefined
}

/** The order's open change (an edit, a return, a claim or an exchange begun and neither confirmed nor canceled), named as the admin names it. */
export async function openChangeOf(query: Query, orderId: string): Promise<{ id: string; kind: string } | null> {
  const { data: changes } = await query.graph({
    entity: "order_change",
    fields: ["id", "change_type", "status"],
    filters: { order_id: orderId, status: OPEN_CHANGE_STATUSES },
  })
  if (!changes.length) return null
  return { id: changes[0].id as string, kind: CHANGE_NAMES[changes[0].change_type as string] ?? "change" }
}

/**
 * Whether Medusa's refund route adds a credit line for `amount`: for the
 * part of it the order does not already owe the customer (a negative
 * pending difference), as `refundPaymentWorkflow` computes it.
 */
export function creditLineNeeded(
  summary: OrderSummary,
  amount: number
): boolean {
  return creditLineAmount(summary, amount) > 0
}

type OrderSummary = { pending_difference?: unknown; raw_pending_difference?: unknown } | null | undefined

/**
 * The credit line `refundPaymentWorkflow` adds for a refund of `amount`:
 * all of it, less what the order already owes the customer (a negative
 * pending difference); 0 for none.
 */
export function creditLineAmount(summary: OrderSummary, amount: number): number {
  const pending = summary?.raw_pending_difference ?? summary?.pending_difference ?? 0
  const pendingValue = MathBN.convert(pending as never)
  if (!MathBN.lt(pendingValue, 0)) return MathBN.gt(amount, 0) ? amount : 0
  const owed = MathBN.mult(pendingValue, -1)
  return MathBN.gt(amount, owed) ? MathBN.convert(MathBN.sub(amount, owed)).toNumber() : 0
}

function queryOfApplication(): Query | null {
  return applicationWith(ContainerRegistrationKeys.QUERY)?.resolve<Query>(ContainerRegistrationKeys.QUERY) ?? null
}
