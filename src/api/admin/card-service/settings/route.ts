import type {
  AuthenticatedMedusaRequest,
  MedusaResponse,
} from "@medusajs/framework/http"
import type { SettingsResponse } from "../response-types"
import { providerSettings } from "../settings-view"

/**
 * GET /admin/card-service/settings - how each configured card-service
 * provider is set up: the address in use, merchant and verify ids, the URLs
 * it hands out, its switches and the regions that offer it. No secret is in
 * the answer (see settings-view.ts).
 */
export async function GET(
  req: AuthenticatedMedusaRequest,
  res: MedusaResponse
) {
  const providers = await providerSettings(req.scope)
  res.setHeader("Cache-Control", "no-store")
  res.json({ providers } satisfies SettingsResponse)
}
