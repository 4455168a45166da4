import { completeCartWorkflow } from "@medusajs/medusa/core-flows"
import type {
  ILockingModule,
  IPaymentModuleService,
  MedusaContainer,
  PaymentSessionDTO,
} from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import { ordersOnHoldSupported } from "../providers/card-service/orders-on-hold"
import type { CardServiceSessionData, FailureReason } from "../providers/card-service/session-data"
import type CardServiceProviderService from "../providers/card-service/service"
import { isUnderReview } from "../providers/card-service/status-mapping"
import { traceSettlement } from "../observability/settlement-telemetry"
import { releaseLateApproval, releaseOrphan, releaseRefusedApproval } from "./approval-release"
import { attachToSession, attachTransaction } from "./attach-transaction"
import { cartOfSession } from "./cart-of-session"
import { anonymousHint, mayLookUpOrphan } from "./hint-admission"
import { finishOrderPayment, relinkCartOrder } from "./order-payment"
import { matchesMedusaRecord } from "./medusa-record"
import { authorizeForOrder, balanceFailure, balanceStillOwed } from "./order-balance"
import { loadCardServiceSession } from "./provider-lookup"
import { settleReview } from "./review-verdict"
import { settledAlready } from "./settled-check"
import { writeSettledMark } from "./settled-marks"
import type { SettleHint, SettleOutcome } from "./settle-types"
import { leasedLock } from "../lib/lock-lease"

export type { SettleHint, SettleOutcome } from "./settle-types"

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
      ...leasedLock(LOCK_TIMEOUT_SECONDS),
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
  const { cartId, orderId: linkedOrderId, email, locale, balanceOf } = await cartOfSession(container, session)
  // A completion that died after it linked the order to the payment
  // collection and before it linked the cart left the cart's order unlinked
  // from the cart: completing the cart again cannot link a second order to
  // the collection, so the cart is linked to that order and it is finished.
  const orderId = linkedOrderId ?? (cartId ? await relinkCartOrder(container, cartId, session.payment_collection_id) : null)
  const data = provider.verifySession(session.data, session.id)
  if (balanceOf && session.authorized_at) {
    // What an order edit left owing, paid already: as for a cart's order, any
    // other approval the hint names (a second tab) is reversed.
    const released = await releaseLateApproval(provider, data, session, hint)
    return { kind: "order", orderId: balanceOf, cartId: null, balance: true, ...(released ? { secondPaymentReleased: true } : {}) }
  }
  if (orderId && cartId) {
    const released = await releaseLateApproval(provider, data, session, hint)
    // The order may have been made by a completion that died before it
    // recorded the payment or placed the order on hold, or be gone with only
    // its links left (order-payment.ts): then the cart is settled as one
    // without an order.
    const finished =
      session.status === "pending_authorization" ? "on_hold" : await finishOrderPayment(container, session, data, { cartId, orderId })
    // The order is on hold for a review: the service's record says whether
    // the verdict is in (review-verdict.ts). No settled mark is written for
    // it: the verdict's callback names the same transaction and must reach
    // this path, not be answered from the mark.
    if (finished === "on_hold" && data?.transaction_id) {
      const outcome = await settleReview(container, {
        session,
        provider,
        data,
        cartId,
        orderId,
        now: hint.at,
        source: hint.source,
      })
      return released && outcome.kind === "order" ? { ...outcome, secondPaymentReleased: true } : outcome
    }
    if (finished !== "order_gone") {
      if (data?.transaction_id) {
        await writeSettledMark(container, session.id, { transactionId: data.transaction_id, orderId, cartId, locale })
      }
      return {
        kind: "order",
        orderId,
        cartId,
        ...(released ? { secondPaymentReleased: true } : {}),
        ...(finished === "finished" ? { paymentRecorded: true } : {}),
      }
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

  if (balanceOf) {
    // Nothing more is owed under this session (the order was canceled, or
    // edited again so that it owes another amount): no approval is kept for it.
    const owed = await balanceStillOwed(container, session, balanceOf)
    if (owed !== "owed") return await refuseBalance(paymentModule, provider, session, data, hint, balanceFailure(owed, balanceOf))
  }

  let current = data
  if (hint.transactionId && hint.transactionId !== data.transaction_id) {
    anonymousHint(provider, session.id, hint)
    const attached = await attachTransaction(provider, data, hint.transactionId, email, {
      lateResult: hint.source === "sweep",
    })
    if (attached.kind === "ignored") {
      return { ...attached, cartId }
    }
    current = attached.data
    await attachToSession(paymentModule, provider, session, current)
  }

  if (hint.source === "sweep" && current === data && current.transaction_id && awaitingVerdict(current)) {
    // Under review (480) and no order: the completion that would have placed
    // it on hold died (bench:soak: an instance killed on the first callback,
    // the verdict's callbacks acknowledged meanwhile). The sweep asks the
    // service again, so a verdict that came since decides: an approval
    // completes the cart, a rejection fails the session.
    const refreshed = await attachTransaction(provider, { ...current, transaction_id: null }, current.transaction_id, email)
    if (refreshed.kind === "attached") {
      current = refreshed.data
      await attachToSession(paymentModule, provider, session, current)
    }
  }
  if (!current.transaction_id) {
    return { kind: "pending", cartId }
  }
  // Marked for review (480): where Medusa places orders on hold, the cart
  // becomes an order whose payment awaits the verdict; elsewhere it waits.
  // (Not for an order's outstanding amount: no order is placed on hold for
  // it; the session waits for the verdict, which the sweep asks for.)
  const onHold =
    !balanceOf && current.state === "pending" && isUnderReview(current.failure?.code ?? "") && ordersOnHoldSupported()
  if (current.failure && !onHold) {
    return current.state === "pending"
      ? { kind: "pending", cartId }
      : { kind: "failed", cartId, failure: current.failure }
  }
  if (balanceOf) {
    return await authorizeForOrder(container, session.id, balanceOf)
  }
  if (!cartId) {
    return {
      kind: "failed",
      cartId,
      failure: { code: "no_cart", message: "the payment session belongs to no cart" },
    }
  }
  const outcome = await completeCart(container, provider, cartId, session.id)
  if (outcome.kind === "order" && onHold) return { ...outcome, onHold: true }
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
 * A session of an order's own collection whose amount is no longer owed:
 * the approval the result names, or the one attached, is reversed when it
 * is this session's (as an orphan's is: releaseOrphanedApproval, and an
 * anonymous result only when it carries this session's reference). A
 * released approval that was attached fails the session, so that the sweep
 * does not take it up again.
 */
async function refuseBalance(
  paymentModule: IPaymentModuleService,
  provider: CardServiceProviderService,
  session: PaymentSessionDTO,
  data: CardServiceSessionData,
  hint: SettleHint,
  failure: FailureReason
): Promise<SettleOutcome> {
  const transactionId = hint.transactionId ?? data.transaction_id ?? undefined
  if (transactionId && mayLookUpOrphan(provider, session.id, hint)) {
    await provider.releaseOrphanedApproval(session.id, transactionId)
    if (transactionId === data.transaction_id && data.state !== "failed") {
      await attachToSession(paymentModule, provider, session, { ...data, failure, state: "failed" })
    }
  }
  return { kind: "failed", cartId: null, failure }
}

/** A transaction attached whose result is a review (480), no verdict yet as far as the session knows. */
export function awaitingVerdict(data: CardServiceSessionData): boolean {
  return data.state === "pending" && isUnderReview(data.failure?.code ?? "")
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
      // Gone, its links dismissed: the next delivery completes the cart anew;
      // on hold: the next delivery applies the review's verdict.
      if (recorded === "order_gone" || recorded === "on_hold") throw error
      return { kind: "order", orderId, cartId, ...(recorded === "finished" ? { paymentRecorded: true } : {}) }
    }
    // A failure the completion's own authorization recorded (the service
    // declined it when asked again) is the outcome. A result still pending
    // is not, though it carries its reason code: a review (480) whose order
    // could not be placed just now (Medusa's stock lock held by an instance
    // that died, bench:crash-points) is no failed payment, and a shopper
    // told so would pay again. The error goes up: the callback is answered
    // non-2xx and its result noted, the return notes it and shows "pending",
    // and a later delivery or the sweep places the order.
    const data = session.data as Partial<CardServiceSessionData>
    if (data?.failure && data.state !== "pending") {
      return { kind: "failed", cartId, failure: data.failure }
    }
    throw error
  }
}
