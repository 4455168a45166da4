import type { IOrderModuleService, IPaymentModuleService, IWorkflowEngineService, MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, MathBN, Modules } from "@medusajs/framework/utils"
// Registers Medusa's workflows, the credit line's among them (run by its id below).
import "@medusajs/medusa/core-flows"
import { underPaymentLock } from "../lib/payment-lock"
import { toDecimal, type AmountInput } from "../lib/money"
import { unrecordedRows, type OrderTransactionRow, type Row } from "../providers/card-service/order-transactions"
import { creditLineAmount, openChangeOf, type Query } from "../providers/card-service/order-change-guard"
import { notePayment, UNLOGGED_AFTER_MS, type PaymentAction } from "./payment-followups"

/**
 * Medusa's capture and refund workflows (capturePaymentWorkflow,
 * refundPaymentWorkflow) book the money on the payment first (a capture or
 * refund row, the provider's call), and only then, in steps of their own,
 * record it on the order: an order transaction (reference "capture" or
 * "refund", reference_id the row's id) and, for a refund, a credit line for
 * what the order did not already owe the customer. Neither money step is
 * ever compensated. An instance that dies between them, a dropped
 * connection, or a credit line Medusa refuses (two refunds at once: the
 * second's change meets the first's) leaves the payment booked and the
 * order not counting it: the order shows less paid or less refunded than
 * the money that moved, and nothing in Medusa finishes it (bench:crash-points
 * found 47 such rows in one pass, issue 42).
 *
 * The sweep records each such row on its order as the workflow would have.
 * A row is taken for one whose workflow stopped once it is older than a
 * provider call can take (UNLOGGED_AFTER_MS); rows are looked for up to
 * ORDER_RECORD_LOOKBACK_MS back.
 */
export const ORDER_RECORD_LOOKBACK_MS = 7 * 24 * 60 * 60 * 1000

/** A card-service payment of an order, with its rows the order does not count. */
export type UnrecordedOnOrder = {
  paymentId: string
  orderId: string
  orderCanceled: boolean
  currencyCode: string
  captures: Row[]
  refunds: Row[]
  /** Transactions naming one of the payment's rows for another amount than the row's (recorded again with it). */
  misrecorded: string[]
  /** Transactions naming a row another transaction already counts (two workflows at once wrote both): taken out. */
  duplicates: string[]
}

/**
 * The workflow refundPaymentWorkflow records a refund's credit line with
 * (core-flows' createOrderRefundCreditLinesWorkflow: an order change with the
 * credit line, confirmed). The package does not export it; it is registered
 * under this id, and run through the workflow engine.
 */
const REFUND_CREDIT_LINES_WORKFLOW = "create-order-refund-credit-lines"


const PAYMENT_FIELDS = [
  "id",
  "currency_code",
  "provider_id",
  "captures.id",
  "captures.amount",
  "captures.raw_amount",
  "captures.created_at",
  "refunds.id",
  "refunds.amount",
  "refunds.raw_amount",
  "refunds.created_at",
  "refunds.refund_reason_id",
  "payment_collection.order.id",
  "payment_collection.order.status",
]

/** The given payments of the provider, each with the rows its order does not count. */
async function unrecordedOf(
  container: MedusaContainer,
  providerId: string,
  paymentIds: string[],
  now: Date
): Promise<UnrecordedOnOrder[]> {
  if (!paymentIds.length) return []
  const query = container.resolve<Query>(ContainerRegistrationKeys.QUERY)
  const { data: payments } = await query.graph({
    entity: "payment",
    fields: PAYMENT_FIELDS,
    filters: { id: paymentIds, provider_id: providerId },
  })
  const ofOrders = payments.filter((p) => p.payment_collection?.order?.id)
  if (!ofOrders.length) return []
  const orders = container.resolve<IOrderModuleService>(Modules.ORDER)
  const transactions = (await orders.listOrderTransactions(
    { order_id: [...new Set(ofOrders.map((p) => p.payment_collection.order.id as string))], reference: ["capture", "refund"] } as never,
    { select: ["id", "order_id", "reference", "reference_id", "amount", "raw_amount"], take: null } as never
  )) as unknown as Array<OrderTransactionRow & { order_id: string }>
  const before = new Date(now.getTime() - UNLOGGED_AFTER_MS)
  const found: UnrecordedOnOrder[] = []
  for (const payment of ofOrders) {
    const order = payment.payment_collection.order
    const rows = unrecordedRows(payment as never, transactions.filter((t) => t.order_id === order.id), before)
    if (!rows.captures.length && !rows.refunds.length && !rows.duplicates.length) continue
    found.push({
      paymentId: payment.id,
      orderId: order.id,
      orderCanceled: order.status === "canceled",
      currencyCode: payment.currency_code,
      ...rows,
    })
  }
  return found
}

/** Made two minutes to seven days before `now`, as a filter of Medusa's modules. */
const recordWindow = (now: Date) => ({
  $gte: new Date(now.getTime() - ORDER_RECORD_LOOKBACK_MS).toISOString(),
  $lt: new Date(now.getTime() - UNLOGGED_AFTER_MS).toISOString(),
})

/**
 * Card-service payments of orders with a capture or refund row the order
 * does not count: those of rows made ORDER_RECORD_LOOKBACK_MS ago at most.
 */
export async function listUnrecordedOnOrders(
  container: MedusaContainer,
  providerId: string,
  now: Date
): Promise<UnrecordedOnOrder[]> {
  const paymentModule = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
  const window = recordWindow(now)
  // The payment module filters any column; its filter types name fewer.
  const [captures, refunds] = (await Promise.all([
    paymentModule.listCaptures({ created_at: window } as Record<string, unknown>, { select: ["payment_id"], take: null } as never),
    paymentModule.listRefunds({ created_at: window } as Record<string, unknown>, { select: ["payment_id"], take: null } as never),
  ])) as unknown as Array<Array<{ payment_id?: string }>>
  const paymentIds = [...new Set([...captures, ...refunds].map((r) => r.payment_id).filter((id): id is string => !!id))]
  return await unrecordedOf(container, providerId, paymentIds, now)
}

/**
 * Records each listed row on its order, under the payment's lock, from the
 * payment and the order's transactions read again inside it: a capture as
 * an order transaction; a refund as an order transaction and, on an order
 * not canceled, the credit line refundPaymentWorkflow adds (for what the
 * order did not already owe the customer, from the order's summary as it
 * stands without this refund, as the workflow read it before refunding;
 * with the refund's reason). A refund that needs a credit line while the
 * order has an open change (Medusa takes one change at a time) waits for
 * the owner to confirm or cancel it; the next sweeps try again. A credit
 * line Medusa refuses takes its transaction back with it, as the workflow's
 * compensation does, so both are tried again together.
 */
export async function recordOnOrder(
  container: MedusaContainer,
  listed: UnrecordedOnOrder,
  providerId: string,
  now: Date
): Promise<PaymentAction[]> {
  return await underPaymentLock(container, listed.paymentId, async () => {
    const [found] = await unrecordedOf(container, providerId, [listed.paymentId], now)
    if (!found) return []
    const orders = container.resolve<IOrderModuleService>(Modules.ORDER)
    const recorded: string[] = []
    const waiting: string[] = []
    if (found.duplicates.length) await orders.deleteOrderTransactions(found.duplicates)
    // Transactions naming a row for another amount, by the row they name.
    const wrongOf = new Map<string, string[]>()
    const wrong = (await orders.listOrderTransactions({ id: found.misrecorded } as never, { select: ["id", "reference_id"] })) as unknown as OrderTransactionRow[]
    for (const t of wrong) wrongOf.set(t.reference_id!, [...(wrongOf.get(t.reference_id!) ?? []), t.id!])
    const amountOf = (row: Row) => (row.raw_amount ?? row.amount) as AmountInput
    const shown = (row: Row) => `${toDecimal(amountOf(row)).toString()} ${found.currencyCode.toUpperCase()}`
    const again = (row: Row) => (wrongOf.has(row.id) ? " (the order had it for another amount)" : "")
    if (found.captures.length) {
      const replaced = found.captures.flatMap((row) => wrongOf.get(row.id) ?? [])
      if (replaced.length) await orders.deleteOrderTransactions(replaced)
      await orders.addOrderTransactions(
        found.captures.map((row) => ({
          order_id: found.orderId,
          amount: amountOf(row),
          currency_code: found.currencyCode,
          reference: "capture",
          reference_id: row.id,
        })) as never
      )
      recorded.push(...found.captures.map((row) => `capture ${row.id} of ${shown(row)}${again(row)}`))
    }
    const change = found.refunds.length ? await openChangeOf(container.resolve<Query>(ContainerRegistrationKeys.QUERY), found.orderId) : null
    for (const row of found.refunds) {
      const replaced = wrongOf.get(row.id) ?? []
      const waits = () => waiting.push(`refund ${row.id} of ${shown(row)} waits for ${change!.kind} ${change!.id} to be confirmed or canceled`)
      // A wrong transaction is replaced only where the right one can be
      // recorded now; its credit line is computed without it.
      if (change && replaced.length) {
        waits()
        continue
      }
      if (replaced.length) await orders.deleteOrderTransactions(replaced)
      const credit = found.orderCanceled ? 0 : await creditLineFor(container, found.orderId, amountOf(row))
      if (credit > 0 && change) {
        waits()
        continue
      }
      const [transaction] = (await orders.addOrderTransactions([
        {
          order_id: found.orderId,
          amount: MathBN.mult(amountOf(row) as never, -1),
          currency_code: found.currencyCode,
          reference: "refund",
          reference_id: row.id,
        },
      ] as never)) as unknown as Array<{ id: string }>
      if (credit > 0) {
        try {
          await container.resolve<IWorkflowEngineService>(Modules.WORKFLOW_ENGINE).run(REFUND_CREDIT_LINES_WORKFLOW, {
            input: { order_id: found.orderId, amount: credit, ...(await reasonOf(container, row)) },
            throwOnError: true,
          })
        } catch (error) {
          await orders.deleteOrderTransactions([transaction.id])
          throw error
        }
      }
      recorded.push(`refund ${row.id} of ${shown(row)}${credit > 0 ? ` with a credit line of ${credit}` : ""}${again(row)}`)
    }
    if (!recorded.length && !waiting.length && !found.duplicates.length) return []
    const [payment] = await container
      .resolve<IPaymentModuleService>(Modules.PAYMENT)
      .listPayments({ id: found.paymentId }, { select: ["id", "metadata"] })
    const done = [
      recorded.length
        ? `${recorded.join("; ")}: booked on the payment, and Medusa's workflow stopped before order ${found.orderId} counted it; recorded on the order now, nothing sent to the service`
        : "",
      found.duplicates.length
        ? `order ${found.orderId} counted money of the payment twice (two of Medusa's workflows recorded the same row at once): its transaction(s) ${found.duplicates.join(", ")} taken out, nothing sent to the service`
        : "",
    ]
      .filter(Boolean)
      .join("; ")
    // Said once per state: a refund still waiting is not noted again every sweep.
    const action = await notePayment(container, payment as never, "order", {
      status: waiting.length ? "order_not_recorded" : "order_recorded",
      final: !waiting.length,
      attention: waiting.length > 0,
      transaction_id: [...found.captures, ...found.refunds].map((row) => row.id).concat(found.duplicates).join(","),
      message: [done, waiting.length ? `${waiting.join("; ")}: the sweep records it on order ${found.orderId} then` : ""].filter(Boolean).join("; "),
      at: now.toISOString(),
    })
    return action ? [action] : []
  })
}

/** The credit line refundPaymentWorkflow would add for `amount`, from the order's summary now. */
async function creditLineFor(container: MedusaContainer, orderId: string, amount: AmountInput): Promise<number> {
  const query = container.resolve<Query>(ContainerRegistrationKeys.QUERY)
  const { data } = await query.graph({ entity: "order", fields: ["id", "summary"], filters: { id: orderId } })
  return creditLineAmount(data[0]?.summary, toDecimal(amount).toNumber())
}

/** The refund's reason as refundPaymentWorkflow names it on the credit line (its label and code). */
async function reasonOf(container: MedusaContainer, row: Row): Promise<{ reference?: string; referenceId?: string }> {
  if (!row.refund_reason_id) return {}
  const query = container.resolve<Query>(ContainerRegistrationKeys.QUERY)
  const { data } = await query.graph({ entity: "refund_reason", fields: ["id", "label", "code"], filters: { id: row.refund_reason_id } })
  return data[0] ? { reference: data[0].label, referenceId: data[0].code } : {}
}

/**
 * A credit-line change a refund's workflow made and never confirmed:
 * refundPaymentWorkflow records a refund's credit line in an order change of
 * its own (created, given its credit-line action, confirmed, in three steps);
 * a workflow that stopped in between leaves the change open, and Medusa then
 * refuses every later change of the order (an edit, a return, a claim, an
 * exchange, a cancel, the next refund's credit line). Medusa's own workflows
 * confirm such a change within a moment: one two minutes old is a dead one.
 */
export type DeadCreditLine = { orderId: string; changeId: string; paymentId: string }

export async function listDeadCreditLines(container: MedusaContainer, providerId: string, now: Date): Promise<DeadCreditLine[]> {
  const orders = container.resolve<IOrderModuleService>(Modules.ORDER)
  const changes = (await orders.listOrderChanges(
    {
      change_type: "credit_line",
      status: ["pending", "requested"],
      created_at: recordWindow(now),
    } as never,
    { select: ["id", "order_id"], take: null } as never
  )) as unknown as Array<{ id: string; order_id: string }>
  if (!changes.length) return []
  const query = container.resolve<Query>(ContainerRegistrationKeys.QUERY)
  const { data } = await query.graph({
    entity: "order",
    fields: ["id", "payment_collections.payments.id", "payment_collections.payments.provider_id"],
    filters: { id: [...new Set(changes.map((c) => c.order_id))] },
  })
  const paymentOf = new Map<string, string>()
  for (const order of data) {
    const payment = (order.payment_collections ?? [])
      .flatMap((c: { payments?: Array<{ id: string; provider_id: string }> }) => c.payments ?? [])
      .find((p: { provider_id: string }) => p.provider_id === providerId)
    if (payment) paymentOf.set(order.id, payment.id)
  }
  return changes
    .filter((c) => paymentOf.has(c.order_id))
    .map((c) => ({ orderId: c.order_id, changeId: c.id, paymentId: paymentOf.get(c.order_id)! }))
}

/** How long before its credit-line change a refund's workflow records the refund's transaction, at most. */
const CREDIT_LINE_AFTER_TRANSACTION_MS = 10_000

/**
 * Finishes what the dead workflow left, for a change that follows, within
 * seconds, the transaction of one refund of the payment (the workflow's step
 * before it): a change holding its credit-line action is confirmed (the
 * workflow's last step). An empty one (the workflow stopped before the
 * action) is withdrawn, and the refund's transaction taken back, so that the
 * refund is recorded with its credit line as one whose workflow stopped
 * earlier (recordOnOrder), as Medusa's compensation of a failed credit line
 * takes the transaction back. Any other open credit-line change (an order
 * cancel's: interrupted-cancels.ts) is left alone.
 */
export async function finishDeadCreditLine(
  container: MedusaContainer,
  dead: DeadCreditLine,
  providerId: string,
  now: Date
): Promise<PaymentAction[]> {
  const taken = await underPaymentLock(container, dead.paymentId, async (): Promise<string | null> => {
    const orders = container.resolve<IOrderModuleService>(Modules.ORDER)
    const [change] = (await orders.listOrderChanges({ id: dead.changeId } as never, {
      select: ["id", "status", "created_at"],
      relations: ["actions"],
    })) as unknown as Array<{ id: string; status: string; created_at: Date | string; actions?: Array<{ action: string }> }>
    if (!change || !["pending", "requested"].includes(change.status)) return null
    const made = new Date(change.created_at).getTime()
    const refundIds = new Set(
      ((await container
        .resolve<IPaymentModuleService>(Modules.PAYMENT)
        .listRefunds({ payment_id: dead.paymentId } as never, { select: ["id"] })) as Array<{ id: string }>).map((r) => r.id)
    )
    const transactions = (await orders.listOrderTransactions(
      { order_id: dead.orderId, reference: "refund" } as never,
      { select: ["id", "reference_id", "created_at"], take: null } as never
    )) as unknown as Array<{ id: string; reference_id: string; created_at: Date | string }>
    const just = transactions.filter((t) => {
      const at = new Date(t.created_at).getTime()
      return refundIds.has(t.reference_id) && at <= made && made - at <= CREDIT_LINE_AFTER_TRANSACTION_MS
    })
    // Only a refund workflow's: the change follows its refund's transaction.
    // An order cancel's is finished with the cancel (interrupted-cancels.ts).
    if (just.length !== 1) return null
    if (change.actions?.some((a) => a.action === "CREDIT_LINE_ADD")) {
      await orders.confirmOrderChange({ id: change.id } as never)
      return `refund ${just[0].reference_id}: its credit-line change ${change.id} of order ${dead.orderId}, left open when its workflow stopped (Medusa refused every other change of the order meanwhile), confirmed`
    }
    await orders.cancelOrderChange([change.id])
    await orders.deleteOrderTransactions([just[0].id])
    return ""
  })
  if (taken === null) return []
  if (taken) return [{ payment_id: dead.paymentId, status: "order_recorded", message: taken }]
  // The empty change withdrawn: the refund is recorded again, with its credit line.
  const [found] = await unrecordedOf(container, providerId, [dead.paymentId], now)
  return found ? await recordOnOrder(container, found, providerId, now) : []
}
