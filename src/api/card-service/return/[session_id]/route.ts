import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { CallBudgetExceeded } from "../../../../checkout/call-budget"
import { sendMessagePage } from "../../../../checkout/html-response"
import { cardServiceProvider, loadCardServiceSession } from "../../../../checkout/provider-lookup"
import { cartOfSession } from "../../../../checkout/cart-of-session"
import { settlePayment, settleUnderLock, type SettleOutcome } from "../../../../checkout/settle-payment"
import { settledOrder } from "../../../../checkout/settled-check"
import { readSettledMark } from "../../../../checkout/settled-marks"
import { anyProviderMessages, shopperText } from "../../../../checkout/shopper-text"
import { failureMessageKey } from "../../../../lib/i18n"
import { redactSessionIds, sessionLogTag } from "../../../../lib/log-redaction"
import type CardServiceProviderService from "../../../../providers/card-service/service"
import { recordResultHint } from "../../../../payment-notes/result-hints"

/**
 * GET and POST /card-service/return/:session_id/ - where the browser lands
 * after 3DS (redirectUrl of section 2.2). The transaction it names is checked
 * like a callback's; the order is completed here when the callback has not
 * done it yet (or never comes). Then the shopper goes back to the storefront,
 * only to an allowed origin, with the order id or a reason and a way to try
 * again. The reason is a plain sentence in the shopper's language; the
 * service's reason code stays with the payment for the admin.
 */
export async function GET(req: MedusaRequest, res: MedusaResponse) {
  return handleReturn(req, res, req.query as Record<string, unknown>)
}

export async function POST(req: MedusaRequest, res: MedusaResponse) {
  return handleReturn(req, res, {
    ...(req.query as Record<string, unknown>),
    ...((req.body ?? {}) as Record<string, unknown>),
  })
}

async function handleReturn(
  req: MedusaRequest,
  res: MedusaResponse,
  params: Record<string, unknown>
) {
  const sessionId = req.params.session_id
  const transactionId = typeof params.transactionId === "string" ? params.transactionId : undefined
  const merchantReferenceCode =
    typeof params.merchantReferenceCode === "string" ? params.merchantReferenceCode : undefined
  let found: Awaited<ReturnType<typeof loadCardServiceSession>>
  try {
    found = await loadCardServiceSession(req.scope, sessionId)
  } catch (error) {
    // Not "no such payment": the store could not look it up just now.
    req.scope
      .resolve("logger")
      .error(
        `card-service: could not load session ${sessionLogTag(sessionId)} on return: ${redactSessionIds((error as Error).message)}`
      )
    return sendMessagePage(req, res, 503, shopperText(req, {}), {
      title: "unconfirmed.title",
      message: "unconfirmed.message",
    })
  }
  if (!found) {
    // Medusa drops a cart's session when the cart's total changes. A payment
    // made on the old form is reversed, and the shopper goes back to the
    // storefront's default return page (return_to went with the session) to
    // pay again, rather than to a dead end here.
    const orphan = transactionId
      ? await settlePayment(req.scope, sessionId, {
          transactionId,
          merchantReferenceCode,
          source: "return",
        }).catch(() => null)
      : null
    if (orphan?.kind === "released") {
      const provider = cardServiceProvider(req.scope, orphan.providerId)
      const target = provider.returnTarget(null)
      target.searchParams.set("session_id", sessionId)
      const text = shopperText(req, provider.options.messages)
      return redirectBack(res, target, orphan, sessionId, provider.options.backendUrl, text)
    }
    return sendMessagePage(req, res, 404, shopperText(req, await anyProviderMessages(req.scope)), {
      title: "notFound.title",
      message: "notFound.returnMessage",
    })
  }
  const { session, provider } = found
  // A session settled with this transaction has its order and locale marked
  // (settled-marks.ts): the cart's reads are only needed otherwise.
  const cart =
    (await readSettledMark(req.scope, sessionId, transactionId)) ??
    (await cartOfSession(req.scope, session).catch(() => ({ locale: null, cartId: null, orderId: null })))
  const text = shopperText(req, provider.options.messages, cart.locale)
  const data = provider.verifySession(session.data, session.id)
  const target = provider.returnTarget(data)
  target.searchParams.set("session_id", sessionId)

  let outcome: SettleOutcome
  try {
    // Already an order with this transaction (the callback came first): the
    // reads above say so, without the lock or reading them again.
    const hint = { transactionId, merchantReferenceCode, source: "return" as const }
    outcome = settledOrder(data, cart, hint, session) ?? (await settleUnderLock(req.scope, sessionId, hint))
  } catch (error) {
    // Over the call budget is no error of ours: the storefront polls.
    if (!(error instanceof CallBudgetExceeded)) {
      req.scope
        .resolve("logger")
        .error(
          `card-service: could not settle the return of session ${sessionLogTag(sessionId)}: ${redactSessionIds((error as Error).message)}`
        )
      await noteReturn(req, provider, sessionId, transactionId, merchantReferenceCode)
    }
    outcome = { kind: "pending", cartId: null }
  }

  return redirectBack(res, target, outcome, sessionId, provider.options.backendUrl, text)
}

/**
 * A return that could not be settled (the service or the store's database
 * failed it) may be the only report of its result: when the callback is lost
 * too, nothing else names the transaction, and the approval stayed held with
 * no order (bench:soak). Its hint is noted for the sweep, as a callback's
 * is, when the reference it carries is one this plugin made for this
 * session (the MAC says so): any browser can call the return route, and only
 * the shopper's own result is worth a note. The storefront's poll then
 * finds the order the sweep made.
 */
async function noteReturn(
  req: MedusaRequest,
  provider: CardServiceProviderService,
  sessionId: string,
  transactionId: string | undefined,
  merchantReferenceCode: string | undefined
): Promise<void> {
  if (!transactionId || !provider.sealer.referenceBelongsTo(merchantReferenceCode, sessionId)) return
  await recordResultHint(req.scope, sessionId, transactionId, "return").catch((error: Error) => {
    req.scope
      .resolve("logger")
      .warn(`card-service: could not note the return of session ${sessionLogTag(sessionId)}: ${redactSessionIds(error.message)}`)
  })
}

/** The 303 back to the storefront, with the outcome in the query. */
function redirectBack(
  res: MedusaResponse,
  target: URL,
  outcome: SettleOutcome,
  sessionId: string,
  backendUrl: string,
  text: ReturnType<typeof shopperText>
) {
  switch (outcome.kind) {
    case "order":
      target.searchParams.set("status", "paid")
      target.searchParams.set("order_id", outcome.orderId)
      // This tab paid a second time for an order another tab had paid: the
      // storefront says so, and that the second payment was released.
      if (outcome.secondPaymentReleased) target.searchParams.set("second_payment", "released")
      // The order is placed on hold: its payment is under review (480).
      if (outcome.onHold) target.searchParams.set("payment", "under_review")
      break
    case "review_closed":
      // The order exists and was canceled (the review did not approve): its page says so.
      target.searchParams.set("status", "paid")
      target.searchParams.set("order_id", outcome.orderId)
      target.searchParams.set("payment", "review_closed")
      break
    case "failed":
      target.searchParams.set("status", "failed")
      target.searchParams.set("reason_code", outcome.failure.code)
      target.searchParams.set("reason", text.t(failureMessageKey(outcome.failure.code)))
      target.searchParams.set("retry_url", `${backendUrl}/card-service/pay/${sessionId}`)
      if (outcome.cartId) target.searchParams.set("cart_id", outcome.cartId)
      break
    case "released":
      target.searchParams.set("status", "failed")
      target.searchParams.set("reason_code", "cart_changed")
      target.searchParams.set("reason", text.t(failureMessageKey("cart_changed")))
      break
    default:
      // Not confirmed (yet): the storefront polls the session's state.
      target.searchParams.set("status", "pending")
      if ("cartId" in outcome && outcome.cartId) target.searchParams.set("cart_id", outcome.cartId)
  }
  res.setHeader("Cache-Control", "no-store")
  res.setHeader("Referrer-Policy", "no-referrer")
  return res.redirect(303, target.toString())
}
