import type { IPaymentModuleService, MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { cancelOrder } from "../checkout/order-cancel"
import { cancelMarkOf, withCardServiceField, type CancelMark } from "../providers/card-service/payment-record"
import { parseSessionData } from "../providers/card-service/session-data"
import { PAYMENT_LOOKBACK_MS, type PaymentAction } from "./payment-followups"
import type { Knex } from "./sweep-candidates"

/**
 * A cancel's workflow finishes within seconds; a mark this old with its
 * order or payment not canceled is a cancel whose instance died, or whose
 * write failed.
 */
export const CANCEL_GRACE_MS = 60_000

export type InterruptedCancel = {
  payment: {
    id: string
    provider_id: string
    data: Record<string, unknown> | null
    metadata: Record<string, unknown> | null
    canceled_at: string | Date | null
  }
  orderId: string
  orderCanceled: boolean
  /**
   * The order has a payment collection newer than this payment's: Medusa
   * replaced the payment (createOrUpdateOrderPaymentCollectionWorkflow, run
   * by an order edit's confirmation, or an exchange's or a claim's, makes
   * the new collection first, then cancels the authorized one). Its release
   * was no cancel of the order.
   */
  replaced: boolean
}

/**
 * Card-service payments whose release the provider was asked for
 * (cancelPayment marked them, payment-record.ts) at least CANCEL_GRACE_MS
 * ago, with nothing captured, whose order is still open or whose payment
 * Medusa never marked canceled: an order cancel that stopped midway
 * (bench:crash-points, issue 42). Medusa's cancelOrderWorkflow reverses the
 * approval, cancels the payment, records a credit line and cancels the
 * order in steps of their own, with no compensation of what went before:
 * - its instance killed after the reversal: the approval released at the
 *   service, the payment still authorized in Medusa, the order open;
 * - its connection dropped while Medusa wrote the canceled payment:
 *   cancelPaymentStep only logs that, and the order is canceled with its
 *   payment still authorized;
 * - killed after the credit-line change was made: the payment canceled, the
 *   order open, and every later cancel refused ("already has an existing
 *   active order change").
 * A payment released outside an order (a cart's completion undone) has no
 * order and is not listed; nor is one the service would not release
 * (refused: Needs attention has it already), nor one already settled here.
 *
 * A payment Medusa replaced with a newer collection of the order (an order
 * edit of an order only authorized) was released for the replacement, not
 * for a cancel of the order: it is listed only while Medusa still has it
 * authorized (the replacement stopped between the release and Medusa's
 * write), and finishing it cancels the payment alone. Taken for a stopped
 * order cancel, the order the owner had just edited was canceled by the
 * sweep a minute later.
 */
export async function listInterruptedCancels(
  container: MedusaContainer,
  providerId: string,
  now: Date
): Promise<InterruptedCancel[]> {
  const knex = container.resolve<Knex>(ContainerRegistrationKeys.PG_CONNECTION)
  const { rows } = (await knex.raw(
    `select * from (
      select "p"."id", "p"."created_at", "p"."canceled_at", "o"."id" as "order_id", "o"."status" as "order_status",
        exists (select 1 from "order_payment_collection" "newer_opc"
                  join "payment_collection" "newer" on "newer"."id" = "newer_opc"."payment_collection_id" and "newer"."deleted_at" is null
                 where "newer_opc"."order_id" = "o"."id" and "newer_opc"."deleted_at" is null
                   and "newer"."created_at" > "pc"."created_at") as "replaced"
      from "payment" "p"
      join "payment_collection" "pc" on "pc"."id" = "p"."payment_collection_id"
      join "order_payment_collection" "opc"
        on "opc"."payment_collection_id" = "p"."payment_collection_id" and "opc"."deleted_at" is null
      join "order" "o" on "o"."id" = "opc"."order_id" and "o"."deleted_at" is null
      where "p"."provider_id" = ? and "p"."deleted_at" is null and "p"."captured_at" is null
        and ("p"."metadata"->'card_service'->'cancel'->>'requested_at') between ? and ?
        and coalesce("p"."metadata"->'card_service'->'cancel'->>'refused', '') = ''
        and coalesce("p"."metadata"->'card_service'->'cancel'->>'final', 'false') <> 'true'
        and ("o"."status" <> 'canceled' or "p"."canceled_at" is null)
        and not exists (select 1 from "capture" "c" where "c"."payment_id" = "p"."id" and "c"."deleted_at" is null)
      ) "found"
      where not ("replaced" and "canceled_at" is not null)
      order by "created_at" asc
      limit 100`,
    [
      providerId,
      new Date(now.getTime() - PAYMENT_LOOKBACK_MS).toISOString(),
      new Date(now.getTime() - CANCEL_GRACE_MS).toISOString(),
    ]
  )) as unknown as { rows: Array<{ id: string; order_id: string; order_status: string; replaced: boolean }> }
  if (!rows.length) return []
  const paymentModule = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
  const payments = (await paymentModule.listPayments(
    { id: rows.map((row) => row.id) },
    { select: ["id", "provider_id", "data", "metadata", "canceled_at"], take: rows.length }
  )) as unknown as InterruptedCancel["payment"][]
  return rows.flatMap((row) => {
    const payment = payments.find((p) => p.id === row.id)
    return payment
      ? [{ payment, orderId: row.order_id, orderCanceled: row.order_status === "canceled", replaced: row.replaced === true }]
      : []
  })
}

/**
 * Finishes the store owner's cancel: the order through Medusa's own
 * cancelOrderWorkflow (a dead workflow's credit-line change withdrawn,
 * order-cancel.ts), then the payment through the payment module's own
 * cancelPayment if Medusa still has it authorized (the provider releases
 * the approval, or finds it released). A cancel that cannot run now (a
 * dropped connection) is thrown and tried on the next pass.
 *
 * Medusa refusing the order's cancel (the owner fulfilled or completed it
 * since, or is editing it) ends the finishing, in Needs attention: an
 * approval already released is booked as such in Medusa (the order is open
 * with no money held); one not yet released is left as it is, for the
 * owner went on with the order.
 */
export async function finishInterruptedCancel(
  container: MedusaContainer,
  { payment, orderId, orderCanceled, replaced }: InterruptedCancel,
  now: Date
): Promise<PaymentAction[]> {
  const paymentModule = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
  const released = () => parseSessionData(payment.data)?.state === "canceled"
  if (replaced) {
    // Medusa replaced the payment (an order edit): the payment's cancel is finished, the order left as the owner made it.
    await paymentModule.cancelPayment(payment.id)
    return [
      await noteCancel(container, payment, now, {
        status: "cancel_recovered",
        attention: false,
        message: `the release of a payment of order ${orderId} that Medusa replaced with a new payment collection (an edit of the order) stopped midway; finished: the payment is canceled and its approval released, the order is as it was edited`,
      }),
    ]
  }
  let canceled = orderCanceled ? true : await cancelOrder(container, orderId)
  // Refused because the owner's own second cancel got there first: the order is canceled all the same.
  if (canceled !== true && (await orderStatusOf(container, orderId)) === "canceled") canceled = true
  if (canceled !== true) {
    if (released() && !payment.canceled_at) await paymentModule.cancelPayment(payment.id)
    return [
      await noteCancel(container, payment, now, {
        status: "cancel_not_finished",
        attention: true,
        message: released()
          ? `the cancel of order ${orderId} stopped midway after the card service released its approval, and Medusa will not cancel the order now (${canceled}): it is open with no money held for it; collect the payment another way, or cancel the order`
          : `the cancel of order ${orderId} stopped midway before its approval was released, and Medusa will not cancel the order now (${canceled}): its payment stays authorized; cancel the order again once it can be, or capture the payment`,
      }),
    ]
  }
  const [current] = (await paymentModule.listPayments(
    { id: payment.id },
    { select: ["id", "canceled_at"] }
  )) as unknown as Array<{ canceled_at: string | Date | null }>
  if (!current?.canceled_at) await paymentModule.cancelPayment(payment.id)
  return [
    await noteCancel(container, payment, now, {
      status: "cancel_recovered",
      attention: false,
      message: orderCanceled
        ? `order ${orderId} was canceled, but Medusa's write of its canceled payment failed; the payment is canceled now and its approval released`
        : `the cancel of order ${orderId} stopped midway (its instance stopped or lost its database); finished: the order is canceled and its approval released`,
    }),
  ]
}

async function orderStatusOf(container: MedusaContainer, orderId: string): Promise<string | undefined> {
  const { data } = await container.resolve(ContainerRegistrationKeys.QUERY).graph({
    entity: "order",
    fields: ["status"],
    filters: { id: orderId },
  })
  return (data[0] as { status?: string } | undefined)?.status
}

async function noteCancel(
  container: MedusaContainer,
  payment: InterruptedCancel["payment"],
  now: Date,
  note: Required<Pick<CancelMark, "status" | "attention" | "message">>
): Promise<PaymentAction> {
  const paymentModule = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
  // The row as it is now: the cancel wrote data and canceled_at since it was listed.
  const [row] = (await paymentModule.listPayments({ id: payment.id }, { select: ["id", "metadata"] })) as unknown as Array<{
    metadata: Record<string, unknown> | null
  }>
  const metadata = row?.metadata ?? payment.metadata
  const mark: CancelMark = { ...(cancelMarkOf(metadata) as CancelMark), ...note, at: now.toISOString(), final: true }
  // updatePayment writes the row only (no provider call); its DTO type names fewer columns than the model has.
  await paymentModule.updatePayment({
    id: payment.id,
    metadata: withCardServiceField(metadata, "cancel", mark),
  } as Parameters<IPaymentModuleService["updatePayment"]>[0])
  return { payment_id: payment.id, status: note.status, message: note.message }
}

/** Payments created since `since` whose cancel, or money it recorded on their order (order-records.ts), the sweep noted (Needs attention lists them). */
export async function paymentsWithCancelOrOrderNotes(container: MedusaContainer, since: Date): Promise<string[]> {
  const knex = container.resolve<Knex>(ContainerRegistrationKeys.PG_CONNECTION)
  const { rows } = await knex.raw(
    `select "id" from "payment"
      where "deleted_at" is null and "created_at" >= ?
        and (("metadata"->'card_service'->'cancel'->>'status') is not null
          or ("metadata"->'card_service'->'order'->>'status') is not null)
      order by "created_at" desc
      limit 1000`,
    [since.toISOString()]
  )
  return rows.map((row) => row.id)
}

/** The sweep's note on a payment's cancel, as Needs attention lists it; undefined when there is none. */
export function cancelNoteOf(metadata: unknown): (CancelMark & Required<Pick<CancelMark, "status" | "message" | "at">>) | undefined {
  const mark = cancelMarkOf(metadata)
  return mark?.status && mark.message && mark.at ? (mark as never) : undefined
}
