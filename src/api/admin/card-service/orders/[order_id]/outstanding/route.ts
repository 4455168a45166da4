import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ORDER_ID } from "../../../../../../lib/identifier-limits"
import { newOutstandingLink, orderOutstanding } from "../../../order-outstanding"
import type { OrderOutstandingResponse } from "../../../response-types"

/**
 * GET /admin/card-service/orders/:order_id/outstanding - what the order owes
 * after an edit and the newest link to the hosted payment page that collects
 * it, for the order widget. `outstanding` is null when nothing is owed.
 */
export async function GET(req: AuthenticatedMedusaRequest, res: MedusaResponse) {
  const orderId = req.params.order_id
  // input-limits.ts answers a malformed id before this; kept for a direct call.
  if (!ORDER_ID.test(orderId)) {
    return res.status(400).json({ message: "order_id must be an order id (order_...)" })
  }
  const outstanding = await orderOutstanding(req.scope, orderId)
  res.setHeader("Cache-Control", "no-store")
  res.json({ outstanding } satisfies OrderOutstandingResponse)
}

/**
 * POST /admin/card-service/orders/:order_id/outstanding - a new link for
 * what the order owes: a card-service payment session on the order's
 * collection (an earlier link stops working). 409 when the order owes
 * nothing, or its region offers no card-service provider.
 */
export async function POST(req: AuthenticatedMedusaRequest, res: MedusaResponse) {
  const orderId = req.params.order_id
  if (!ORDER_ID.test(orderId)) {
    return res.status(400).json({ message: "order_id must be an order id (order_...)" })
  }
  const outstanding = await orderOutstanding(req.scope, orderId)
  if (!outstanding) {
    return res.status(409).json({
      type: "not_allowed",
      message: "This order owes nothing to collect: there is no unpaid amount from an order edit.",
    })
  }
  const providerId = outstanding.provider_id
  if (!providerId) {
    return res.status(409).json({
      type: "not_allowed",
      message: "The order's region does not offer card-service payments: add the card service to the region first.",
    })
  }
  const withLink = await newOutstandingLink(req.scope, { ...outstanding, provider_id: providerId })
  res.setHeader("Cache-Control", "no-store")
  res.json({ outstanding: withLink } satisfies OrderOutstandingResponse)
}
