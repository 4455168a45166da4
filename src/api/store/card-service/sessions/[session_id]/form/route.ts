import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { preparePaymentAttempt } from "../../../../../../checkout/payment-attempt"
import { CARD_FIELDS } from "../../../../../../lib/form-field-rules"
import type { CardServiceFormDescriptor } from "../../../response-types"

/**
 * GET /store/card-service/sessions/:session_id/form - everything a custom
 * storefront needs to post its own card form to the service: the action, and
 * the hidden fields of one attempt (a fresh merchantReferenceCode each call,
 * and the merchant verification code that section 5.3 puts in the form).
 * The shopper adds the card fields; the post goes from the browser to the
 * service, never through this server.
 */
export async function GET(req: MedusaRequest, res: MedusaResponse) {
  const attempt = await preparePaymentAttempt(req.scope, req.params.session_id)
  switch (attempt.kind) {
    case "unknown":
      throw new MedusaError(MedusaError.Types.NOT_FOUND, "Card-service payment session not found")
    case "finished":
      throw new MedusaError(MedusaError.Types.NOT_ALLOWED, "This payment session is already paid")
    case "tampered":
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        "This payment session's data was altered; start a new payment session"
      )
    case "busy":
      res.setHeader("Retry-After", "5")
      return res.status(503).json({
        type: "unavailable",
        message: "Too many requests for this payment session just now; try again in a few seconds",
      })
  }
  res.setHeader("Cache-Control", "no-store")
  res.json({
    form: {
      action: attempt.action,
      method: "POST",
      enctype: "application/x-www-form-urlencoded",
      fields: attempt.fields,
      card_fields: [...CARD_FIELDS],
    } satisfies CardServiceFormDescriptor,
  })
}
