import { authorizePaymentSessionForOrderWorkflow } from "@medusajs/medusa/core-flows"
import type {
  IEventBusModuleService,
  IPaymentModuleService,
  MedusaContainer,
  PaymentSessionDTO,
} from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { CardServiceError } from "../lib/card-service-error"
import type { TransactionRecord } from "../lib/wire-schemas"
import { checkApproval } from "../providers/card-service/approval-check"
import type { CardServiceSessionData, FailureReason } from "../providers/card-service/session-data"
import type CardServiceProviderService from "../providers/card-service/service"
import { isUnderReview, reasonText } from "../providers/card-service/status-mapping"
import { ApprovalNotReleased } from "../providers/card-service/approval-reversal"
import { notesOf, type ReconcileNote, sessionRowWriter, updateSessionNotes } from "../payment-notes/session-notes"
import { notReleasedNote } from "../payment-notes/not-released"
import type { SettleHint, SettleOutcome } from "./settle-types"
import { countExpiredReview } from "../observability/settlement-telemetry"
import { cancelOrder } from "./order-cancel"

/**
 * Events a store subscribes to (docs/reconciliation.md, "Orders on hold"),
 * for example to tell the shopper. Data: ReviewEventData.
 */
export const REVIEW_EVENTS = {
  /** The review approved the payment: the order's payment is authorized (captured with autoCapture). */
  approved: "card-service.review.approved",
  /** The review rejected the payment (481): the order is canceled, its stock released. */
  rejected: "card-service.review.rejected",
  /** No verdict within reviewTimeoutMs: the order is canceled, its stock released. */
  expired: "card-service.review.expired",
  /** An approval came after the order was canceled for want of a verdict: it was reversed. */
  approvalReversed: "card-service.review.approval_reversed",
  /**
   * An approval the order cannot take (it came after the order was canceled,
   * or is for another amount) whose reversal the service refused (238, 243):
   * its money may have been taken. In Needs attention, with what to do.
   */
  approvalNotReleased: "card-service.review.approval_not_released",
} as const

export type ReviewEventData = {
  order_id: string
  payment_session_id: string
  /** The service's reason code of the verdict (100, 481, ...); 480 for an expired review. */
  reason_code: string
  /**
   * Rejected and expired only: whether the order was canceled. False when
   * Medusa would not cancel it (fulfilled while on hold, or being changed by
   * the store owner): it is in Needs attention, and the shopper should not
   * be told it was canceled.
   */
  order_canceled?: boolean
}

type HeldOrder = { id: string; status: string; created_at: string | Date }

export type ReviewCase = {
  session: PaymentSessionDTO
  provider: CardServiceProviderService
  data: CardServiceSessionData
  cartId: string
  orderId: string
  now?: Date
  /**
   * What brought the verdict in: the service's callback, the shopper's
   * return, the storefront's poll, or the sweep asking. The sweep's look,
   * when nothing has changed, puts the next one off (putOffNextLook), so
   * that an order on hold, and one canceled for want of a verdict, cost the
   * service fewer calls as they age. The note says which it was: Needs
   * attention tells an action of the sweep's from one a callback brought.
   */
  source: SettleHint["source"]
}

/**
 * The order of a session in `pending_authorization` was placed on hold: its
 * payment was marked for review (480). Whatever reports on it (the verdict's
 * callback, the browser, the sweep), the service's record of the same
 * transaction decides (wire-choices "Reviews"):
 * - still 480: the order stays on hold, until reviewTimeoutMs after it was
 *   placed; then it is canceled (stock released) and the session stays
 *   `pending_authorization`, so a verdict that comes later is still seen;
 * - approved: the session is authorized through Medusa's
 *   authorizePaymentSessionForOrderWorkflow (which records the captures of an
 *   autoCapture store on the order), unless the order was canceled meanwhile:
 *   then the approval is reversed, never left held;
 * - anything else (481, a wrong amount): the order is canceled and the
 *   session canceled with the reason.
 * Runs under the session's settle lock, so duplicate and concurrent verdicts
 * (two instances) change the order once: the second finds the session
 * authorized or canceled and nothing left to do.
 */
export async function settleReview(container: MedusaContainer, review: ReviewCase): Promise<SettleOutcome> {
  const { session, provider, data, cartId, orderId, source } = review
  const now = review.now ?? new Date()
  const polled = source === "sweep"
  const order = await heldOrder(container, orderId)
  const record = await retrieveRecord(provider, data.transaction_id as string)
  const verdict = record
    ? checkApproval(record, data, (reference, id) => provider.sealer.referenceBelongsTo(reference, id))
    : null
  const eventData = (reasonCode: string): ReviewEventData => ({
    order_id: orderId,
    payment_session_id: session.id,
    reason_code: reasonCode,
  })

  if (!verdict || (verdict.outcome === "unapproved" && isUnderReview(verdict.reasonCode))) {
    const deadline = new Date(order.created_at).getTime() + provider.options.reviewTimeoutMs
    // Canceled already, or left to the store owner (it could not be): done
    // once. Still watched, for a verdict may yet come, but nothing more is
    // done, logged or counted until it does (issue 39: an expired review
    // was settled again on every sweep pass for a week).
    if (order.status === "canceled" || notesOf(session.metadata).reconcile?.review === "not_canceled") {
      if (polled) await putOffNextLook(container, session.id, now, provider.options.reviewTimeoutMs, null)
      return { kind: "review_closed", orderId, cartId, verdict: "expired", unchanged: true }
    }
    if (now.getTime() < deadline) {
      if (polled) await putOffNextLook(container, session.id, now, provider.options.reviewTimeoutMs, deadline)
      return { kind: "order", orderId, cartId, onHold: true }
    }
    const canceled = await cancelHeldOrder(container, review)
    await noteReview(
      container,
      session.id,
      canceled === true ? "expired" : "not_canceled",
      canceled === true
        ? `no verdict on the review within the time allowed: order ${orderId} was canceled and its stock released; an approval that still comes is reversed`
        : notCanceledMessage(orderId, "no verdict on the review came in time", canceled),
      now,
      source
    )
    countExpiredReview(data.transaction_id as string)
    await emit(container, REVIEW_EVENTS.expired, { ...eventData("480"), order_canceled: canceled === true })
    return { kind: "review_closed", orderId, cartId, verdict: "expired" }
  }

  if (verdict.outcome === "approved" && order.status !== "canceled") {
    await authorizePaymentSessionForOrderWorkflow(container).run({ input: { payment_session_id: session.id } })
    await noteReview(container, session.id, "approved", `the review approved the payment of order ${orderId}; it is authorized`, now, source)
    await emit(container, REVIEW_EVENTS.approved, eventData((record as TransactionRecord).reasonCode))
    return { kind: "order", orderId, cartId, review: "approved" }
  }

  if (verdict.outcome === "approved") {
    // Approved after the order was canceled for want of a verdict: money no
    // order takes, given back.
    const what = `the review approved the payment after order ${orderId} was canceled for want of a verdict`
    const released = await release(provider, data, record as TransactionRecord, what, now)
    if ("refused" in released) {
      await closeSession(container, session, data, { code: "not_released", message: released.refused.message })
      await noteNotReleased(container, session.id, { ...released.refused, by: source })
      await emit(container, REVIEW_EVENTS.approvalNotReleased, eventData((record as TransactionRecord).reasonCode))
      return { kind: "review_closed", orderId, cartId, verdict: "not_released" }
    }
    await closeSession(container, session, released.data, {
      code: "review_expired",
      message: "approved after the order was canceled; the approval was reversed",
    })
    await noteReview(container, session.id, "reversed", `${what}; the approval was reversed`, now, source)
    await emit(container, REVIEW_EVENTS.approvalReversed, eventData((record as TransactionRecord).reasonCode))
    return { kind: "review_closed", orderId, cartId, verdict: "reversed" }
  }

  // Rejected (481), or an approval that is not for what the order costs
  // (given back, as no order can take it).
  const released =
    verdict.outcome === "mismatch"
      ? await release(provider, data, record as TransactionRecord, `the review approved the payment of order ${orderId} for another amount or currency (${verdict.reason})`, now)
      : { data }
  const failure: FailureReason =
    verdict.outcome === "unapproved"
      ? { code: verdict.reasonCode, message: `${verdict.reason}: ${reasonText(verdict.reasonCode)}` }
      : { code: verdict.outcome === "mismatch" ? "mismatch" : "foreign_transaction", message: verdict.reason }
  const wasOpen = order.status !== "canceled"
  let canceled: true | string = true
  if (wasOpen) {
    canceled = await cancelHeldOrder(container, review)
    await noteReview(
      container,
      session.id,
      canceled === true ? "rejected" : "not_canceled",
      canceled === true
        ? `the review did not approve the payment (${failure.code}): order ${orderId} was canceled and its stock released`
        : notCanceledMessage(orderId, `the review did not approve the payment (${failure.code})`, canceled),
      now,
      source
    )
  }
  if ("refused" in released) {
    // What the store owner must act on first: the money may have been taken.
    await closeSession(container, session, data, failure)
    await noteNotReleased(container, session.id, { ...released.refused, by: source })
    await emit(container, REVIEW_EVENTS.approvalNotReleased, eventData((record as TransactionRecord).reasonCode))
  } else {
    await closeSession(container, session, released.data, failure)
  }
  if (wasOpen) await emit(container, REVIEW_EVENTS.rejected, { ...eventData(failure.code), order_canceled: canceled === true })
  return { kind: "review_closed", orderId, cartId, verdict: "refused" in released ? "not_released" : "rejected" }
}

/**
 * Reverses an approval no order takes. The session data comes back with the
 * reversal in its log (the order widget shows it); a reversal the service
 * refused (238, 243: the money may have been taken) comes back as the note
 * the store owner reads, for it must not be sent again pass after pass.
 */
async function release(
  provider: CardServiceProviderService,
  data: CardServiceSessionData,
  record: TransactionRecord,
  what: string,
  now: Date
): Promise<{ data: CardServiceSessionData } | { refused: ReconcileNote }> {
  try {
    return { data: await provider.releaseApproval(data, record) }
  } catch (error) {
    if (!ApprovalNotReleased.is(error)) throw error
    return { refused: { ...notReleasedNote(error, what, now), review: "not_released" } }
  }
}

/** The longest a look at an order on hold is put off, and the first wait. */
const LONGEST_LOOK_MS = 60 * 60 * 1000
const FIRST_LOOK_MS = 60 * 1000

/**
 * When the sweep next asks the service about an order on hold whose verdict
 * has not come: after 1 minute, then twice as long each time, at most an
 * hour (or a quarter of the review time, when that is shorter), and never
 * after the review's deadline. A verdict's callback needs no look: it is
 * settled when it comes. Written on the session's notes, which also moves
 * the session behind the others in the sweep's batch (listHeldSessions).
 */
async function putOffNextLook(
  container: MedusaContainer,
  sessionId: string,
  now: Date,
  reviewTimeoutMs: number,
  deadline: number | null
): Promise<void> {
  const longest = Math.max(FIRST_LOOK_MS, Math.min(LONGEST_LOOK_MS, reviewTimeoutMs / 4))
  await updateSessionNotes(container, sessionId, (current) => {
    const looks = current.review_look?.looks ?? 0
    const wait = Math.min(longest, FIRST_LOOK_MS * 2 ** looks)
    const next = deadline === null ? now.getTime() + wait : Math.min(deadline, now.getTime() + wait)
    return { ...current, review_look: { looks: looks + 1, next_at: new Date(next).toISOString() } }
  })
}

async function heldOrder(container: MedusaContainer, orderId: string): Promise<HeldOrder> {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const { data } = await query.graph({
    entity: "order",
    fields: ["id", "status", "created_at"],
    filters: { id: orderId },
  })
  if (!data[0]) throw new Error(`order ${orderId} of a payment under review was not found`)
  return data[0] as HeldOrder
}

/** The service's record of the transaction; null when it has none (the order stays on hold). */
async function retrieveRecord(
  provider: CardServiceProviderService,
  transactionId: string
): Promise<TransactionRecord | null> {
  try {
    return await provider.client.retrieve(transactionId)
  } catch (error) {
    if (error instanceof CardServiceError && error.httpStatus === 404) return null
    throw error
  }
}

/**
 * Cancels the order on hold through Medusa's own workflow (order-cancel.ts):
 * its reservations are released and its payment collection canceled (it has
 * no payment). Returns the reason Medusa would not (an order fulfilled while
 * on hold, or one the store owner is changing), or true: such an order is
 * left for the store owner, in Needs attention; the goods are out and no
 * money is held.
 *
 * A cancel that failed for any other reason (the database connection
 * dropped, a lock not had in time) is no answer of Medusa's about the
 * order: nothing is noted, the session's next look is made due now (best
 * effort: the database may be what failed), and the error is thrown, for
 * the verdict to be settled again (the delivery answers non-2xx; the sweep
 * looks). Noted at once, a second try that would have canceled the order was
 * left to the store owner (issue 42, bench:crash-points: six runs in the
 * middle row).
 */
async function cancelHeldOrder(container: MedusaContainer, { orderId, session }: ReviewCase): Promise<true | string> {
  try {
    return await cancelOrder(container, orderId)
  } catch (error) {
    await updateSessionNotes(container, session.id, (current) => {
      const { review_look: _putOff, ...rest } = current
      return rest
    }).catch(() => undefined)
    throw error
  }
}

function notCanceledMessage(orderId: string, what: string, why: true | string): string {
  return `${what}, but order ${orderId} could not be canceled (${why}). No money is held for it: recover the goods or collect the payment another way, then cancel or archive the order.`
}

/** What the verdict did, on the session: the order widget and Needs attention read it. */
async function noteReview(
  container: MedusaContainer,
  sessionId: string,
  review: "approved" | "rejected" | "expired" | "reversed" | "not_canceled",
  message: string,
  now: Date,
  by: SettleHint["source"]
): Promise<void> {
  await updateSessionNotes(container, sessionId, (current) => ({
    ...current,
    reconcile: {
      status: review === "not_canceled" ? "hold_not_canceled" : "review_closed",
      review,
      at: now.toISOString(),
      message,
      by,
    },
  }))
}

/** An approval the service would not reverse, on the session: Needs attention and the order widget show it. */
async function noteNotReleased(container: MedusaContainer, sessionId: string, note: ReconcileNote): Promise<void> {
  await updateSessionNotes(container, sessionId, (current) => ({ ...current, reconcile: note }))
}

/** The session after a negative verdict: canceled, with the reason, so nothing asks about it again. */
async function closeSession(
  container: MedusaContainer,
  session: PaymentSessionDTO,
  data: CardServiceSessionData,
  failure: FailureReason
): Promise<void> {
  const paymentModule = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
  await sessionRowWriter(paymentModule).update({
    id: session.id,
    data: { ...data, state: "canceled", failure } as unknown as Record<string, unknown>,
    status: "canceled",
  })
}

async function emit(container: MedusaContainer, name: string, data: ReviewEventData): Promise<void> {
  const eventBus = container.resolve<IEventBusModuleService>(Modules.EVENT_BUS)
  await eventBus.emit({ name, data })
}
