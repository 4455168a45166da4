import { IncomingMessage, ServerResponse } from "node:http"
import { minorToMajor } from "./amount-rules"
import {
  authenticationFailedPage,
  challengePage,
  errorPage,
  windowedWaitPage,
} from "./html-pages"
import { readBody, redirect, sendHtml, sendJson } from "./http-io"
import { OrderSummary } from "./order-validation"
import { finishPayment } from "./payment-result"
import { SandboxContext } from "./sandbox-context"
import {
  CardBehaviour,
  ChallengeSession,
  challengePaths,
} from "./session-store"

/** One request to a challenge's pages, as the router found it in the path. */
export type ThreeDsRequest = {
  kind: "challenge" | "session"
  id: string
  action: "" | "/status" | "/continue"
}

const THREE_DS_PATH =
  /^\/3ds\/(challenge|session)\/([A-Za-z0-9_-]+)(\/status|\/continue)?$/

export function matchThreeDsPath(pathname: string): ThreeDsRequest | undefined {
  const match = THREE_DS_PATH.exec(pathname)
  if (!match) {
    return undefined
  }
  return {
    kind: match[1] as ThreeDsRequest["kind"],
    id: match[2],
    action: (match[3] ?? "") as ThreeDsRequest["action"],
  }
}

/**
 * Opens a challenge for a payment request whose card asks for one, and sends
 * the browser to it: isWindowed N moves the page itself, Y shows a page that
 * opens the challenge in a window and waits for the result.
 */
export function startChallenge(
  ctx: SandboxContext,
  res: ServerResponse,
  order: OrderSummary,
  card: CardBehaviour
): void {
  const session = ctx.challenges.open(order, card)
  const paths = challengePaths(session.id)
  ctx.logger.debug?.(
    `POST /order/start -> 3DS challenge (${order.isWindowed === "Y" ? "window" : "same page"})`
  )
  if (order.isWindowed === "N") {
    res.writeHead(303, {
      location: paths.challengeUrl,
      "cache-control": "no-store",
    })
    res.end()
    return
  }
  sendHtml(res, 200, windowedWaitPage(paths))
}

/** The challenge page, its Pass/Fail answer, and the waiting page's status and continue steps. */
export async function handleThreeDs(
  ctx: SandboxContext,
  req: IncomingMessage,
  res: ServerResponse,
  { kind, id, action }: ThreeDsRequest
): Promise<void> {
  const raw = await readBody(req)
  const session = ctx.challenges.find(id)
  if (!session) {
    if (action === "/status") {
      return sendJson(res, 404, { error: "not_found" })
    }
    return sendHtml(
      res,
      404,
      errorPage(
        "Authentication not found",
        "This 3-D Secure session does not exist or has expired."
      )
    )
  }
  const step = `${req.method} ${kind}${action}`
  if (step === "GET session/status") {
    return sendJson(res, 200, {
      state: session.outcome ? "decided" : "pending",
    })
  }
  if (step === "GET session/continue") {
    return continueAfterChallenge(res, session)
  }
  if (step === "GET challenge") {
    return showChallenge(res, session)
  }
  if (step === "POST challenge") {
    return answerChallenge(ctx, res, session, raw)
  }
  res.setHeader("allow", "GET, POST")
  sendHtml(
    res,
    405,
    errorPage("Method not allowed", "This page does not accept that request.")
  )
}

/** The shop page after a windowed challenge: wait on, or move to where the result says. */
function continueAfterChallenge(
  res: ServerResponse,
  session: ChallengeSession
): void {
  if (!session.outcome) {
    return sendHtml(res, 200, windowedWaitPage(challengePaths(session.id)))
  }
  if (session.outcome.location) {
    return redirect(res, session.outcome.location, () => undefined)
  }
  sendHtml(res, 200, authenticationFailedPage(session.outcome.failureDetails!))
}

function showChallenge(res: ServerResponse, session: ChallengeSession): void {
  const { challengeUrl, continueUrl } = challengePaths(session.id)
  if (session.outcome) {
    return redirect(res, continueUrl, () => undefined)
  }
  const { order } = session
  sendHtml(
    res,
    200,
    challengePage({
      action: challengeUrl,
      merchantReferenceCode: order.merchantReferenceCode,
      amount: `${minorToMajor(order.amountMinor, order.currencyDigits).toFixed(order.currencyDigits)} (ISO 4217 ${order.currency})`,
      cardSuffix: order.cardSuffix,
    })
  )
}

function answerChallenge(
  ctx: SandboxContext,
  res: ServerResponse,
  session: ChallengeSession,
  raw: Buffer | undefined
): Promise<void> | void {
  if (session.outcome) {
    return sendHtml(
      res,
      409,
      errorPage(
        "Authentication already finished",
        "This 3-D Secure session has already been completed."
      )
    )
  }
  const choice = new URLSearchParams(raw?.toString("utf8") ?? "").get("result")
  if (choice !== "pass" && choice !== "fail") {
    return sendHtml(
      res,
      400,
      errorPage("Choose a result", "Press Pass or Fail.")
    )
  }
  // Mark the session before the callback goes out, so a second press
  // while the callback is in flight is refused rather than paid twice.
  session.outcome = {}
  return finishPayment(
    ctx,
    res,
    session.order,
    session.card,
    choice === "pass",
    session
  )
}
