import type {
  AuthenticatedMedusaRequest,
  MedusaResponse,
} from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { CardServiceError } from "../../../../lib/card-service-error"
import { serviceBaseUrl } from "../../../../providers/card-service/options"
import type { TestConnectionResponse } from "../response-types"
import { cardServiceProviders } from "../settings-view"
import type { AdminCardServiceTestConnectionType } from "../validators"

/**
 * POST /admin/card-service/test-connection - asks the service for a fresh
 * merchant verification code (section 4.1, one try) and reports whether that
 * worked and how long it took, or the failure's category and message. The
 * code itself never leaves the server. A failed test is still a 200: the
 * question was answered, and the answer is "no".
 */
export async function POST(
  req: AuthenticatedMedusaRequest<AdminCardServiceTestConnectionType>,
  res: MedusaResponse
) {
  const providers = await cardServiceProviders(req.scope)
  const requested = req.validatedBody.provider_id
  if (!requested && providers.length > 1) {
    throw new MedusaError(
      MedusaError.Types.INVALID_DATA,
      `Several card-service providers are configured (${providers.map((p) => p.id).join(", ")}): give provider_id`
    )
  }
  const chosen = requested
    ? providers.find((p) => p.id === requested)
    : providers[0]
  if (!chosen) {
    throw new MedusaError(
      MedusaError.Types.NOT_FOUND,
      requested
        ? `Card-service provider ${requested} is not configured`
        : "No card-service provider is configured"
    )
  }
  const answer = {
    provider_id: chosen.id,
    service_url: serviceBaseUrl(chosen.provider.options),
    checked_at: new Date().toISOString(),
  }
  res.setHeader("Cache-Control", "no-store")
  try {
    const { latencyMs } = await chosen.provider.client.testConnection()
    res.json({
      ...answer,
      ok: true,
      latency_ms: latencyMs,
    } satisfies TestConnectionResponse)
  } catch (error) {
    if (!CardServiceError.is(error)) throw error
    res.json({
      ...answer,
      ok: false,
      error: {
        category: error.category,
        message: error.message,
        http_status: error.httpStatus ?? null,
      },
    } satisfies TestConnectionResponse)
  }
}
