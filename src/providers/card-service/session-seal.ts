import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"

/**
 * Payment-session data is public and storefront-writable (Medusa merges the
 * storefront's `data` into it and returns it from the store API). What the
 * plugin later trusts is therefore either read from Medusa's own records or
 * sealed here with an HMAC only the server can compute.
 */

const SEAL_LENGTH = 22
const REFERENCE_MAC_LENGTH = 12
/**
 * Medusa's payment-session ids are `payses_` + a ULID. The service's limit on
 * merchantReferenceCode is "not shown" (section 2.5) and the sandbox keeps it
 * to 50 characters, so the reference carries only the ULID:
 * 26 + 1 + 6 + 1 + 12 = 46 characters.
 */
const SESSION_PREFIX = "payses_"

export type SealedTerms = {
  sessionId: string
  currencyCode: string
  /** The amount in the currency's minor units, as an integer string. */
  amountMinor: string
}

export class SessionSealer {
  private readonly key_: Buffer

  constructor(secret: string) {
    this.key_ = createHmac("sha256", "medusa-payment-card-service/seal/v1")
      .update(secret)
      .digest()
  }

  /** Derives the key from the credentials when the store owner set no sessionSecret. */
  static fromOptions(options: {
    sessionSecret?: string
    clientSecret: string
    merchantId: string
  }): SessionSealer {
    return new SessionSealer(
      options.sessionSecret ?? `${options.merchantId}\u0000${options.clientSecret}`
    )
  }

  /** The seal over what a session is for: which session, which currency, how much. */
  seal(terms: SealedTerms): string {
    return this.mac(
      `terms|${terms.sessionId}|${terms.currencyCode.toLowerCase()}|${terms.amountMinor}`,
      SEAL_LENGTH
    )
  }

  verifySeal(terms: SealedTerms, seal: unknown): boolean {
    return typeof seal === "string" && safeEqual(this.seal(terms), seal)
  }

  /**
   * A fresh merchantReferenceCode for one payment attempt of a session
   * (section 2.2). Fresh on every render, because the service declines a
   * reference seen in the last 15 minutes with 104 (section 8) and a shopper
   * who retries must not be trapped. It names the session and carries a MAC,
   * so a transaction retrieved from the service can be tied back to exactly
   * one session, and a reference the plugin did not make is recognised.
   */
  newReference(sessionId: string): string {
    const nonce = randomBytes(4).toString("base64url")
    return `${compact(sessionId)}.${nonce}.${this.referenceMac(sessionId, nonce)}`
  }

  /** Whether a reference was made by this plugin for this very session. */
  referenceBelongsTo(reference: unknown, sessionId: string): boolean {
    if (typeof reference !== "string") return false
    const parts = reference.split(".")
    if (parts.length !== 3) return false
    const [sessionPart, nonce, mac] = parts
    if (sessionPart !== compact(sessionId) || !nonce || !mac) return false
    return safeEqual(this.referenceMac(sessionId, nonce), mac)
  }

  private referenceMac(sessionId: string, nonce: string): string {
    return this.mac(`reference|${sessionId}|${nonce}`, REFERENCE_MAC_LENGTH)
  }

  private mac(message: string, length: number): string {
    return createHmac("sha256", this.key_)
      .update(message)
      .digest("base64url")
      .slice(0, length)
  }
}

function compact(sessionId: string): string {
  return sessionId.startsWith(SESSION_PREFIX)
    ? sessionId.slice(SESSION_PREFIX.length)
    : sessionId
}

function safeEqual(expected: string, actual: string): boolean {
  const a = Buffer.from(expected)
  const b = Buffer.from(actual)
  return a.length === b.length && timingSafeEqual(a, b)
}
