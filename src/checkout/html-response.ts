import { randomBytes } from "node:crypto"
import type { MedusaResponse } from "@medusajs/framework/http"
import { messagePageCsp, renderMessagePage } from "../lib/payment-page-html"

export function nonce(): string {
  return randomBytes(16).toString("base64")
}

/** Headers every page of the checkout gets: never cached, never framed. */
export function setPageHeaders(res: MedusaResponse, csp: string): void {
  res.setHeader("Content-Type", "text/html; charset=utf-8")
  res.setHeader("Cache-Control", "no-store")
  res.setHeader("Content-Security-Policy", csp)
  res.setHeader("X-Content-Type-Options", "nosniff")
  res.setHeader("Referrer-Policy", "no-referrer")
  res.setHeader("X-Frame-Options", "DENY")
}

export function sendMessagePage(
  res: MedusaResponse,
  status: number,
  page: { title: string; message: string; link?: { href: string; text: string } }
): void {
  const value = nonce()
  setPageHeaders(res, messagePageCsp(value))
  res.status(status).send(renderMessagePage({ ...page, nonce: value }))
}
