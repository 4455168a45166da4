import { completeCartWorkflow } from "@medusajs/medusa/core-flows"
import type {
  ILockingModule,
  IPaymentModuleService,
  MedusaContainer,
  PaymentSessionDTO,
} from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { CardServiceError } from "../lib/card-service-error"
import { toMinorUnits } from "../lib/money"
import type { TransactionRecord } from "../lib/wire-schemas"
import { checkApproval } from "../providers/card-service/approval-check"
import type { CardServiceSessionData, FailureReason } from "../providers/card-service/session-data"
import type CardServiceProviderService from "../providers/card-service/service"
import { isUnderReview, reasonText } from "../providers/card-service/status-mapping"
import { traceSettlement } from "../observability/settlement-telemetry"
import { sessionRowWriter } from "../reconciliation/session-notes"
import { anonymousHint, mayLookUpOrphan } from "./hint-admission"
import { finishOrderPayment } from "./order-payment"
import { cardServiceProvider, loadCardServiceSession, PROVIDER_ID_PREFIX } from "./provider-lookup"
import { settledAlready } from "./settled-check"
import { writeSettledMark } from "./settled-marks"

/** What the callback and return routes learn from the service or the browser. */
export type SettleHint = {
  /** The transactionId the callback or the redirect named; a hint, checked with retrieve. */
  transactionId?: string
  /** The merchantReferenceCode the result names (wire-choices adds it to both). */
  merchantReferenceCode?: string
  source: "callback" | "return" | "poll" | "sweep"
}

export type SettleOutcome =
  /**
   * The cart is an order (now or before). `secondPaymentReleased`: the hint
   * named another approval of this session (a second tab paid too), which was
   * reversed.
   */
  | {
      kind: "order"
      orderId: string
      cartId: string
      secondPaymentReleased?: boolean
      /** The order had no payment (its completion died) and this settlement recorded it (order-payment.ts). */
      paymentRecorded?: boolean
    }
  /** Nothing known yet: the shopper has not finished, or the result has not arrived. */
  | { kind: "pending"; cartId: string | null }
  /** The payment did not go through; the shopper may try again. */
  | { kind: "failed"; cartId: string | null; failure: FailureReason }
  /** The hint named nothing this session can use: nothing was changed. */
  | { kind: "ignored"; cartId: string | null; reason: string }
  /** No card-service session by that id. */
  | { kind: "unknown_session" }
  /** The session is gone (cart changed); its approval was reversed by this provider. */
  | { kind: "released"; providerId: string }

const LOCK_TIMEOUT_SECONDS = 30

/**
 * Turns a result the service reported (callback or browser return) into an
 * order, trusting nothing it was told: the transaction is retrieved from the
 * service and checked against Medusa's own record of the session before it is
 * attached, and the cart is completed through Medusa's own workflow, whose
 * authorizePayment asks the service once more.
 *
 * Deliveries for one session run one at a time (locking module), so
 * duplicate and concurrent callbacks and returns give one order. A delivery
 * for a session already settled with the transaction it names is answered
 * from a read, without the lock (settled-check.ts).
 */
export async function settlePayment(
  container: MedusaContainer,
  sessionId: string,
  hint: SettleHint
): Promise<SettleOutcome> {
  return (await settledAlready(container, sessionId, hint)) ?? (await settleUnderLock(container, sessionId, hint))
}

/** settlePayment without the read-only look first (for a caller that has just looked). */
export async function settleUnderLock(
  container: MedusaContainer,
  sessionId: string,
  hint: SettleHint
): Promise<SettleOutcome> {
  const locking = container.resolve<ILockingModule>(Modules.LOCKING)
  // A card_service.settle span around the lock and the settling (#32).
  return await traceSettlement(hint.source, () =>
    locking.execute(`card-service:settle:${sessionId}`, () => settle(container, sessionId, hint), {
      timeout: LOCK_TIMEOUT_SECONDS,
    })
  )
}

async function settle(
  container: MedusaContainer,
  sessionId: string,
  hint: SettleHint
): Promise<SettleOutcome> {
  const found = await loadCardServiceSession(container, sessionId)
  if (!found) {
    return await releaseOrphan(container, sessionId, hint)
  }
  try {
    return await settleSession(container, found, hint)
  } catch (error) {
    // The cart may change while this runs, and Medusa then deletes the
    // session under us: the result is for an orphan after all.
    if (!(await loadCardServiceSession(container, sessionId))) {
      return await releaseOrphan(container, sessionId, hint)
    }
    throw error
  }
}

async function settleSession(
  container: MedusaContainer,
  { session, provider }: { session: PaymentSessionDTO; provider: CardServiceProviderService },
  hint: SettleHint
): Promise<SettleOutcome> {
  const paymentModule = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
  const { cartId, orderId, email, locale } = await cartOfSession(container, session)
  const data = provider.verifySession(session.data, session.id)
  if (orderId && cartId) {
    const released = await releaseLateApproval(provider, data, session, hint)
    // The order may have been made by a completion that died before it
    // recorded the payment (order-payment.ts).
    const recorded = (await finishOrderPayment(container, session, data, { cartId, orderId })) === "finished"
    if (data?.transaction_id) {
      await writeSettledMark(container, session.id, { transactionId: data.transaction_id, orderId, cartId, locale })
    }
    return {
      kind: "order",
      orderId,
      cartId,
      ...(released ? { secondPaymentReleased: true } : {}),
      ...(recorded ? { paymentRecorded: true } : {}),
    }
  }

  if (!data || !matchesMedusaRecord(data, session)) {
    await releaseRefusedApproval(provider, session.id, hint)
    return {
      kind: "failed",
      cartId,
      failure: {
        code: "tampered",
        message: "the payment session data was altered; start a new payment",
      },
    }
  }

  let current = data
  if (hint.transactionId && hint.transactionId !== data.transaction_id) {
    anonymousHint(provider, session.id, hint)
    const attached = await attachTransaction(provider, data, hint.transactionId, email)
    if (attached.kind === "ignored") {
      return { ...attached, cartId }
    }
    current = attached.data
    await attachToSession(paymentModule, provider, session, current)
  }

  if (!current.transaction_id) {
    return { kind: "pending", cartId }
  }
  if (current.failure) {
    return current.state === "pending"
      ? { kind: "pending", cartId }
      : { kind: "failed", cartId, failure: current.failure }
  }
  if (!cartId) {
    return {
      kind: "failed",
      cartId,
      failure: { code: "no_cart", message: "the payment session belongs to no cart" },
    }
  }
  const outcome = await completeCart(container, provider, cartId, session.id)
  if (outcome.kind === "order") {
    await writeSettledMark(container, session.id, {
      transactionId: current.transaction_id,
      orderId: outcome.orderId,
      cartId,
      locale,
    })
  }
  return outcome
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
async function attachToSession(
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

/**
 * The order exists, so any other approval of this session (the pay page was
 * open in two tabs and both paid) is money no order will take: it is reversed
 * when the plugin learns of it, whatever told it (callback, return, poll).
 * Only a record the service holds as this session's approval is touched.
 */
async function releaseLateApproval(
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
async function releaseOrphan(
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
async function releaseRefusedApproval(
  provider: CardServiceProviderService,
  sessionId: string,
  hint: SettleHint
): Promise<void> {
  if (!hint.transactionId || !mayLookUpOrphan(provider, sessionId, hint)) return
  await provider.releaseOrphanedApproval(sessionId, hint.transactionId)
}

/** The session's sealed terms must be Medusa's own amount and currency for it. */
function matchesMedusaRecord(data: CardServiceSessionData, session: PaymentSessionDTO): boolean {
  try {
    return (
      data.currency_code === session.currency_code.toLowerCase() &&
      toMinorUnits(session.amount as never, session.currency_code).toString() === data.amount_minor
    )
  } catch {
    return false
  }
}

export async function cartOfSession(
  container: MedusaContainer,
  session: Pick<PaymentSessionDTO, "payment_collection_id">
): Promise<{
  cartId: string | null
  orderId: string | null
  email: string | null
  /** The cart's BCP 47 locale, when the storefront set one: the shopper's language. */
  locale: string | null
}> {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const { data: links } = await query.graph({
    entity: "cart_payment_collection",
    fields: ["cart_id"],
    filters: { payment_collection_id: session.payment_collection_id },
  })
  const cartId: string | null = links[0]?.cart_id ?? null
  if (!cartId) {
    return { cartId: null, orderId: null, email: null, locale: null }
  }
  const [{ data: carts }, { data: orders }] = await Promise.all([
    query.graph({ entity: "cart", fields: ["id", "email", "locale"], filters: { id: cartId } }),
    query.graph({ entity: "order_cart", fields: ["order_id"], filters: { cart_id: cartId } }),
  ])
  return {
    cartId,
    orderId: orders[0]?.order_id ?? null,
    email: carts[0]?.email ?? null,
    locale: carts[0]?.locale ?? null,
  }
}

type Attached =
  | { kind: "attached"; data: CardServiceSessionData }
  | { kind: "ignored"; reason: string }

/**
 * Checks a reported transaction with the service and returns the session
 * data with it attached. A transaction that is not this session's (forged or
 * replayed from another session) is ignored. A second approval for a session
 * that already has one is a double payment: it is reversed, not attached.
 */
async function attachTransaction(
  provider: CardServiceProviderService,
  data: CardServiceSessionData,
  transactionId: string,
  email: string | null
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

async function completeCart(
  container: MedusaContainer,
  provider: CardServiceProviderService,
  cartId: string,
  sessionId: string
): Promise<SettleOutcome> {
  try {
    const { result } = await completeCartWorkflow(container).run({ input: { id: cartId } })
    return { kind: "order", orderId: result.id, cartId }
  } catch (error) {
    // The storefront may be completing the same cart at this moment (Medusa
    // answers one of two concurrent completions with a conflict), or a
    // completion that died holds the cart's lock: if an order exists now,
    // that is the outcome, once its payment is recorded (order-payment.ts).
    const paymentModule = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
    const session = await paymentModule.retrievePaymentSession(sessionId)
    const { orderId } = await cartOfSession(container, session)
    if (orderId) {
      const recorded = await finishOrderPayment(container, session, provider.verifySession(session.data, session.id), {
        cartId,
        orderId,
      })
      return { kind: "order", orderId, cartId, ...(recorded === "finished" ? { paymentRecorded: true } : {}) }
    }
    const data = session.data as Partial<CardServiceSessionData>
    if (data?.failure) {
      return { kind: "failed", cartId, failure: data.failure }
    }
    throw error
  }
}
