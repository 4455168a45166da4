import { createHmac, timingSafeEqual } from "node:crypto"
import {
  attemptReferenceParts,
  newAttemptReference,
} from "./merchant-reference"

/**
 * Payment-session data is public and storefront-writable (Medusa merges the
 * storefront's `data` into it and returns it from the store API). What the
 * plugin later trusts is therefore either read from Medusa's own records or
 * sealed here with an HMAC only the server can compute.
 */

const SEAL_LENGTH = 22
/** Short enough that a payment attempt's reference fits 50 characters (merchant-reference.ts). */
const REFERENCE_MAC_LENGTH = 12

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
      options.sessionSecret ??
        `${options.merchantId}\u0000${options.clientSecret}`
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
   * (section 2.2; format in merchant-reference.ts). Its MAC ties a
   * transaction retrieved from the service back to exactly one session, and
   * a reference the plugin did not make is recognised.
   */
  newReference(sessionId: string): string {
    return newAttemptReference(sessionId, (id, nonce) =>
      this.referenceMac(id, nonce)
    )
  }

  /** Whether a reference was made by this plugin for this very session. */
  referenceBelongsTo(reference: unknown, sessionId: string): boolean {
    const parts = attemptReferenceParts(reference, sessionId)
    return (
      parts !== null &&
      safeEqual(this.referenceMac(sessionId, parts.nonce), parts.mac)
    )
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

function safeEqual(expected: string, actual: string): boolean {
  const a = Buffer.from(expected)
  const b = Buffer.from(actual)
  return a.length === b.length && timingSafeEqual(a, b)
}
