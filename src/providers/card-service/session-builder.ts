import { MedusaError } from "@medusajs/framework/utils"
import type { Logger, PaymentProviderContext } from "@medusajs/framework/types"
import { toNumericCurrency } from "../../lib/iso-codes"
import {
  fromMinorUnits,
  toMinorUnits,
  toServiceAmount,
  toVoidAmount,
  type AmountInput,
} from "../../lib/money"
import { toMedusaError } from "./error-mapping"
import { serviceBaseUrl, type CardServiceOptions } from "./options"
import { allowedReturnUrl } from "./return-url"
import {
  parseSessionData,
  SESSION_DATA_VERSION,
  type CardServiceSessionData,
} from "./session-data"
import type { SessionSealer } from "./session-seal"

export type SessionTerms = {
  sessionId: string
  amount: AmountInput
  currencyCode: string
  /** The shopper's e-mail when Medusa knows it. */
  email: string | null
}

/**
 * Session data in and out of Medusa. Made here from Medusa's terms (amount,
 * currency) and sealed; taken back only when the seal holds, with everything
 * the service or the shopper's browser will see rebuilt from the sealed
 * terms, because the data is storefront-writable (session-seal.ts).
 */
export class SessionBuilder {
  constructor(
    private readonly options_: CardServiceOptions,
    private readonly sealer_: SessionSealer,
    private readonly logger_: Logger
  ) {}

  /** A new, unpaid session: what the browser step needs (section 4.2). */
  fresh({
    sessionId,
    amount,
    currencyCode,
    email,
  }: SessionTerms): CardServiceSessionData {
    let currency: string
    let serviceAmount: number
    let amountMinor: string
    try {
      currency = toNumericCurrency(currencyCode)
      serviceAmount = toServiceAmount(amount, currencyCode)
      amountMinor = toMinorUnits(amount, currencyCode).toString()
    } catch (error) {
      throw toMedusaError(error, "prepare payment", this.logger_)
    }
    if (BigInt(amountMinor) <= 0n) {
      throw new MedusaError(
        MedusaError.Types.INVALID_DATA,
        "card-service: the amount to pay must be greater than zero"
      )
    }
    const backend = this.options_.backendUrl
    const callbackUrl = `${backend}/card-service/callback/${sessionId}/`
    const returnUrl = `${backend}/card-service/return/${sessionId}/`
    return {
      version: SESSION_DATA_VERSION,
      session_id: sessionId,
      currency_code: currencyCode.toLowerCase(),
      currency,
      amount: serviceAmount,
      amount_minor: amountMinor,
      seal: this.sealer_.seal({ sessionId, currencyCode, amountMinor }),
      pay_url: `${backend}/card-service/pay/${sessionId}`,
      callback_url: callbackUrl,
      return_url: returnUrl,
      form: {
        action: `${serviceBaseUrl(this.options_)}/order/start`,
        method: "POST",
        enctype: "application/x-www-form-urlencoded",
        fields: {
          merchantId: this.options_.merchantId,
          verifyId: this.options_.verifyId,
          currency,
          amount: toVoidAmount(amount, currencyCode),
          callbackLocation: callbackUrl,
          redirectUrl: returnUrl,
          // Sent explicitly: the interface's two defaults disagree (2.2).
          isWindowed: this.options_.windowed ? "Y" : "N",
          isRedirect: this.options_.redirectOnFailure ? "Y" : "N",
          isAuthenticate: "Y",
        },
        fields_url: `${backend}/store/card-service/sessions/${sessionId}/form`,
      },
      return_to: null,
      state: "pending",
      transaction_id: null,
      email,
      card: null,
      failure: null,
      capture: null,
      refunded_amount: 0,
      transactions: [],
    }
  }

  /**
   * updatePayment's session. With the same amount and currency the session
   * keeps its transaction, e-mail and failure, nothing else; any change
   * starts a fresh, unpaid session, because an approval is for one amount only.
   */
  renewed(
    current: CardServiceSessionData | null,
    terms: SessionTerms
  ): CardServiceSessionData {
    const fresh = this.fresh(terms)
    if (!current || !sameTerms(current, terms)) return fresh
    return {
      ...fresh,
      return_to: allowedReturnUrl(this.options_, current.return_to),
      transaction_id: current.transaction_id,
      // Checked where it is used (verifiedHolds): bound to this transaction.
      verified: current.verified ?? null,
      email: current.email ?? fresh.email,
      failure: current.failure,
      // A failure is final unless the service has the payment under review.
      state:
        current.failure && current.state !== "pending" ? "failed" : "pending",
    }
  }

  /** The session data if it is this provider's, unaltered, and for this session. */
  trusted(
    data: unknown,
    context: PaymentProviderContext | undefined
  ): CardServiceSessionData | null {
    const session = parseSessionData(data)
    if (!session) return null
    if (
      context?.idempotency_key &&
      context.idempotency_key !== session.session_id
    ) {
      // authorize and initiate get the session id as the idempotency key;
      // other methods get the capture, refund or payment id instead.
      if (context.idempotency_key.startsWith("payses_")) return null
    }
    const sealed = this.sealer_.verifySeal(
      {
        sessionId: session.session_id,
        currencyCode: session.currency_code,
        amountMinor: session.amount_minor,
      },
      session.seal
    )
    if (!sealed) return null
    // The amount and currency the service sees are derived from the sealed
    // terms, never taken from the (writable) data. So are the URLs and the
    // form: the payment page posts the shopper's card to form.action, so an
    // edited action or hidden field must never reach it.
    const amount = fromMinorUnits(
      BigInt(session.amount_minor),
      session.currency_code
    )
    const { currency, pay_url, callback_url, return_url, form } = this.fresh({
      sessionId: session.session_id,
      amount,
      currencyCode: session.currency_code,
      email: null,
    })
    return {
      ...session,
      currency,
      amount,
      pay_url,
      callback_url,
      return_url,
      form,
    }
  }

  /** A trusted session with a verified approval, for a follow-on; else NOT_ALLOWED. */
  requireApproved(data: unknown, operation: string): CardServiceSessionData {
    const session = this.trusted(data, undefined)
    let problem: string | null = null
    if (!session?.transaction_id) {
      problem = "the payment has no verified approval"
    } else if (session.state === "canceled" || session.state === "failed") {
      problem = `the payment is ${session.state}`
    }
    if (!session || problem) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        `card-service: cannot ${operation}: ${problem}`
      )
    }
    return session
  }
}

/**
 * The session id Medusa gives initiatePayment and updatePayment: the
 * idempotency key and data.session_id; the key comes from Medusa itself, so
 * it wins. Without one, INVALID_DATA saying `whenMissing`.
 */
export function sessionIdFrom(
  data: Record<string, unknown> | undefined,
  context: PaymentProviderContext | undefined,
  whenMissing: string
): string {
  const fromData = data?.session_id
  const sessionId =
    context?.idempotency_key ??
    (typeof fromData === "string" && fromData.length > 0 ? fromData : null)
  if (!sessionId) {
    throw new MedusaError(
      MedusaError.Types.INVALID_DATA,
      `card-service: ${whenMissing}`
    )
  }
  return sessionId
}

function sameTerms(
  session: CardServiceSessionData,
  { amount, currencyCode }: SessionTerms
): boolean {
  try {
    return (
      session.currency_code === currencyCode.toLowerCase() &&
      toMinorUnits(amount, currencyCode).toString() === session.amount_minor
    )
  } catch {
    return false
  }
}
