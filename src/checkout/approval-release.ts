import type { IPaymentModuleService, MedusaContainer, PaymentSessionDTO } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import { CardServiceError } from "../lib/card-service-error"
import type { TransactionRecord } from "../lib/wire-schemas"
import { checkApproval } from "../providers/card-service/approval-check"
import type { CardServiceSessionData } from "../providers/card-service/session-data"
import type CardServiceProviderService from "../providers/card-service/service"
import { anonymousHint, mayLookUpOrphan } from "./hint-admission"
import { cardServiceProvider, PROVIDER_ID_PREFIX } from "./provider-lookup"
import type { SettleHint, SettleOutcome } from "./settle-types"

/**
 * The order exists, so any other approval of this session (the pay page was
 * open in two tabs and both paid) is money no order will take: it is reversed
 * when the plugin learns of it, whatever told it (callback, return, poll).
 * Only a record the service holds as this session's approval is touched.
 */
export async function releaseLateApproval(
  provider: CardServiceProviderService,
  data: CardServiceSessionData | null,
  session: PaymentSessionDTO,
  hint: SettleHint
): Promise<boolean> {
  if (!hint.transactionId || !data || hint.transactionId === data.transaction_id) {
    return false
  }
  anonymousHint(provider, session.id, hint)
  let record: TransactionRecord
  try {
    record = await provider.client.retrieve(hint.transactionId)
  } catch (error) {
    if (error instanceof CardServiceError && error.httpStatus === 404) return false
    throw error
  }
  const verdict = checkApproval(record, data, (reference, id) =>
    provider.sealer.referenceBelongsTo(reference, id)
  )
  if (verdict.outcome !== "approved" && verdict.outcome !== "mismatch") {
    return false
  }
  await provider.releaseApproval(data, record)
  return true
}

/**
 * Medusa deletes a cart's payment sessions when its total changes; a result
 * that arrives afterwards is for money no order can use. Each card-service
 * provider checks whether the transaction is its approval for exactly this
 * session id (the reference's MAC says so) and reverses it.
 */
export async function releaseOrphan(
  container: MedusaContainer,
  sessionId: string,
  hint: SettleHint
): Promise<SettleOutcome> {
  if (!hint.transactionId || !/^payses_[0-9A-Za-z]+$/.test(sessionId)) {
    return { kind: "unknown_session" }
  }
  const paymentModule = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
  const providers = await paymentModule.listPaymentProviders({ is_enabled: true })
  for (const { id } of providers) {
    if (!id.startsWith(PROVIDER_ID_PREFIX)) continue
    const provider = cardServiceProvider(container, id)
    if (!mayLookUpOrphan(provider, sessionId, hint)) continue
    if (await provider.releaseOrphanedApproval(sessionId, hint.transactionId)) {
      return { kind: "released", providerId: id }
    }
  }
  return { kind: "unknown_session" }
}

/**
 * No order can come of a session whose data is altered or whose sealed terms
 * are not Medusa's (authorizePayment refuses it too): an approval the hint
 * names that this plugin made for exactly this session (the reference's MAC
 * says so) would hold the shopper's money for nothing, so it is reversed, as
 * a deleted session's would be. Anything else the hint names is left alone,
 * and an anonymous hint costs the service a call only as an orphan's does
 * (hint-admission.ts).
 */
export async function releaseRefusedApproval(
  provider: CardServiceProviderService,
  sessionId: string,
  hint: SettleHint
): Promise<void> {
  if (!hint.transactionId || !mayLookUpOrphan(provider, sessionId, hint)) return
  await provider.releaseOrphanedApproval(sessionId, hint.transactionId)
}
