import { randomBytes } from "node:crypto"
import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import {
  messagePageCsp,
  renderMessagePage,
} from "../lib/checkout-pages/message-page-html"
import type { MessageKey, Translator } from "../lib/i18n"
import { chooseEncoding, prepareBody } from "../lib/response-compression"

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

/** Sends a page, brotli- or gzip-compressed when the browser asks for it. */
export function sendPage(
  req: MedusaRequest,
  res: MedusaResponse,
  status: number,
  html: string
): void {
  const body = prepareBody(
    res,
    html,
    chooseEncoding(req.headers["accept-encoding"])
  )
  res.status(status).end(body)
}

/** A page with a title and a sentence, in the shopper's language. */
export function sendMessagePage(
  req: MedusaRequest,
  res: MedusaResponse,
  status: number,
  text: Translator,
  page: {
    title: MessageKey
    message: MessageKey
    link?: { href: string; text: MessageKey }
  }
): void {
  const value = nonce()
  setPageHeaders(res, messagePageCsp(value))
  sendPage(
    req,
    res,
    status,
    renderMessagePage({
      title: text.t(page.title),
      message: text.t(page.message),
      lang: text.locale,
      nonce: value,
      link: page.link && { href: page.link.href, text: text.t(page.link.text) },
    })
  )
}
