import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { setPageHeaders, nonce, sendMessagePage } from "../../../../checkout/html-response"
import { preparePaymentAttempt } from "../../../../checkout/payment-attempt"
import { paymentPageCsp, renderPaymentPage } from "../../../../lib/payment-page-html"
import { isBillingField } from "../../../../lib/form-field-rules"

/**
 * GET /card-service/pay/:session_id - the hosted payment page. Outside /store
 * because a browser navigation sends no publishable key; the session id is
 * the capability, as the cart id is for the store API.
 */
export async function GET(req: MedusaRequest, res: MedusaResponse) {
  const attempt = await preparePaymentAttempt(req.scope, req.params.session_id)
  switch (attempt.kind) {
    case "unknown":
      return sendMessagePage(res, 404, {
        title: "Payment not found",
        message: "There is no card payment waiting under this address. Go back to the shop and start the checkout again.",
      })
    case "finished":
      return sendMessagePage(res, 409, {
        title: "Already paid",
        message: "This payment is already complete. There is nothing more to pay.",
      })
    case "tampered":
      return sendMessagePage(res, 409, {
        title: "Payment cannot continue",
        message: "This payment session was changed after it was created. Go back to the shop and start the payment again.",
      })
  }

  const { fields, data, provider } = attempt
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
      returnOrigins: [provider.options.storefrontUrl, ...provider.options.allowedReturnOrigins],
    })
  )
  res.status(200).send(
    renderPaymentPage({
      action: attempt.action,
      hidden,
      billing,
      amountText: `${data.currency_code.toUpperCase()} ${fields.amount}`,
      storeName: provider.options.storeName,
      scriptUrl: "/card-service/assets/pay-page.js",
      nonce: value,
      cancelUrl: provider.options.storefrontUrl,
      currentYear: new Date().getUTCFullYear(),
    })
  )
}
