import type {
  AuthenticatedMedusaRequest,
  MedusaResponse,
} from "@medusajs/framework/http"
import { glanceFigures } from "../glance-figures"
import type { GlanceResponse } from "../response-types"
import { cardServiceProviders } from "../settings-view"

/** The options' default grace (options.ts), for a store with no card-service provider. */
const DEFAULT_GRACE_MS = 15 * 60 * 1000

/**
 * GET /admin/card-service/figures - "Payments at a glance" for the last 24
 * hours and 7 days, from the database (glance-figures.ts): the same on
 * every instance. A session counts as abandoned once the sweep's grace
 * period (`reconcileGraceMs`) has passed with no result.
 */
export async function GET(
  req: AuthenticatedMedusaRequest,
  res: MedusaResponse
) {
  const providers = await cardServiceProviders(req.scope)
  const grace = Math.max(
    0,
    ...providers.map(({ provider }) => provider.options.reconcileGraceMs)
  )
  res.setHeader("Cache-Control", "no-store")
  res.json(
    (await glanceFigures(
      req.scope,
      new Date(),
      providers.length ? grace : DEFAULT_GRACE_MS
    )) satisfies GlanceResponse
  )
}
