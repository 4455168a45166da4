import type { PaymentSessionDTO } from "@medusajs/framework/types"
import { toMinorUnits } from "../lib/money"
import type { CardServiceSessionData } from "../providers/card-service/session-data"

/** The session's sealed terms must be Medusa's own amount and currency for it. */
export function matchesMedusaRecord(
  data: CardServiceSessionData,
  session: Pick<PaymentSessionDTO, "amount" | "currency_code">
): boolean {
  try {
    return (
      data.currency_code === session.currency_code.toLowerCase() &&
      toMinorUnits(session.amount as never, session.currency_code).toString() === data.amount_minor
    )
  } catch {
    return false
  }
}
