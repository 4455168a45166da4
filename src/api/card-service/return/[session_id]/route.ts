import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { sendMessagePage } from "../../../../checkout/html-response"
import { loadCardServiceSession } from "../../../../checkout/provider-lookup"
import { settlePayment, SettleOutcome } from "../../../../checkout/settle-payment"

/**
 * GET and POST /card-service/return/:session_id/ - where the browser lands
 * after 3DS (redirectUrl of section 2.2). The transaction it names is checked
 * like a callback's; the order is completed here when the callback has not
 * done it yet (or never comes). Then the shopper goes back to the storefront,
 * only to an allowed origin, with the order id or a reason and a way to try
 * again.
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
  let found: Awaited<ReturnType<typeof loadCardServiceSession>>
  try {
    found = await loadCardServiceSession(req.scope, sessionId)
  } catch (error) {
    // Not "no such payment": the store could not look it up just now.
    req.scope
      .resolve("logger")
      .error(`card-service: could not load session ${sessionId} on return: ${(error as Error).message}`)
    return sendMessagePage(res, 503, {
      title: "Payment not confirmed yet",
      message: "The shop could not check this payment just now. Reload this page in a moment.",
    })
  }
  if (!found) {
    return sendMessagePage(res, 404, {
      title: "Payment not found",
      message: "There is no card payment under this address. Go back to the shop and check your order.",
    })
  }
  const { session, provider } = found
  const target = provider.returnTarget(provider.verifySession(session.data, session.id))
  target.searchParams.set("session_id", sessionId)

  let outcome: SettleOutcome
  try {
    outcome = await settlePayment(req.scope, sessionId, {
      transactionId: typeof params.transactionId === "string" ? params.transactionId : undefined,
      source: "return",
    })
  } catch (error) {
    req.scope
      .resolve("logger")
      .error(`card-service: could not settle the return of session ${sessionId}: ${(error as Error).message}`)
    outcome = { kind: "pending", cartId: null }
  }

  switch (outcome.kind) {
    case "order":
      target.searchParams.set("status", "paid")
      target.searchParams.set("order_id", outcome.orderId)
      // This tab paid a second time for an order another tab had paid: the
      // storefront says so, and that the second payment was released.
      if (outcome.secondPaymentReleased) target.searchParams.set("second_payment", "released")
      break
    case "failed":
      target.searchParams.set("status", "failed")
      target.searchParams.set("reason_code", outcome.failure.code)
      target.searchParams.set("reason", outcome.failure.message)
      target.searchParams.set("retry_url", `${provider.options.backendUrl}/card-service/pay/${sessionId}`)
      if (outcome.cartId) target.searchParams.set("cart_id", outcome.cartId)
      break
    case "released":
      target.searchParams.set("status", "failed")
      target.searchParams.set("reason_code", "cart_changed")
      target.searchParams.set(
        "reason",
        "the cart changed while the payment was made; the payment was released, please pay again"
      )
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
