import { randomBytes } from "node:crypto"

/**
 * merchantReferenceCode, the merchant's own name for a transaction (section
 * 2.2). A payment attempt's reference names its session and carries a MAC,
 * so a transaction retrieved from the service can be tied back to exactly
 * one session; a follow-on's is Medusa's id of the operation. The MAC is
 * computed by the sealer (session-seal.ts), which alone holds the key.
 */

/**
 * The service's limit on merchantReferenceCode is "not shown" (section 2.5)
 * and the sandbox keeps it to 50 characters.
 */
const MAX_REFERENCE_LENGTH = 50

/**
 * Medusa's payment-session ids are `payses_` + a ULID, and an attempt's
 * reference carries only the ULID: with the sealer's 12-character MAC,
 * 26 + 1 + 6 + 1 + 12 = 46 characters.
 */
const SESSION_PREFIX = "payses_"

/** The MAC over one attempt of a session, as the sealer computes it. */
export type AttemptMac = (sessionId: string, nonce: string) => string

/**
 * A fresh reference for one payment attempt of a session. Fresh on every
 * render, because the service declines a reference seen in the last 15
 * minutes with 104 (section 8) and a shopper who retries must not be trapped.
 */
export function newAttemptReference(
  sessionId: string,
  mac: AttemptMac
): string {
  const nonce = randomBytes(4).toString("base64url")
  return `${compact(sessionId)}.${nonce}.${mac(sessionId, nonce)}`
}

/**
 * The nonce and MAC of a reference that names this session, for the sealer
 * to check; null for anything that cannot be one of its attempts.
 */
export function attemptReferenceParts(
  reference: unknown,
  sessionId: string
): { nonce: string; mac: string } | null {
  if (typeof reference !== "string") return null
  const parts = reference.split(".")
  if (parts.length !== 3) return null
  const [sessionPart, nonce, mac] = parts
  if (sessionPart !== compact(sessionId) || !nonce || !mac) return null
  return { nonce, mac }
}

/**
 * merchantReferenceCode of a follow-on: Medusa's id of the operation when
 * there is one (capture or refund id), so the service's history can be
 * matched to Medusa's records, else the session's id.
 */
export function followOnReference(
  sessionId: string,
  key: string | undefined
): string {
  return (key ?? sessionId).slice(0, MAX_REFERENCE_LENGTH)
}

function compact(sessionId: string): string {
  return sessionId.startsWith(SESSION_PREFIX)
    ? sessionId.slice(SESSION_PREFIX.length)
    : sessionId
}
