import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { payPageScript } from "../../../../checkout/browser-bundle"

/** GET /card-service/assets/pay-page.js - the payment page's script (card brand, Luhn). */
export async function GET(req: MedusaRequest, res: MedusaResponse) {
  const { code, etag } = await payPageScript()
  res.setHeader("Content-Type", "text/javascript; charset=utf-8")
  res.setHeader("Cache-Control", "public, max-age=3600")
  res.setHeader("X-Content-Type-Options", "nosniff")
  res.setHeader("ETag", etag)
  if (req.headers["if-none-match"] === etag) {
    return res.status(304).end()
  }
  res.status(200).send(code)
}
