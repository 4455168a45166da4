import { ServerResponse } from "node:http"
import { CallbackKnobs } from "./callback-delivery"
import { authenticationFailedPage, windowDonePage } from "./html-pages"
import { redirect, sendHtml } from "./http-io"
import { OrderSummary } from "./order-validation"
import { decisionFor } from "./reason-lookup"
import { SandboxContext } from "./sandbox-context"
import {
  CardBehaviour,
  ChallengeSession,
  challengePaths,
} from "./session-store"
import { threeDsFields } from "./three-ds-fields"

/** Partial approval (110): half the amount, at least one minor unit. */
export function approvedAmount(reasonCode: string, amountMinor: number) {
  return reasonCode === "110"
    ? Math.max(1, Math.floor(amountMinor / 2))
    : amountMinor
}

/**
 * Decides and delivers a payment once 3DS is over. Section 4.2: a failed
 * authentication moves the page to redirectUrl only when isRedirect is Y;
 * isAuthenticate N returns the 3DS fields instead of an approval.
 */
export function finishPayment(
  ctx: SandboxContext,
  res: ServerResponse,
  order: OrderSummary,
  card: CardBehaviour,
  authenticated: boolean,
  session: ChallengeSession | undefined
): Promise<void> {
  const authenticationFailed = !authenticated
  const reasonCode = authenticationFailed
    ? card.reasonCode === "475"
      ? "475"
      : "476"
    : order.isAuthenticate === "N"
      ? "100"
      : card.reasonCode
  const tx = ctx.store.add({
    merchantId: order.merchantId,
    merchantReferenceCode: order.merchantReferenceCode,
    originalTransactionId: "",
    step: order.isAuthenticate === "Y" ? "AUTHORIZATION" : "AUTHENTICATION",
    reasonCode,
    cardType: order.cardType,
    currency: order.currency,
    digits: order.currencyDigits,
    amountMinor: approvedAmount(reasonCode, order.amountMinor),
    cardPrefix: order.cardPrefix,
    cardSuffix: order.cardSuffix,
  })
  const payload: Record<string, string> = {
    decision: decisionFor(reasonCode),
    reasonCode,
    transactionId: tx.transactionId,
    originalTransactionId: "",
    merchantReferenceCode: order.merchantReferenceCode,
  }
  if (order.isAuthenticate === "N") {
    Object.assign(payload, threeDsFields(order.cardType, authenticated))
  }
  ctx.logger.debug?.(`payment ${tx.transactionId} -> ${reasonCode}`)
  if (reasonCode === "480") {
    ctx.reviews.openReview({
      transactionId: tx.transactionId,
      merchantReferenceCode: order.merchantReferenceCode,
      plannedVerdict: card.reviewVerdict ?? "approve",
      callbackLocation: order.callbackLocation,
    })
  }
  const moves = !authenticationFailed || order.isRedirect === "Y"
  const outcome = moves
    ? { location: resultLocation(order.redirectUrl, payload) }
    : {
        failureDetails: {
          reasonCode,
          merchantReferenceCode: order.merchantReferenceCode,
          transactionId: tx.transactionId,
        },
      }
  if (session) {
    session.outcome = outcome
  }
  return deliver(ctx, order.callbackLocation, payload, (onSent) => {
    if (session && session.order.isWindowed === "Y") {
      const { continueUrl } = challengePaths(session.id)
      return sendHtml(res, 200, windowDonePage(continueUrl), onSent)
    }
    if (outcome.location) {
      return redirect(res, outcome.location, onSent)
    }
    sendHtml(
      res,
      200,
      authenticationFailedPage(outcome.failureDetails!),
      onSent
    )
  })
}

/**
 * Orders the callback and the browser's next step per the knobs. By default
 * the first callback attempt finishes before the browser moves, so the
 * merchant has the result when the shopper returns; `delayMs` or
 * `afterRedirect` let the shopper arrive first.
 */
export async function deliver(
  ctx: SandboxContext,
  callbackLocation: string,
  payload: Record<string, string>,
  respond: (onSent: () => void) => void
): Promise<void> {
  const knobs: CallbackKnobs = ctx.knobsFor(payload.merchantReferenceCode)
  const { dispatcher } = ctx
  const send = () => {
    void dispatcher.dispatch(callbackLocation, payload, knobs)
  }
  if (knobs.drop) {
    send()
    respond(() => undefined)
    return
  }
  if (knobs.afterRedirect) {
    respond(() => dispatcher.schedule(send, knobs.delayMs))
    return
  }
  if (knobs.delayMs > 0) {
    dispatcher.schedule(send, knobs.delayMs)
    respond(() => undefined)
    return
  }
  await dispatcher.dispatch(callbackLocation, payload, knobs)
  respond(() => undefined)
}

/** wire-choices "Payment result delivery": the redirect carries the result as query parameters. */
export function resultLocation(
  redirectUrl: string,
  payload: Record<string, string>
): string {
  const query = new URLSearchParams({
    transactionId: payload.transactionId,
    decision: payload.decision,
    reasonCode: payload.reasonCode,
    merchantReferenceCode: payload.merchantReferenceCode,
  })
  return `${redirectUrl}?${query.toString()}`
}
