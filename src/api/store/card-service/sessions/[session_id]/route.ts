import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { summarizeSession } from "../../session-summary"

/**
 * GET /store/card-service/sessions/:session_id - the state of a card-service
 * payment session, for a storefront that polls (windowed 3DS, or a return
 * that arrived before the result).
 */
export async function GET(req: MedusaRequest, res: MedusaResponse) {
  const summary = await summarizeSession(req.scope, req.params.session_id, req)
  if (!summary) {
    throw new MedusaError(MedusaError.Types.NOT_FOUND, "Card-service payment session not found")
  }
  res.setHeader("Cache-Control", "no-store")
  res.json({ session: summary })
}
