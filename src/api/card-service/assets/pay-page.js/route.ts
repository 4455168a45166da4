import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { payPageScript } from "../../../../checkout/browser-bundle"
import { chooseEncoding } from "../../../../lib/response-compression"

/**
 * GET /card-service/assets/pay-page.js - the payment page's script (card
 * company, Luhn, messages by each field), brotli or gzip when asked for.
 */
export async function GET(req: MedusaRequest, res: MedusaResponse) {
  const bundle = await payPageScript()
  const encoding = chooseEncoding(req.headers["accept-encoding"])
  const { bytes, etag } = bundle.encoded(encoding)
  res.setHeader("Content-Type", "text/javascript; charset=utf-8")
  res.setHeader("Cache-Control", "public, max-age=3600")
  res.setHeader("X-Content-Type-Options", "nosniff")
  res.setHeader("Vary", "Accept-Encoding")
  res.setHeader("ETag", etag)
  if (ifNoneMatch(req.headers["if-none-match"]).includes(etag)) {
    return res.status(304).end()
  }
  if (encoding !== "identity") res.setHeader("Content-Encoding", encoding)
  res.setHeader("Content-Length", bytes.length)
  res.status(200).end(bytes)
}

/** The tags of If-None-Match, weak or strong alike (a GET compares weakly). */
function ifNoneMatch(header: string | string[] | undefined): string[] {
  const value = Array.isArray(header) ? header.join(",") : (header ?? "")
  return value.split(",").map((tag) => tag.trim().replace(/^W\//, ""))
}
