import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from "@medusajs/framework/http"

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"])

/**
 * The plugin's admin routes change money at the service (void, test
 * connection), and a browser sends the admin's session cookie with a form
 * another site auto-submits. A form can only send form-encoded, multipart or
 * text bodies, so these routes take JSON only (415 otherwise), and a
 * cookie-authenticated request that the browser says came from another site
 * (Sec-Fetch-Site) or from a foreign Origin is refused (403). A request with
 * an Authorization header (API key, bearer token) carries no ambient
 * credential and is not subject to the origin check.
 */
export function adminRequestGuard(
  req: MedusaRequest,
  res: MedusaResponse,
  next: MedusaNextFunction
) {
  if (req.headers.cookie && !req.headers.authorization && isCrossSite(req)) {
    return res.status(403).json({
      type: "not_allowed",
      message: "Cross-site requests to the card-service admin routes are refused.",
    })
  }
  if (!SAFE_METHODS.has(req.method) && hasBody(req) && !isJson(req.headers["content-type"])) {
    return res.status(415).json({
      type: "unsupported_media_type",
      message: "The card-service admin routes take application/json bodies only.",
    })
  }
  return next()
}

function hasBody(req: MedusaRequest): boolean {
  const length = Number(req.headers["content-length"] ?? 0)
  return length > 0 || req.headers["transfer-encoding"] !== undefined
}

function isJson(contentType: string | undefined): boolean {
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase()
  return type === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(type)
}

function isCrossSite(req: MedusaRequest): boolean {
  const site = String(req.headers["sec-fetch-site"] ?? "").toLowerCase()
  if (site === "cross-site") return true
  // same-site is another origin of the same site (another port, a
  // subdomain): allowed only when its Origin is an admin origin below.
  const origin = req.headers.origin
  if (!origin) {
    // Browsers send Origin with every cross-origin POST; a browser without
    // Fetch Metadata or Origin is judged by the site header alone.
    return site === "same-site"
  }
  return !allowedOrigins(req).has(origin)
}

/** The backend's own origin and the configured admin CORS origins. */
function allowedOrigins(req: MedusaRequest): Set<string> {
  const allowed = new Set<string>()
  const host = req.headers["x-forwarded-host"] ?? req.headers.host
  if (host) {
    allowed.add(`${req.protocol}://${host}`)
  }
  const config = req.scope.resolve("configModule") as {
    projectConfig?: { http?: { adminCors?: string } }
  }
  for (const entry of (config.projectConfig?.http?.adminCors ?? "").split(",")) {
    try {
      allowed.add(new URL(entry.trim()).origin)
    } catch {
      // A regular expression or an empty entry: not an origin to match exactly.
    }
  }
  return allowed
}
