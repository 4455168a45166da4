import { toMinorUnits, type AmountInput } from "../../lib/money"
import { containerMember } from "./container-member"
import type { CardServiceSessionData } from "./session-data"

/**
 * What Medusa itself records as a payment session's amount and currency,
 * read when it authorizes the session. authorizePayment gets the session's
 * (storefront-writable) data and an idempotency key, the session id, but not
 * its amount (the payment module passes `{ data, context }` only). The
 * sealed terms in the data are checked against the seal; this checks them
 * against Medusa's record too, as the callback and return routes already do
 * (settle-payment.ts), so `POST /store/carts/:id/complete` holds the same
 * line: sealed data of another amount for this very session is refused.
 *
 * The reading goes through the payment module's own session service, which
 * Medusa 2.21 hands every provider in its container; where it is missing (a
 * provider built outside Medusa, as the contract tests do) there is nothing
 * to compare with, and the seal alone decides.
 */
type SessionService = {
  retrieve(
    id: string,
    config: { select: string[] }
  ): Promise<{
    amount?: AmountInput
    raw_amount?: AmountInput
    currency_code: string
    status?: string
    authorized_at?: Date | string | null
  }>
}

export class MedusaSessionTerms {
  private readonly service_: SessionService | null

  constructor(container: unknown) {
    this.service_ = containerMember<SessionService>(
      container,
      "paymentSessionService",
      "retrieve"
    )
  }

  /**
   * Whether Medusa has authorized the session: cart completion did, and an
   * order's payment rests on its approval whatever happens to the session
   * afterwards. False where there is nothing to read.
   */
  async authorizedByMedusa(sessionId: string | undefined): Promise<boolean> {
    if (!this.service_ || !sessionId) return false
    const session = await this.service_.retrieve(sessionId, {
      select: ["id", "status", "authorized_at"],
    })
    return (
      Boolean(session.authorized_at) ||
      session.status === "authorized" ||
      session.status === "captured"
    )
  }

  /** False when Medusa records another amount or currency for the session than its sealed data. */
  async agree(
    data: CardServiceSessionData,
    sessionId: string | undefined
  ): Promise<boolean> {
    if (!this.service_ || !sessionId) return true
    const session = await this.service_.retrieve(sessionId, {
      select: ["id", "amount", "raw_amount", "currency_code"],
    })
    try {
      const amount = (session.raw_amount ?? session.amount) as AmountInput
      return (
        session.currency_code.toLowerCase() === data.currency_code &&
        toMinorUnits(amount, session.currency_code).toString() ===
          data.amount_minor
      )
    } catch {
      return false
    }
  }
}
