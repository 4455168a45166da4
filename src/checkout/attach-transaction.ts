import type { IPaymentModuleService, PaymentSessionDTO } from "@medusajs/framework/types"
import { CardServiceError } from "../lib/card-service-error"
import type { TransactionRecord } from "../lib/wire-schemas"
import { checkApproval } from "../providers/card-service/approval-check"
import type { CardServiceSessionData, FailureReason } from "../providers/card-service/session-data"
import type CardServiceProviderService from "../providers/card-service/service"
import { isUnderReview, reasonText } from "../providers/card-service/status-mapping"
import { sessionRowWriter } from "../payment-notes/session-notes"

type Attached =
  | { kind: "attached"; data: CardServiceSessionData }
  | { kind: "ignored"; reason: string }

/**
 * Checks a reported transaction with the service and returns the session
 * data with it attached. A transaction that is not this session's (forged or
 * replayed from another session) is ignored. A second approval for a session
 * that already has one is a double payment: it is reversed, not attached.
 */
export async function attachTransaction(
  provider: CardServiceProviderService,
  data: CardServiceSessionData,
  transactionId: string,
  email: string | null,
  /**
   * The sweep's hints are earlier results, verified late: one that is no
   * approval does not take the place of a transaction attached since (the
   * shopper's later attempt), or the two would take turns pass after pass.
   */
  { lateResult = false }: { lateResult?: boolean } = {}
): Promise<Attached> {
  let record: TransactionRecord
  try {
    record = await provider.client.retrieve(transactionId)
  } catch (error) {
    if (error instanceof CardServiceError && error.httpStatus === 404) {
      return { kind: "ignored", reason: "the service knows no such transaction" }
    }
    throw error
  }
  const verdict = checkApproval(record, data, (reference, id) =>
    provider.sealer.referenceBelongsTo(reference, id)
  )
  if (verdict.outcome === "foreign") {
    return { kind: "ignored", reason: verdict.reason }
  }
  if (data.transaction_id && verdict.outcome === "approved") {
    const existing = await provider.client.retrieve(data.transaction_id).catch(() => null)
    const existingVerdict =
      existing &&
      checkApproval(existing, data, (reference, id) => provider.sealer.referenceBelongsTo(reference, id))
    if (existingVerdict && existingVerdict.outcome === "approved") {
      await provider.releaseApproval(data, record)
      return { kind: "ignored", reason: "the session is already paid; the second approval was reversed" }
    }
  }
  if (data.transaction_id && verdict.outcome !== "approved" && (await isApproval(provider, data))) {
    // The session's attached transaction is an approval (the service's record
    // says so): a later decline, error or wrong-amount approval of this
    // session (another tab) does not replace it, or the approved money would
    // stay held with no order. A wrong-amount approval is released; the
    // session keeps its approval and goes on to its order.
    if (verdict.outcome === "mismatch") await provider.releaseApproval(data, record)
    return { kind: "attached", data }
  }
  if (lateResult && data.transaction_id && verdict.outcome === "unapproved") {
    return { kind: "attached", data }
  }
  if (verdict.outcome === "mismatch") {
    // Approved, but not for what the cart costs: release the money at once
    // and fail the session with the reason; the shopper can pay again.
    const released = await provider.releaseApproval(data, record)
    return {
      kind: "attached",
      data: {
        ...released,
        transaction_id: record.transactionId,
        email: email ?? data.email,
        failure: { code: "mismatch", message: verdict.reason },
        state: "failed",
        verified: null,
      },
    }
  }
  const failure: FailureReason | null =
    verdict.outcome === "approved"
      ? null
      : { code: verdict.reasonCode, message: `${verdict.reason}: ${reasonText(verdict.reasonCode)}` }
  // 480 (marked for review) is not a verdict yet: the session stays pending,
  // with the reason kept, and no order is attempted.
  const underReview =
    verdict.outcome === "unapproved" && isUnderReview(verdict.reasonCode)
  return {
    kind: "attached",
    data: {
      ...data,
      transaction_id: record.transactionId,
      email: email ?? data.email,
      failure,
      state: failure && !underReview ? "failed" : "pending",
      // What this retrieve verified, so that authorizePayment need not ask
      // again (session-seal.ts, VerifiedApproval).
      verified: verdict.outcome === "approved" ? provider.sealer.sealVerified(data, record, Date.now()) : null,
    },
  }
}

/**
 * Whether the session's attached transaction is its approval, by the
 * service's record. A service that cannot answer is an error (the callback
 * answers 503 and is delivered again), not a "no": a "no" would let a later
 * result replace an approval.
 */
async function isApproval(provider: CardServiceProviderService, data: CardServiceSessionData): Promise<boolean> {
  let record: TransactionRecord
  try {
    record = await provider.client.retrieve(data.transaction_id as string)
  } catch (error) {
    if (error instanceof CardServiceError && error.httpStatus === 404) return false
    throw error
  }
  return (
    checkApproval(record, data, (reference, id) => provider.sealer.referenceBelongsTo(reference, id)).outcome ===
    "approved"
  )
}

/**
 * Writes the attached transaction to the session: the provider renews its
 * data as Medusa's updatePaymentSession would have it do (updatePayment),
 * and only the data and status columns are written. updatePaymentSession
 * itself is not used: it also writes `metadata: input.metadata`, and
 * undefined clears the column, so the session's notes (other tabs' attempt
 * references, an earlier unverified hint) would be lost unless read and
 * passed back under the notes lock, a lock and two reads more on every
 * checkout's way to its order. Notes are written the same way, metadata
 * only (session-notes.ts), so neither write undoes the other.
 */
export async function attachToSession(
  paymentModule: IPaymentModuleService,
  provider: CardServiceProviderService,
  session: PaymentSessionDTO,
  data: CardServiceSessionData
): Promise<void> {
  const renewed = await provider.updatePayment({
    amount: session.amount,
    currency_code: session.currency_code,
    data: data as unknown as Record<string, unknown>,
    context: { idempotency_key: session.id },
  })
  await sessionRowWriter(paymentModule).update({
    id: session.id,
    data: renewed.data as Record<string, unknown>,
    ...(renewed.status ? { status: renewed.status } : {}),
  })
}
