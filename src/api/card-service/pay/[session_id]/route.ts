import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import {
  nonce,
  sendMessagePage,
  sendPage,
  setPageHeaders,
} from "../../../../checkout/html-response"
import { preparePaymentAttempt } from "../../../../checkout/payment-attempt"
import {
  anyProviderMessages,
  shopperText,
} from "../../../../checkout/shopper-text"
import {
  paymentPageCsp,
  renderPaymentPage,
} from "../../../../lib/checkout-pages/payment-page-html"
import { isBillingField } from "../../../../lib/form-field-rules"
import { failureMessageKey } from "../../../../lib/i18n"

/** The page for a session that can no longer be paid, by why. */
const CANNOT_PAY_PAGES = {
  finished: { title: "paid.title", message: "paid.message" },
  tampered: { title: "altered.title", message: "altered.message" },
} as const

/**
 * GET /card-service/pay/:session_id - the hosted payment page. Outside /store
 * because a browser navigation sends no publishable key; the session id is
 * the capability, as the cart id is for the store API. In the shopper's
 * language (cart locale, else Accept-Language, else English); a shopper
 * sent back after a failed attempt reads why above the form.
 */
export async function GET(req: MedusaRequest, res: MedusaResponse) {
  const attempt = await preparePaymentAttempt(req.scope, req.params.session_id)
  switch (attempt.kind) {
    case "unknown":
      return sendMessagePage(
        req,
        res,
        404,
        shopperText(req, await anyProviderMessages(req.scope)),
        {
          title: "notFound.title",
          message: "notFound.message",
        }
      )
    case "finished":
    case "tampered":
      return sendMessagePage(
        req,
        res,
        409,
        shopperText(req, attempt.provider.options.messages, attempt.cartLocale),
        CANNOT_PAY_PAGES[attempt.kind]
      )
    case "busy":
      res.setHeader("Retry-After", "5")
      return sendMessagePage(
        req,
        res,
        503,
        shopperText(req, attempt.provider.options.messages, attempt.cartLocale),
        { title: "busy.title", message: "busy.message" }
      )
  }

  const { fields, data, provider } = attempt
  const text = shopperText(req, provider.options.messages, attempt.cartLocale)
  const hidden: Record<string, string> = {}
  const billing: Record<string, string> = {}
  for (const [name, value] of Object.entries(fields)) {
    if (isBillingField(name)) billing[name] = value
    else hidden[name] = value
  }
  const value = nonce()
  setPageHeaders(
    res,
    paymentPageCsp({
      action: attempt.action,
      nonce: value,
      returnOrigins: [
        provider.options.storefrontUrl,
        ...provider.options.allowedReturnOrigins,
      ],
    })
  )
  res.setHeader("Content-Language", text.locale)
  res.setHeader("Vary", "Accept-Language")
  sendPage(
    req,
    res,
    200,
    renderPaymentPage({
      action: attempt.action,
      hidden,
      billing,
      amount: data.amount,
      currencyCode: data.currency_code,
      storeName: provider.options.storeName,
      scriptUrl: "/card-service/assets/pay-page.js",
      nonce: value,
      cancelUrl: provider.options.storefrontUrl,
      currentYear: new Date().getUTCFullYear(),
      text,
      // Only a final failure: a payment under review (480) is not one.
      previousFailure:
        data.state === "failed" && data.failure
          ? failureMessageKey(data.failure.code)
          : null,
    })
  )
}
