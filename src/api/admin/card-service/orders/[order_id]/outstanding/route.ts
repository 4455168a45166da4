import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { orderIdParam } from "../../../order-param"
import { newOutstandingLink, orderOutstanding } from "../../../order-outstanding"
import type { OrderOutstandingResponse } from "../../../response-types"

/**
 * GET /admin/card-service/orders/:order_id/outstanding - what the order owes
 * after an edit and the newest link to the hosted payment page that collects
 * it, for the order widget. `outstanding` is null when nothing is owed.
 */
export async function GET(req: AuthenticatedMedusaRequest, res: MedusaResponse) {
  const orderId = orderIdParam(req, res)
  if (!orderId) return
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
  const orderId = orderIdParam(req, res)
  if (!orderId) return
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
