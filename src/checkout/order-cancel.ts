import type { IOrderModuleService, MedusaContainer } from "@medusajs/framework/types"
import { MedusaError, Modules } from "@medusajs/framework/utils"
import { cancelOrderWorkflow } from "@medusajs/medusa/core-flows"

/** Medusa's answers that an order cannot be canceled as it stands: the store owner's to settle. */
const REFUSALS: string[] = [MedusaError.Types.NOT_ALLOWED, MedusaError.Types.INVALID_DATA]

/** Whether `error` is Medusa refusing the cancel, not a cancel that could not run (a dropped connection, a lock timeout). */
export function isCancelRefused(error: unknown): boolean {
  return MedusaError.isMedusaError(error) && REFUSALS.includes((error as MedusaError).type)
}

/**
 * Cancels an order through Medusa's own cancelOrderWorkflow, for the
 * plugin's own cancels: an order on hold whose review did not approve the
 * payment, and an order whose cancel by the store owner stopped midway
 * (reconciliation/interrupted-cancels.ts). Returns true, or the reason
 * Medusa refused (NOT_ALLOWED, INVALID_DATA: a fulfilled order, one the
 * store owner is changing). Any other failure is thrown: it says nothing
 * about the order, and the caller tries again later.
 */
export async function cancelOrder(container: MedusaContainer, orderId: string): Promise<true | string> {
  const cancel = () => cancelOrderWorkflow(container).run({ input: { order_id: orderId } })
  try {
    await cancel()
    return true
  } catch (error) {
    if (!isCancelRefused(error)) throw error
    if (!(await withdrawDeadCancelChange(container, orderId))) return (error as Error).message
  }
  try {
    await cancel()
    return true
  } catch (error) {
    if (!isCancelRefused(error)) throw error
    return (error as Error).message
  }
}

/** A workflow creates and confirms its credit-line change within a moment; one older is a dead workflow's. */
const DEAD_CHANGE_AGE_MS = 10_000

/**
 * cancelOrderWorkflow records a credit line in an order change it creates and
 * then confirms (createOrderRefundCreditLinesWorkflow). A cancel whose
 * instance died between the two leaves that change active, and Medusa
 * refuses every later cancel of the order ("already has an existing active
 * order change"): the order stayed open with no payment (bench:soak). Only
 * such a change is withdrawn: a credit-line change, which Medusa's own
 * workflows never leave unconfirmed, older than a workflow takes. Any other
 * active change (an edit, a return, an exchange) is the store owner's work
 * and stays; the order then goes to Needs attention. A credit-line change
 * younger than that may be a workflow running now: the cancel is tried
 * again later (thrown).
 */
async function withdrawDeadCancelChange(container: MedusaContainer, orderId: string): Promise<boolean> {
  const orders = container.resolve<IOrderModuleService>(Modules.ORDER)
  const changes = await orders.listOrderChanges(
    { order_id: orderId, status: ["pending", "requested"], change_type: "credit_line" } as never,
    { select: ["id", "created_at"] }
  )
  if (!changes.length) return false
  const cutoff = Date.now() - DEAD_CHANGE_AGE_MS
  if (changes.some((change) => new Date(change.created_at).getTime() > cutoff)) {
    throw new Error(`order ${orderId} has a credit-line change being made now; its cancel is tried again later`)
  }
  await orders.cancelOrderChange(changes.map((change) => change.id))
  return true
}
