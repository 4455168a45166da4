import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { CallBudgetExceeded } from "../../../../checkout/call-budget"
import { HintNotNoted, settleCallback } from "../../../../checkout/callback-settlement"
import { redactSessionIds, sessionLogTag } from "../../../../lib/log-redaction"
import { PaymentResultSchema } from "../../../../lib/wire-schemas"
import { callbackOutcomeOf, countCallback } from "../../../../observability/settlement-telemetry"

/**
 * POST /card-service/callback/:session_id/ - the service's final result
 * (section 6), JSON or form-encoded. It is unsigned, so it is only a hint:
 * settlePayment retrieves the transaction and checks it before anything
 * changes. The answer says nothing about the session, so a forger learns
 * nothing from it; a 503 asks the service to deliver again later when the
 * result could not be checked (the service was unreachable). A copy that
 * finds another copy of the same result being settled is answered 200 at
 * once when its hint is noted for the sweep (checkout/callback-settlement.ts).
 */
export async function POST(req: MedusaRequest, res: MedusaResponse) {
  const parsed = PaymentResultSchema.safeParse(req.body ?? {})
  if (!parsed.success) {
    countCallback("refused")
    return res.status(400).json({
      received: false,
      message: "The body is not a card-service payment result (section 2.5 fields).",
    })
  }
  const logger = req.scope.resolve("logger")
  try {
    const outcome = await settleCallback(
      req.scope,
      req.params.session_id,
      {
        transactionId: parsed.data.transactionId,
        merchantReferenceCode: parsed.data.merchantReferenceCode,
      },
      logger
    )
    countCallback(callbackOutcomeOf(outcome))
    if (outcome.kind === "unknown_session") {
      return res.status(404).json({ received: false, message: "Unknown payment session." })
    }
    if (outcome.kind === "ignored") {
      logger.warn(
        `card-service: ignored a callback for session ${sessionLogTag(req.params.session_id)}: ${redactSessionIds(outcome.reason)}`
      )
    }
    return res.status(200).json({ received: true })
  } catch (error) {
    countCallback("unavailable")
    // Over the call budget, or the session's notes full of results not
    // checked yet (forged ones, as likely as not): the service delivers
    // again later; not an error of ours, and not worth a log line each.
    if (error instanceof CallBudgetExceeded || error instanceof HintNotNoted) {
      return res.status(503).json({ received: false, message: "Try again later." })
    }
    logger.error(
      `card-service: could not settle the callback for session ${sessionLogTag(req.params.session_id)}: ${redactSessionIds((error as Error).message)}`
    )
    return res.status(503).json({ received: false, message: "Try again later." })
  }
}
