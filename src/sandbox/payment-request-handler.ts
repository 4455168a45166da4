import { IncomingMessage, ServerResponse } from "node:http"
import { currencyDigits, parseMajorAmount } from "./amount-rules"
import { errorPage } from "./html-pages"
import { mediaTypeOf, readBody, redirect, sendHtml } from "./http-io"
import {
  checkCard,
  checkDeliveryUrls,
  checkOrderFields,
  DeliveryUrls,
  requestedStep,
} from "./order-validation"
import { deliver, finishPayment, resultLocation } from "./payment-result"
import { SandboxContext } from "./sandbox-context"
import { DEFAULT_CARD_BEHAVIOUR, findTestCard } from "./test-cards"
import { startChallenge } from "./three-ds-handler"
import { isVerified } from "./verification-handler"

type Form = Map<string, string>

/**
 * POST /order/start (section 4.2): checks that a browser sent the form and
 * that the merchant is verified, then the fields, the reference and the
 * card; a valid request goes on to 3DS (challenge or frictionless).
 */
export async function handleOrderStart(
  ctx: SandboxContext,
  req: IncomingMessage,
  res: ServerResponse
): Promise<void> {
  // A fault that names /order/start (docs/sandbox.md, "Fault knobs"): the
  // service down, slow or cut off before it looks at the request.
  const fault = ctx.faults.takeNamed("/order/start")
  if (fault?.type === "status") {
    await readBody(req)
    ctx.logger.debug?.(`POST /order/start -> ${fault.status} (fault knob)`)
    return sendHtml(
      res,
      fault.status,
      errorPage(
        "Service unavailable",
        "The payment service cannot take payments just now. Try again in a moment."
      )
    )
  }
  if (fault?.type === "destroy") {
    ctx.logger.debug?.(
      "POST /order/start: connection destroyed before processing (fault knob)"
    )
    req.socket.destroy()
    return
  }
  if (fault?.type === "delay") {
    await new Promise<void>((resolve) =>
      ctx.dispatcher.schedule(resolve, fault.ms)
    )
  }
  const form = await readBrowserForm(ctx, req, res)
  if (!form) {
    return
  }
  if (!isVerified(ctx, form.get("verifyId"), form.get("authorization"))) {
    // wire-choices: an unverified merchant gets a page and no callback; its
    // callbackLocation cannot be trusted.
    ctx.logger.debug?.("POST /order/start -> 401 (merchant not verified)")
    return sendHtml(
      res,
      401,
      errorPage(
        "Merchant not verified",
        "The verifyId and authorization fields must carry the merchant code and a current verification code from GET /authorize."
      )
    )
  }
  // The code is a form code from now on (codeScoping).
  ctx.verificationCodes.markFormUse(form.get("authorization") as string)

  const urls = checkDeliveryUrls(form)
  if (!urls.ok) {
    const tx = recordRejectedOrder(ctx, form, urls.reasonCode)
    ctx.logger.debug?.(
      `POST /order/start -> 400 (${urls.reasonCode}: ${urls.fields.join(", ")})`
    )
    return sendHtml(
      res,
      400,
      errorPage(
        "Payment request refused",
        'The result cannot be delivered: callbackLocation and redirectUrl must be absolute http(s) URLs that end with "/" (section 8).',
        {
          reasonCode: urls.reasonCode,
          fields: urls.fields.join(", "),
          transactionId: tx.transactionId,
        }
      )
    )
  }

  const checked = checkOrderFields(
    form,
    urls.urls,
    ctx.credentials.merchantId,
    ctx.now()
  )
  if (!checked.ok) {
    ctx.logger.debug?.(
      `POST /order/start -> ${checked.reasonCode} (${checked.fields.join(", ")})`
    )
    return rejectOrder(ctx, res, form, urls.urls, checked.reasonCode)
  }
  const { order } = checked
  // Section 8: 104 for a reference used in the last 15 minutes. Checked
  // after the field rules so that a malformed request reports its fields.
  if (
    ctx.references.isDuplicate(order.merchantId, order.merchantReferenceCode)
  ) {
    return rejectOrder(ctx, res, form, urls.urls, "104")
  }
  const cardCode = checkCard(
    form.get("cardAccountNumber")!,
    order.cardType,
    checked.expiry,
    ctx.now()
  )
  if (cardCode) {
    return rejectOrder(ctx, res, form, urls.urls, cardCode)
  }

  const card =
    findTestCard(form.get("cardAccountNumber")!) ?? DEFAULT_CARD_BEHAVIOUR
  if (card.threeDs === "frictionless") {
    const authenticated = card.reasonCode !== "475" && card.reasonCode !== "476"
    return finishPayment(ctx, res, order, card, authenticated, undefined)
  }
  startChallenge(ctx, res, order, card)
}

/**
 * The form of a browser's payment request, or undefined once a refusal page
 * has been sent. Section 4.2: only a form submitted in a web browser. The
 * content type shows a form; Fetch Metadata shows a top-level navigation,
 * which a fetch() from a page (mode cors/no-cors) or a server (no header) is not.
 */
async function readBrowserForm(
  ctx: SandboxContext,
  req: IncomingMessage,
  res: ServerResponse
): Promise<Form | undefined> {
  const raw = await readBody(req)
  if (req.method !== "POST") {
    res.setHeader("allow", "POST")
    sendHtml(
      res,
      405,
      errorPage("Method not allowed", "Submit the payment form with POST.")
    )
    return undefined
  }
  const type = mediaTypeOf(req)
  if (type !== "application/x-www-form-urlencoded") {
    ctx.logger.debug?.(
      `POST /order/start -> 415 (content type ${type || "none"})`
    )
    sendHtml(
      res,
      415,
      errorPage(
        "Payment request refused",
        "The payment request must be a browser form submission (Content-Type application/x-www-form-urlencoded)."
      )
    )
    return undefined
  }
  if (
    req.headers["sec-fetch-mode"] !== "navigate" ||
    req.headers["sec-fetch-dest"] !== "document"
  ) {
    ctx.logger.debug?.(
      "POST /order/start -> 403 (not a top-level browser navigation)"
    )
    sendHtml(
      res,
      403,
      errorPage(
        "Payment request refused",
        "The payment request must be a form submitted by a web browser as a page navigation (Sec-Fetch-Mode: navigate, Sec-Fetch-Dest: document). Requests from scripts, frames or servers are not allowed."
      )
    )
    return undefined
  }
  if (raw === undefined) {
    sendHtml(
      res,
      413,
      errorPage("Payment request refused", "The form is too large.")
    )
    return undefined
  }
  const form: Form = new Map()
  for (const [name, value] of new URLSearchParams(raw.toString("utf8"))) {
    // The first value of a repeated field counts, as in most form parsers.
    if (!form.has(name)) {
      form.set(name, value)
    }
  }
  return form
}

/** Records a refused payment request with whatever of its fields can be read. */
function recordRejectedOrder(
  ctx: SandboxContext,
  form: Form,
  reasonCode: string
) {
  const currency = form.get("currency") ?? ""
  const digits = currencyDigits(currency)
  const number = form.get("cardAccountNumber") ?? ""
  const wellFormed = /^\d{12,19}$/.test(number)
  return ctx.store.add({
    merchantId: ctx.credentials.merchantId,
    merchantReferenceCode: form.get("merchantReferenceCode") ?? "",
    originalTransactionId: "",
    step: requestedStep(form),
    reasonCode,
    cardType: form.get("cardType") ?? "",
    currency,
    digits,
    amountMinor:
      digits === undefined
        ? 0
        : (parseMajorAmount(form.get("amount"), digits) ?? 0),
    cardPrefix: wellFormed ? number.slice(0, 6) : "",
    cardSuffix: wellFormed ? number.slice(-4) : "",
  })
}

/**
 * 101, 102, 104 and the card checks are payment results like any other
 * (docs/sandbox.md): recorded, sent to callbackLocation, and the browser
 * moves to redirectUrl.
 */
function rejectOrder(
  ctx: SandboxContext,
  res: ServerResponse,
  form: Form,
  urls: DeliveryUrls,
  reasonCode: string
): Promise<void> {
  const tx = recordRejectedOrder(ctx, form, reasonCode)
  const payload: Record<string, string> = {
    decision: "REJECT",
    reasonCode,
    transactionId: tx.transactionId,
    originalTransactionId: "",
    merchantReferenceCode: tx.merchantReferenceCode,
  }
  return deliver(ctx, urls.callbackLocation, payload, (onSent) =>
    redirect(res, resultLocation(urls.redirectUrl, payload), onSent)
  )
}
