import { IncomingMessage, ServerResponse } from "node:http"
import { CallbackKnobs, DEFAULT_CALLBACK_KNOBS } from "./callback-delivery"
import { FaultSpec } from "./fault-knobs"
import { drain, mediaTypeOf, readBody, sendJson } from "./http-io"
import { NetworkLatency, parseLatency } from "./network-latency"
import { ReviewVerdict } from "./review-desk"

/**
 * `POST /_sandbox/callback-knobs`, `/_sandbox/faults`, `/_sandbox/latency` and `/_sandbox/reset`:
 * the test controls reachable from outside the sandbox's process, so the demo,
 * a person at a terminal and black-box tests (a Medusa app in another process)
 * can lose a callback or make retrieve answer 503 without importing the
 * sandbox. The real card service has no such endpoints, so they live under a
 * prefix the interface never uses.
 */
export const CONTROL_PREFIX = "/_sandbox/"

/** What the handler needs from the sandbox: the in-process controls. */
export type ControlTarget = {
  concludeReview(
    transactionId: string,
    verdict?: ReviewVerdict
  ): Promise<{ transactionId: string; reasonCode: string } | undefined>
  setCallbackKnobs(knobs: Partial<CallbackKnobs>): void
  setLatency(latency: Partial<NetworkLatency>): void
  injectFault(fault: FaultSpec): void
  resetKnobs(): void
  reset(): void
  readonly callbackKnobs: CallbackKnobs
  readonly latency: NetworkLatency
}

export async function handleControl(
  target: ControlTarget,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string
): Promise<void> {
  // Anyone who can reach these endpoints can drop every callback; a sandbox
  // bound to 0.0.0.0 for a container must still not be steered from afar.
  if (!isLoopback(req.socket.remoteAddress)) {
    await drain(req)
    return sendJson(res, 403, { error: "loopback_only" })
  }
  const path = pathname.slice(CONTROL_PREFIX.length)
  // `reviews/{transactionId}`: one review's verdict.
  const reviewOf = /^reviews\/(\d{1,64})$/.exec(path)?.[1]
  const name = reviewOf ? "reviews" : path
  if (!["callback-knobs", "faults", "latency", "reset", "reviews"].includes(name)) {
    await drain(req)
    return sendJson(res, 404, { error: "not_found" })
  }
  if (req.method !== "POST") {
    await drain(req)
    res.setHeader("allow", "POST")
    return sendJson(res, 405, { error: "method_not_allowed" })
  }
  // A web page can POST text/plain or a form to loopback without a CORS
  // preflight, but never application/json: requiring it keeps a page the
  // tester happens to visit from steering the sandbox. A reset may be bodiless.
  const mediaType = mediaTypeOf(req)
  const bodiless = (name === "reset" || name === "reviews") && mediaType === ""
  if (!bodiless && mediaType !== "application/json") {
    await drain(req)
    return sendJson(res, 415, {
      error: "unsupported_media_type",
      message: "send Content-Type: application/json",
    })
  }
  const raw = await readBody(req)
  if (raw === undefined) {
    return sendJson(res, 413, { error: "payload_too_large" })
  }
  let body: unknown = {}
  if (raw.length > 0) {
    try {
      body = JSON.parse(raw.toString("utf8"))
    } catch {
      return sendJson(res, 400, { error: "invalid_json" })
    }
  }

  if (name === "reset") {
    target.resetKnobs()
    target.reset()
    return sendJson(res, 200, { reset: true })
  }
  if (reviewOf) {
    const verdict = parseVerdict(body)
    if (verdict === null) {
      return sendJson(res, 400, {
        error: "invalid_body",
        message: 'the body may hold only "verdict": "approve" or "reject"',
      })
    }
    const concluded = await target.concludeReview(reviewOf, verdict)
    return concluded
      ? sendJson(res, 200, { review: concluded })
      : sendJson(res, 404, { error: "no_open_review" })
  }
  if (name === "latency") {
    const latency = parseLatency(body)
    if (typeof latency === "string") return sendJson(res, 400, { error: "invalid_body", message: latency })
    target.setLatency(latency)
    return sendJson(res, 200, { latency: { ...target.latency } })
  }
  const parsed = name === "callback-knobs" ? parseKnobs(body) : parseFault(body)
  if (typeof parsed === "string") {
    return sendJson(res, 400, { error: "invalid_body", message: parsed })
  }
  if (name === "callback-knobs") {
    target.setCallbackKnobs(parsed as Partial<CallbackKnobs>)
    return sendJson(res, 200, { callbackKnobs: { ...target.callbackKnobs } })
  }
  target.injectFault(parsed as FaultSpec)
  return sendJson(res, 200, { fault: parsed })
}

export function isLoopback(address: string | undefined): boolean {
  if (!address) {
    return false
  }
  const v4 = address.startsWith("::ffff:") ? address.slice(7) : address
  return address === "::1" || /^127\.\d+\.\d+\.\d+$/.test(v4)
}

const NUMBER_KNOBS = [
  "delayMs",
  "retries",
  "retryIntervalMs",
  "duplicates",
  "timeoutMs",
] as const
const BOOLEAN_KNOBS = ["drop", "afterRedirect"] as const

/** The body merged into the global knobs; a message naming the bad field otherwise. */
export function parseKnobs(body: unknown): Partial<CallbackKnobs> | string {
  if (!isObject(body)) {
    return "the body must be a JSON object of callback knobs"
  }
  const knobs: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(body)) {
    if ((NUMBER_KNOBS as readonly string[]).includes(key)) {
      if (!isWhole(value)) {
        return `${key} must be a whole number of 0 or more`
      }
    } else if ((BOOLEAN_KNOBS as readonly string[]).includes(key)) {
      if (typeof value !== "boolean") {
        return `${key} must be true or false`
      }
    } else if (key === "format") {
      if (value !== "json" && value !== "form") {
        return `format must be "json" or "form"`
      }
    } else {
      return `unknown knob ${JSON.stringify(key)}; known: ${Object.keys(DEFAULT_CALLBACK_KNOBS).join(", ")}`
    }
    knobs[key] = value
  }
  if (knobs.duplicates === 0) {
    return "duplicates must be 1 or more (use drop to send none)"
  }
  return knobs as Partial<CallbackKnobs>
}

/** One fault as `injectFault` takes it; a message naming the bad field otherwise. */
export function parseFault(body: unknown): FaultSpec | string {
  if (!isObject(body)) {
    return "the body must be one fault as a JSON object"
  }
  const { type, count, path, status, ms } = body
  const allowed: Record<string, string[]> = {
    status: ["type", "status", "count", "path"],
    delay: ["type", "ms", "count", "path"],
    destroy: ["type", "count", "path"],
  }
  if (typeof type !== "string" || !allowed[type]) {
    return `type must be "status", "delay" or "destroy"`
  }
  const extra = Object.keys(body).find((key) => !allowed[type].includes(key))
  if (extra) {
    return `unknown field ${JSON.stringify(extra)} for a ${type} fault`
  }
  if (count !== undefined && (!isWhole(count) || count < 1)) {
    return "count must be a whole number of 1 or more"
  }
  if (
    path !== undefined &&
    (typeof path !== "string" || !path.startsWith("/"))
  ) {
    return `path must start with "/"`
  }
  const common = {
    ...(count !== undefined ? { count: count as number } : {}),
    ...(path !== undefined ? { path: path as string } : {}),
  }
  if (type === "status") {
    if (status !== 500 && status !== 503) {
      return "status must be 500 or 503"
    }
    return { type, status, ...common }
  }
  if (type === "delay") {
    if (!isWhole(ms)) {
      return "ms must be a whole number of 0 or more"
    }
    return { type, ms: ms as number, ...common }
  }
  return { type: "destroy", ...common }
}

/** A review's verdict from the body (optional); null when the body is not one. */
function parseVerdict(body: unknown): ReviewVerdict | undefined | null {
  if (!isObject(body)) return null
  const keys = Object.keys(body)
  if (keys.length === 0) return undefined
  if (keys.length > 1 || keys[0] !== "verdict") return null
  return body.verdict === "approve" || body.verdict === "reject" ? body.verdict : null
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

function isWhole(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0
}
