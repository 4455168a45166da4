import type {
  MedusaNextFunction,
  MedusaRequest,
  MedusaResponse,
} from "@medusajs/framework/http"
import { ORDER_ID,
  MAX_RESULT_FIELD_LENGTH,
  MERCHANT_REFERENCE,
  PAYMENT_ID,
  PAYMENT_SESSION_ID,
  REASON_CODE,
  TRANSACTION_ID,
} from "../../lib/identifier-limits"

/**
 * Every route the plugin adds, matched by prefix: express decodes the named
 * parameters (and `*`) of a matcher before its handler runs and turns a
 * malformed escape (`%E0%A4%A`) into a 500, so these matchers have none, run
 * before the routes' own (Medusa registers global middlewares first), and the
 * path is decoded here, where a bad escape can be answered 400 (on the admin
 * routes Medusa's `/admin*` decodes first: undecodable-path.ts). Strings, not
 * one regular expression: a RegExp matcher did not take effect under the
 * integration test runner (Medusa tells one by `instanceof RegExp`).
 */
export const PLUGIN_ROUTE_PREFIXES = [
  "/card-service",
  "/store/card-service",
  "/admin/card-service",
]

/** What a path that is not validly percent-encoded is answered (400). */
export const MALFORMED_URL = "The URL is not validly percent-encoded."

/** The path segment after these prefixes is an id of the given shape. */
const ID_SEGMENTS: { prefix: string[]; id: RegExp; name: string }[] = [
  {
    prefix: ["card-service", "callback"],
    id: PAYMENT_SESSION_ID,
    name: "session id",
  },
  {
    prefix: ["card-service", "return"],
    id: PAYMENT_SESSION_ID,
    name: "session id",
  },
  {
    prefix: ["card-service", "pay"],
    id: PAYMENT_SESSION_ID,
    name: "session id",
  },
  {
    prefix: ["store", "card-service", "sessions"],
    id: PAYMENT_SESSION_ID,
    name: "session id",
  },
  {
    prefix: ["admin", "card-service", "payments"],
    id: PAYMENT_ID,
    name: "payment id",
  },
  {
    prefix: ["admin", "card-service", "orders"],
    id: ORDER_ID,
    name: "order id",
  },
]

/**
 * Fields the plugin's routes read from a query or a body and may pass on to
 * the service. Empty is allowed where a result may carry no id (a payment's
 * originalTransactionId is "" by wire-choices).
 */
const FIELD_RULES: Record<string, { rule: RegExp; emptyAllowed: boolean }> = {
  transactionId: { rule: TRANSACTION_ID, emptyAllowed: true },
  originalTransactionId: { rule: TRANSACTION_ID, emptyAllowed: true },
  transaction_id: { rule: TRANSACTION_ID, emptyAllowed: false },
  merchantReferenceCode: { rule: MERCHANT_REFERENCE, emptyAllowed: true },
  reasonCode: { rule: REASON_CODE, emptyAllowed: false },
  payment_id: { rule: PAYMENT_ID, emptyAllowed: false },
}

/**
 * The first thing wrong with a request to one of the plugin's routes, as a
 * short sentence, or null when its identifiers are within the limits of
 * src/lib/identifier-limits.ts.
 */
export function inputProblem(req: {
  originalUrl: string
  query?: unknown
  body?: unknown
}): string | null {
  // originalUrl: express strips a middleware's mount path from req.path.
  const path = req.originalUrl.split("?")[0]
  const segments: string[] = []
  for (const raw of path.split("/").filter(Boolean)) {
    try {
      segments.push(decodeURIComponent(raw))
    } catch {
      return MALFORMED_URL
    }
  }
  for (const { prefix, id, name } of ID_SEGMENTS) {
    if (
      prefix.every((part, i) => segments[i] === part) &&
      segments.length > prefix.length
    ) {
      if (!id.test(segments[prefix.length])) {
        return `The ${name} in the URL is malformed.`
      }
    }
  }
  const resultRoute = segments[0] === "card-service"
  return (
    fieldsProblem(req.query, resultRoute) ??
    fieldsProblem(req.body, resultRoute)
  )
}

function fieldsProblem(source: unknown, resultRoute: boolean): string | null {
  if (!source || typeof source !== "object" || Array.isArray(source))
    return null
  for (const [name, value] of Object.entries(
    source as Record<string, unknown>
  )) {
    const limits = FIELD_RULES[name]
    if (limits) {
      if (typeof value === "number" && name === "reasonCode") continue
      if (typeof value !== "string")
        return `${name} must be a single text value.`
      if (value === "" && limits.emptyAllowed) continue
      if (!limits.rule.test(value)) return `${name} is malformed or too long.`
      continue
    }
    // What the service posts or the browser brings back is short text.
    const tooBig =
      typeof value === "string"
        ? value.length > MAX_RESULT_FIELD_LENGTH
        : typeof value === "object" && value !== null
    if (resultRoute && tooBig) {
      return `${name} is not a short text value.`
    }
  }
  return null
}

/** The middleware: 400 with a short message, before any handler or the service sees the request. */
export function pluginInputGuard(
  req: MedusaRequest,
  res: MedusaResponse,
  next: MedusaNextFunction
) {
  const problem = inputProblem(req)
  if (problem) {
    return res.status(400).json({ type: "invalid_data", message: problem })
  }
  return next()
}
