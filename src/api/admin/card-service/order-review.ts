import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import type { OrderReviewResponse } from "./response-types"
import { cardServiceProvider, PROVIDER_ID_PREFIX } from "../../../checkout/provider-lookup"
import { notesOf } from "../../../payment-notes/session-notes"
import { withOrderDisplayIds } from "./order-display-ids"

type SessionRow = {
  id: string
  status: string
  provider_id: string
  data?: { failure?: { code?: string } | null } | null
  metadata?: unknown
}

/**
 * The order's card-service payment that was marked for review (480), as the
 * order widget shows it: on hold until the verdict, then what the verdict did
 * (review-verdict.ts notes it on the session). Null for any other order.
 */
export async function orderReview(
  container: MedusaContainer,
  orderId: string
): Promise<OrderReviewResponse["review"]> {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const { data } = await query.graph({
    entity: "order",
    fields: [
      "id",
      "status",
      "created_at",
      "payment_collections.payment_sessions.id",
      "payment_collections.payment_sessions.status",
      "payment_collections.payment_sessions.provider_id",
      "payment_collections.payment_sessions.data",
      "payment_collections.payment_sessions.metadata",
    ],
    filters: { id: orderId },
  })
  const order = data[0]
  if (!order) return null
  const sessions = ((order.payment_collections ?? []) as { payment_sessions?: SessionRow[] }[])
    .flatMap((collection) => collection.payment_sessions ?? [])
    .filter((session) => session.provider_id.startsWith(PROVIDER_ID_PREFIX))
  for (const session of sessions) {
    const note = notesOf(session.metadata).reconcile
    const reviewed = session.status === "pending_authorization" || note?.review
    if (!reviewed) continue
    const since = new Date(order.created_at as string)
    const timeoutMs = cardServiceProvider(container, session.provider_id).options.reviewTimeoutMs
    const deadline = new Date(since.getTime() + timeoutMs)
    const base = { session_id: session.id, since: since.toISOString(), deadline: deadline.toISOString() }
    if (note?.review) {
      const [message] = await withOrderDisplayIds(container, [note.message])
      return {
        ...base,
        state: note.review,
        decided_at: note.at,
        message,
        needs_action: note.review === "not_canceled" || note.review === "not_released",
      }
    }
    if (order.status === "canceled") {
      return {
        ...base,
        state: "expired",
        decided_at: null,
        message: "No verdict came in time: the order was canceled and its stock released. An approval that still comes is reversed.",
        needs_action: false,
      }
    }
    // The deadline is a row of its own, in the admin's date format (issue
    // 41: an ISO timestamp in this text sat above rows in that format).
    return {
      ...base,
      state: "on_hold",
      decided_at: null,
      message: "The card service is reviewing this payment (480). Hold the order: do not fulfil it until the verdict. Approved, its payment is authorized; rejected, or with no verdict by the time below, the order is canceled and its stock released.",
      needs_action: false,
    }
  }
  return null
}
