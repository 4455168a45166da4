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

/**
 * What the settlement's retrieve verified of an approval, carried in the
 * session data to authorizePayment (issue 43) so that Medusa's completion
 * of the cart does not ask the service a second time. Only the server can
 * make `mac`; it binds the session, its sealed terms, the transaction and
 * what the service said of it, and `at` bounds how long it stands in for
 * the service's record (VERIFIED_FRESH_MS).
 */
export type VerifiedApproval = {
  transaction_id: string
  reason_code: string
  card_type: string
  card_suffix: string
  /** When the service's record was read (ms since the epoch). */
  at: number
  mac: string
}

/**
 * How long a verified approval stands in for the service's record: the
 * settlement completes the cart right after its retrieve, so a minute is
 * ample; a completion that waited longer (another one's cart lock) asks the
 * service again.
 */
export const VERIFIED_FRESH_MS = 60_000

type VerifiedTerms = { session_id: string; currency_code: string; amount_minor: string }

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

  /** A verified approval of `record` for `session`, read from the service at `at`. */
  sealVerified(
    session: VerifiedTerms,
    record: { transactionId: string; reasonCode: string; cardType: string; cardSuffix: string },
    at: number
  ): VerifiedApproval {
    const verified = {
      transaction_id: record.transactionId,
      reason_code: record.reasonCode,
      card_type: record.cardType,
      card_suffix: record.cardSuffix,
      at,
    }
    return { ...verified, mac: this.verifiedMac(session, verified) }
  }

  /**
   * Whether `verified` was made here for this session's terms and the
   * transaction it names, and is fresh at `now`. Anything else (missing,
   * forged, from another session or transaction, stale, from the future) is
   * not, and the service is asked instead.
   */
  verifiedHolds(
    session: VerifiedTerms & { transaction_id: string | null },
    verified: VerifiedApproval | null | undefined,
    now: number
  ): verified is VerifiedApproval {
    if (!verified || !session.transaction_id || verified.transaction_id !== session.transaction_id) return false
    const age = now - verified.at
    if (!(age >= -5_000 && age <= VERIFIED_FRESH_MS)) return false
    return safeEqual(this.verifiedMac(session, verified), verified.mac)
  }

  private verifiedMac(session: VerifiedTerms, v: Omit<VerifiedApproval, "mac">): string {
    return this.mac(
      [
        "verified",
        session.session_id,
        session.currency_code.toLowerCase(),
        session.amount_minor,
        v.transaction_id,
        v.reason_code,
        v.card_type,
        v.card_suffix,
        String(v.at),
      ].join("|"),
      SEAL_LENGTH
    )
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
