import { IncomingMessage, ServerResponse } from "node:http"
import { MAX_BODY_BYTES, mediaTypeOf, readBody, sendJson } from "./http-io"
import type { HoldSpec } from "./fault-knobs"
import { SandboxContext } from "./sandbox-context"
import { isVerifiedForJson } from "./verification-handler"

/** What a JSON endpoint answers: the router's JSON path writes it. */
export type JsonAnswer = { status: number; payload: unknown }

export type JsonHandler = (body?: Record<string, unknown>) => JsonAnswer

/**
 * The shared path of every JSON endpoint: faults, credentials (wire-choices
 * "Credentials"), content type, body parsing, then the handler.
 */
export async function serveJson(
  ctx: SandboxContext,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
  method: "GET" | "POST",
  verified: boolean,
  handler: JsonHandler
): Promise<void> {
  const raw = await readBody(req)
  if (req.method !== method) {
    res.setHeader("allow", method)
    return sendJson(res, 405, {
      error: "method_not_allowed",
      message: `Use ${method}.`,
    })
  }
  const fault = ctx.faults.take(pathname)
  if (fault?.type === "status") {
    ctx.logger.debug?.(`${method} ${pathname} -> ${fault.status} (fault knob)`)
    return sendJson(res, fault.status, {
      decision: "REJECT",
      reasonCode: "150",
    })
  }
  let answer: JsonAnswer
  let body: Record<string, unknown> | undefined
  if (verified && !isVerifiedForJson(ctx, req, pathname)) {
    answer = {
      status: 401,
      payload: {
        error: "invalid_authorization",
        message:
          "The verifyId and Authorization headers must carry the merchant code and a current verification code from GET /authorize.",
      },
    }
  } else if (method === "POST") {
    answer = parseJson(req, raw, (parsed) => handler((body = parsed)))
  } else {
    answer = handler()
  }
  const hold = ctx.holds.take(pathname, body)
  if (hold) {
    const held = await holdAnswer(hold, req, pathname, body, answer)
    if (held === "dropped") return
  }
  if (fault?.type === "delay") {
    await new Promise<void>((resolve) =>
      ctx.dispatcher.schedule(resolve, fault.ms)
    )
  }
  if (fault?.type === "destroy") {
    ctx.logger.debug?.(
      `${method} ${pathname} processed, connection destroyed (fault knob)`
    )
    req.socket.destroy()
    return
  }
  ctx.logger.debug?.(
    `${method} ${pathname} -> ${answer.status}${reasonOf(answer.payload)}`
  )
  sendJson(res, answer.status, answer.payload)
}

/** Waits until the holder releases the answer ("released") or cuts the connection ("dropped"). */
function holdAnswer(
  hold: HoldSpec,
  req: IncomingMessage,
  pathname: string,
  body: Record<string, unknown> | undefined,
  answer: JsonAnswer
): Promise<"released" | "dropped"> {
  return new Promise((resolve) => {
    hold.onHold({
      method: req.method ?? "",
      pathname,
      body,
      status: answer.status,
      payload: answer.payload,
      remotePort: req.socket.remotePort,
      release: () => resolve("released"),
      drop: () => {
        req.socket.destroy()
        resolve("dropped")
      },
    })
  })
}

function parseJson(
  req: IncomingMessage,
  raw: Buffer | undefined,
  handler: JsonHandler
): JsonAnswer {
  // wire-choices: a body that is not a JSON object is 400 with the 2.5 shape.
  const invalid = (status: number, message: string): JsonAnswer => ({
    status,
    payload: {
      decision: "REJECT",
      reasonCode: "102",
      transactionId: "",
      originalTransactionId: "",
      message,
    },
  })
  if (raw === undefined) {
    return invalid(413, `The body is larger than ${MAX_BODY_BYTES} bytes.`)
  }
  if (mediaTypeOf(req) !== "application/json") {
    return invalid(
      415,
      "Send the body as JSON with Content-Type: application/json (section 4)."
    )
  }
  let body: unknown
  try {
    body = JSON.parse(raw.toString("utf8"))
  } catch {
    return invalid(400, "The body is not valid JSON.")
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return invalid(400, "The body must be a JSON object.")
  }
  return handler(body as Record<string, unknown>)
}

/** The reason code for the request log line, when the answer has one. */
function reasonOf(payload: unknown): string {
  const code = (payload as { reasonCode?: unknown } | null)?.reasonCode
  return typeof code === "string" ? ` reason ${code}` : ""
}
