import type {
  AuthenticatedMedusaRequest,
  MedusaResponse,
} from "@medusajs/framework/http"
import { reconcileEntries } from "../../../../reconciliation/attention-list"
import type { ReconciliationResponse } from "../response-types"

/**
 * GET /admin/card-service/reconciliation - what the sweep found and did
 * (docs/reconciliation.md): cases that need the store owner first, then
 * what was settled. Transaction ids and references only; no secrets.
 */
export async function GET(
  req: AuthenticatedMedusaRequest,
  res: MedusaResponse
) {
  const entries = await reconcileEntries(req.scope)
  res.setHeader("Cache-Control", "no-store")
  res.json({ entries } satisfies ReconciliationResponse)
}
