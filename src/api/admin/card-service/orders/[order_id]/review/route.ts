import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ORDER_ID } from "../../../../../../lib/identifier-limits"
import { orderReview } from "../../../order-review"
import type { OrderReviewResponse } from "../../../response-types"

/**
 * GET /admin/card-service/orders/:order_id/review - the order's payment under
 * review, for the order widget: on hold, or what the verdict did. `review`
 * is null for an order whose payment was never marked for review.
 */
export async function GET(req: AuthenticatedMedusaRequest, res: MedusaResponse) {
  const orderId = req.params.order_id
  // input-limits.ts answers a malformed id before this; kept for a direct call.
  if (!ORDER_ID.test(orderId)) {
    return res.status(400).json({ message: "order_id must be an order id (order_...)" })
  }
  const review = await orderReview(req.scope, orderId)
  res.setHeader("Cache-Control", "no-store")
  res.json({ review } satisfies OrderReviewResponse)
}
