import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { orderIdParam } from "../../../order-param"
import { orderReview } from "../../../order-review"
import type { OrderReviewResponse } from "../../../response-types"

/**
 * GET /admin/card-service/orders/:order_id/review - the order's payment under
 * review, for the order widget: on hold, or what the verdict did. `review`
 * is null for an order whose payment was never marked for review.
 */
export async function GET(req: AuthenticatedMedusaRequest, res: MedusaResponse) {
  const orderId = orderIdParam(req, res)
  if (!orderId) return
  const review = await orderReview(req.scope, orderId)
  res.setHeader("Cache-Control", "no-store")
  res.json({ review } satisfies OrderReviewResponse)
}
