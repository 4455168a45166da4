import {
  errorHandler,
  type MedusaNextFunction,
  type MedusaRequest,
  type MedusaResponse,
} from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { MALFORMED_URL, PLUGIN_ROUTE_PREFIXES } from "./input-limits"

/**
 * Medusa's own `/admin*` middleware (setSecretApiKeyContext) is sorted
 * before every deeper matcher, so on /admin/card-service/... express decodes
 * the path for it before pluginInputGuard (input-limits.ts) runs: a
 * malformed escape becomes express's URIError (status 400, no `expose`), which Medusa's error handler
 * answers 500. This handler answers it 400 with pluginInputGuard's sentence on
 * the plugin's routes and leaves every other error, and every other route, to
 * Medusa's handler. Medusa keeps one error handler per app (the last
 * middlewares file that sets one): a store that sets its own replaces this.
 */
export function pluginErrorHandler(
  fallback: ReturnType<typeof errorHandler> = errorHandler()
) {
  return function cardServiceErrorHandler(
    error: unknown,
    req: MedusaRequest,
    res: MedusaResponse,
    next: MedusaNextFunction
  ) {
    // Below a prefix: the prefix itself holds no escape to fail on.
    const path = req.originalUrl.split("?")[0]
    const ours = PLUGIN_ROUTE_PREFIXES.some((prefix) =>
      path.startsWith(`${prefix}/`)
    )
    const undecodable =
      error instanceof Error &&
      error.name === "URIError" &&
      (error as { status?: unknown }).status === 400
    return fallback(
      ours && undecodable
        ? new MedusaError(MedusaError.Types.INVALID_DATA, MALFORMED_URL)
        : error,
      req,
      res,
      next
    )
  }
}
