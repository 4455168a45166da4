import { MedusaError } from "@medusajs/framework/utils"
import { toServiceAmount, type AmountInput } from "../../lib/money"
import { containerMember } from "./container-member"
import type { CardServiceSessionData } from "./session-data"

/**
 * The amount of the capture Medusa is booking, read from Medusa's own record.
 *
 * The payment module (2.12.6 to 2.21.2 alike) creates the capture record with
 * its amount first, commits it, then calls the provider's capturePayment with
 * the payment's data and `context.idempotency_key` = that record's id, but no
 * amount; when the provider throws, it deletes the record. So the record named
 * by the key is the truth of what Medusa books, and the provider sends exactly
 * that to the service: a capture of part of an order (after an edit down, or a
 * partial shipment) takes that part, not the whole approval.
 *
 * The reading goes through the payment module's capture service, which Medusa
 * hands every provider in its container. Where it is missing (a provider
 * built outside Medusa, as the contract tests do) there is no booking to read,
 * and the whole approval is the capture (null).
 */
type CaptureService = {
  retrieve(
    id: string,
    config: { select: string[]; relations?: string[] }
  ): Promise<{
    id: string
    amount?: AmountInput
    raw_amount?: AmountInput
    payment?: { payment_session_id?: string | null } | null
  }>
}

export class MedusaCaptures {
  private readonly service_: CaptureService | null

  constructor(container: unknown) {
    this.service_ = containerMember<CaptureService>(
      container,
      "captureService",
      "retrieve"
    )
  }

  /**
   * The amount (major units, as the service takes it) of the capture record
   * `key` names; null where there is no capture service to ask or no key.
   * A record that cannot be read, or that belongs to another payment, is
   * refused: nothing is captured on a guess.
   */
  async bookedAmount(
    session: CardServiceSessionData,
    key: string | undefined
  ): Promise<number | null> {
    if (!this.service_ || !key) return null
    const record = await this.service_
      .retrieve(key, {
        select: ["id", "amount", "raw_amount"],
        relations: ["payment"],
      })
      .catch(() => null)
    const sessionId = record?.payment?.payment_session_id
    if (!record || (sessionId && sessionId !== session.session_id)) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        `card-service: cannot capture: Medusa has no capture ${key} of this payment to take its amount from`
      )
    }
    const amount = (record.raw_amount ?? record.amount) as AmountInput
    return toServiceAmount(amount, session.currency_code)
  }
}
