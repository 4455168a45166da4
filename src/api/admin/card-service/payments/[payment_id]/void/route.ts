import type {
  AuthenticatedMedusaRequest,
  MedusaResponse,
} from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { CardServiceError } from "../../../../../../lib/card-service-error"
import { fromNumericCurrency } from "../../../../../../lib/iso-codes"
import { toVoidAmount } from "../../../../../../lib/money"
import type {
  OperationResult,
  TransactionRecord,
} from "../../../../../../lib/wire-schemas"
import { savePaymentData } from "../../../../../../checkout/payment-data"
import { underPaymentLock } from "../../../../../../lib/payment-lock"
import { loadCardServicePayment } from "../../../payment-access"
import type { VoidResponse } from "../../../response-types"
import { isServiceFailure, sendServiceFailure } from "../../../service-failure"
import type { CardServiceSessionData } from "../../../../../../providers/card-service/session-data"
import type { AdminCardServiceVoidType } from "../../../validators"
import {
  recordVoid,
  writeVoidMark,
  type VoidTarget,
} from "../../../../../../providers/card-service/void-record"

/**
 * POST /admin/card-service/payments/:payment_id/void {transaction_id} - voids
 * one of the payment's captures or refunds while the service still holds it
 * (captureStatus PENDING, section 2.4). Medusa's own UI has no such action.
 * Refused with 400 when the service would refuse it; 502/503 when the service
 * cannot be asked.
 *
 * Voids of one payment run one at a time (locking module), and with the
 * provider's part of Medusa's captures and refunds, which take the same
 * lock (payment-record.ts). Medusa writes what the provider returns after
 * the lock is released, so the void is booked on payment.data as it is
 * read again after the service has answered: a refund booked while the
 * void was on its way keeps its entry.
 *
 * The void is marked on the payment before it is sent and the mark removed
 * once its outcome is booked; a mark left standing (the instance died with
 * the service's answer, or the service could not be reached) is the sweep's
 * to settle (void-record.ts, reconciliation/owner-voids.ts).
 */
export async function POST(
  req: AuthenticatedMedusaRequest<AdminCardServiceVoidType>,
  res: MedusaResponse
) {
  await underPaymentLock(req.scope, req.params.payment_id, () =>
    voidPayout(req, res)
  )
}

async function voidPayout(
  req: AuthenticatedMedusaRequest<AdminCardServiceVoidType>,
  res: MedusaResponse
): Promise<void> {
  const { transaction_id: transactionId } = req.validatedBody
  const { payment, provider, session } = await loadCardServicePayment(
    req.scope,
    req.params.payment_id
  )
  if (!session) {
    throw notAllowed(
      "This payment's card-service data is missing or was altered; nothing can be voided from here"
    )
  }
  // Only the payment's own payouts: an id from elsewhere (another payment,
  // the approval, a void) is refused before the service is asked.
  const entry = session.transactions.find(
    (t) =>
      t.transaction_id === transactionId &&
      (t.operation === "capture" || t.operation === "refund")
  )
  const isOwnCapture = session.capture?.transaction_id === transactionId
  if (!entry && !isOwnCapture) {
    throw new MedusaError(
      MedusaError.Types.INVALID_DATA,
      `Transaction ${transactionId} is not a capture or refund of this payment`
    )
  }
  if (entry?.voided) {
    throw notAllowed(`Transaction ${transactionId} is already voided`)
  }

  let record: TransactionRecord
  try {
    record = await provider.client.retrieve(transactionId)
  } catch (error) {
    if (isServiceFailure(error)) return sendServiceFailure(res, error)
    if (CardServiceError.isNotFound(error)) {
      throw notAllowed(
        `The card service has no record of transaction ${transactionId}`
      )
    }
    throw error
  }
  if (record.step !== "CAPTURE" && record.step !== "REFUND") {
    throw notAllowed(
      `Transaction ${transactionId} is a ${record.step}: only captures and refunds can be voided`
    )
  }
  const type: VoidTarget["type"] = record.step
  const target: VoidTarget = {
    transaction_id: transactionId,
    type,
    amount: record.amount,
  }
  if (record.captureStatus === "VOIDED") {
    // Voided at the service but not in payment.data (an earlier void whose
    // answer was lost): record it, and say that nothing new happened.
    await bookVoid(req, payment.id, session, target, null)
    throw notAllowed(
      `Transaction ${transactionId} is already voided at the card service`
    )
  }
  if (record.status !== "successful") {
    throw notAllowed(
      `The card service did not accept transaction ${transactionId} (${record.status}), so there is nothing to void`
    )
  }
  if (record.captureStatus !== "PENDING") {
    throw notAllowed(
      `The ${type.toLowerCase()} ${transactionId} is ${record.captureStatus ?? "not pending"}: it was already sent to the processor and can no longer be voided` +
        (type === "CAPTURE" ? "; refund it instead" : "")
    )
  }
  if (type === "CAPTURE" && hasStandingRefund(session.transactions)) {
    throw notAllowed(
      `The capture ${transactionId} has refunds that are not voided; void those first (section 7, 246)`
    )
  }

  const currencyCode = fromNumericCurrency(record.currencyCode)
  await writeVoidMark(req.scope, payment.id, {
    ...target,
    requested_at: new Date().toISOString(),
  })
  let result: OperationResult | null
  try {
    result = await provider.client.void({
      // Medusa's id of the capture or refund when known, so the service's
      // history can be matched to Medusa's records (as the provider does).
      merchantReferenceCode: (entry?.key ?? payment.id).slice(0, 50),
      currency: record.currencyCode,
      amount: toVoidAmount(record.amount, currencyCode),
      email: session.email ?? provider.options.merchantEmail,
      transactionId,
      type,
    })
  } catch (error) {
    if (CardServiceError.isIndeterminate(error)) {
      // The void may have happened: the record says whether (house style 6).
      const after = await provider.client
        .retrieve(transactionId)
        .catch(() => null)
      if (after?.captureStatus !== "VOIDED")
        return sendServiceFailure(res, error)
      result = null
    } else if (isServiceFailure(error)) {
      return sendServiceFailure(res, error)
    } else if (CardServiceError.is(error)) {
      await writeVoidMark(req.scope, payment.id, null)
      throw notAllowed(`The card service refused the void: ${error.message}`)
    } else {
      throw error
    }
  }

  const updated = await bookVoid(req, payment.id, session, target, result)
  res.json({
    voided: {
      transaction_id: transactionId,
      type,
      amount: record.amount,
      currency_code: currencyCode,
      void_transaction_id: result?.transactionId ?? null,
      reason_code: result?.reasonCode ?? null,
    },
    refunded_amount: updated.refunded_amount,
    medusa_note:
      type === "CAPTURE"
        ? "Medusa still shows this payment as captured: it has no way to undo a capture."
        : "Medusa still counts this refund: it has no way to undo a refund.",
  } satisfies VoidResponse)
}

/**
 * Marks the void in payment.data as it is now, not as it was before the
 * service was asked (see POST). Falls back to the first read only if the data
 * stopped verifying in between, which nothing of ours does.
 */
async function bookVoid(
  req: AuthenticatedMedusaRequest<AdminCardServiceVoidType>,
  paymentId: string,
  before: CardServiceSessionData,
  target: VoidTarget,
  result: OperationResult | null
): Promise<CardServiceSessionData> {
  const { session: now } = await loadCardServicePayment(req.scope, paymentId)
  const updated = recordVoid(now ?? before, target, result)
  await savePaymentData(req.scope, paymentId, updated)
  await writeVoidMark(req.scope, paymentId, null)
  return updated
}

function notAllowed(message: string) {
  return new MedusaError(MedusaError.Types.NOT_ALLOWED, message)
}

function hasStandingRefund(
  transactions: { operation: string; decision: string; voided?: boolean }[]
): boolean {
  return transactions.some(
    (t) => t.operation === "refund" && t.decision === "ACCEPT" && !t.voided
  )
}
