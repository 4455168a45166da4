import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ORDER_ID } from "../../../lib/identifier-limits"

/**
 * The :order_id of an /admin/card-service/orders/:order_id route, or null
 * once it has answered 400 for an id that is no order id. input-limits.ts
 * answers a malformed id before the route; this is kept for a direct call.
 */
export function orderIdParam(req: MedusaRequest, res: MedusaResponse): string | null {
  const orderId = req.params.order_id
  if (ORDER_ID.test(orderId)) return orderId
  res.status(400).json({ message: "order_id must be an order id (order_...)" })
  return null
}
