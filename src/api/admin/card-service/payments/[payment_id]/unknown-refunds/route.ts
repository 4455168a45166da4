import type {
  AuthenticatedMedusaRequest,
  MedusaResponse,
} from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { CardServiceError } from "../../../../../../lib/card-service-error"
import { savePaymentData } from "../../../../../../checkout/payment-data"
import { underPaymentLock } from "../../../../../../lib/payment-lock"
import { loadCardServicePayment } from "../../../payment-access"
import type { UnknownRefundResponse } from "../../../response-types"
import { isServiceFailure, sendServiceFailure } from "../../../service-failure"
import type { AdminCardServiceUnknownRefundType } from "../../../validators"

/**
 * POST /admin/card-service/payments/:payment_id/unknown-refunds
 * {refund_id, made} - the store owner's answer about a refund the service
 * never answered (the interface has no search by reference, so only the
 * owner can look it up). Medusa already counts such a refund, and no other
 * refund of the payment is sent while one is unknown, so that nothing is
 * refunded twice. `made: true`: the card service shows it, and it is kept.
 * `made: false`: the plugin makes it now, under the same reference and for
 * the same amount, so the service gives back what Medusa booked.
 *
 * Runs under the payment's lock, as the void does.
 */
export async function POST(
  req: AuthenticatedMedusaRequest<AdminCardServiceUnknownRefundType>,
  res: MedusaResponse
) {
  await underPaymentLock(req.scope, req.params.payment_id, () =>
    settle(req, res)
  )
}

async function settle(
  req: AuthenticatedMedusaRequest<AdminCardServiceUnknownRefundType>,
  res: MedusaResponse
): Promise<void> {
  const { refund_id: refundId, made } = req.validatedBody
  const { payment, provider, session } = await loadCardServicePayment(
    req.scope,
    req.params.payment_id
  )
  if (!session) {
    throw new MedusaError(
      MedusaError.Types.NOT_ALLOWED,
      "This payment's card-service data is missing or was altered"
    )
  }
  let updated
  try {
    updated = await provider.settleUnknownRefund(session, refundId, made)
  } catch (error) {
    if (isServiceFailure(error)) return sendServiceFailure(res, error)
    if (CardServiceError.is(error)) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        `The card service refused the refund: ${error.message}`
      )
    }
    throw error
  }
  await savePaymentData(req.scope, payment.id, updated)
  const entry = updated.transactions.find(
    (t) => t.operation === "refund" && t.key === refundId
  )
  res.json({
    refund: {
      refund_id: refundId,
      amount: entry?.amount ?? null,
      made_now: !made,
      transaction_id: entry?.transaction_id ?? null,
    },
  } satisfies UnknownRefundResponse)
}
