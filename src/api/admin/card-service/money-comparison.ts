import { fromMinorUnits, toMinorUnits } from "../../../lib/money"
import { formatAmount } from "../../../providers/card-service/follow-on-limits"
import { followOnReference } from "../../../providers/card-service/merchant-reference"
import type { CardServiceSessionData } from "../../../providers/card-service/session-data"
import type { MoneyTotals } from "./response-types"

/**
 * The admin's comparison of what the service holds for a payment with what
 * Medusa books: nothing when they agree, else one sentence for the captured
 * side and one for the refunded side, each naming both totals, the
 * difference, and its cause where the payment's own log shows it (a void, an
 * operation that had no answer). A full refund that the provider turned into
 * a void of the capture leaves both sides at zero net: no difference.
 */
export function moneyComparison(
  medusa: MoneyTotals,
  service: MoneyTotals,
  session: Pick<
    CardServiceSessionData,
    "currency_code" | "transactions" | "session_id"
  >
): string[] {
  const currency = session.currency_code
  const minor = (value: number) => toMinorUnits(value, currency)
  const money = (value: number | bigint) =>
    formatAmount(
      typeof value === "bigint" ? fromMinorUnits(value, currency) : value,
      session
    )
  const log = session.transactions
  const voided = (operation: "capture" | "refund") =>
    log.some((t) => t.operation === operation && t.voided)
  const unknown = (operation: "capture" | "refund") =>
    log.find((t) => t.operation === operation && t.decision === "UNKNOWN")

  const captured = minor(service.captured) - minor(medusa.captured)
  const refunded = minor(service.refunded) - minor(medusa.refunded)
  if (captured === 0n && refunded === 0n) return []
  const medusaKept = minor(medusa.captured) - minor(medusa.refunded)
  const serviceKept = minor(service.captured) - minor(service.refunded)
  if (serviceKept === medusaKept && service.captured === 0 && voided("capture")) {
    return []
  }

  const notes: string[] = []
  if (captured > 0n) {
    notes.push(
      `The service captured ${money(service.captured)}, Medusa books ${money(medusa.captured)} captured: ${money(captured)} more was taken from the shopper than Medusa shows, and Medusa cannot book it. Give it back at the card service if the order does not owe it.`
    )
  } else if (captured < 0n) {
    const lost = unknown("capture")
    notes.push(
      voided("capture")
        ? `The service has taken ${money(serviceKept)} net, Medusa counts ${money(medusaKept)}: a capture was voided at the service, so less money moved than Medusa shows, and Medusa cannot undo a capture.`
        : lost
          ? `Medusa books ${money(medusa.captured)} captured, the service's records show ${money(service.captured)}: a capture of ${money(lost.amount ?? 0)} (reference ${followOnReference(session.session_id, lost.key)}) had no answer, and the reconciliation sweep is settling it.`
          : `Medusa books ${money(medusa.captured)} captured, the service ${money(service.captured)}: ${money(-captured)} that Medusa shows as paid was not taken from the shopper.`
    )
  }
  if (refunded < 0n) {
    const lost = unknown("refund")
    notes.push(
      lost
        ? `Medusa counts ${money(medusa.refunded)} refunded, the service's records show ${money(service.refunded)}: a refund of ${money(lost.amount ?? 0)} (reference ${followOnReference(session.session_id, lost.key)}, Medusa refund ${lost.key ?? "unknown"}) had no answer. Look it up at the card service and record whether it was made.`
        : voided("refund")
          ? `Medusa counts ${money(medusa.refunded)} refunded, the service ${money(service.refunded)}: a voided refund is not paid out to the customer, but Medusa still counts it.`
          : `Medusa counts ${money(medusa.refunded)} refunded, the service ${money(service.refunded)}: ${money(-refunded)} that Medusa shows as given back was not refunded at the service.`
    )
  } else if (refunded > 0n) {
    notes.push(
      `The service refunded ${money(service.refunded)}, Medusa books ${money(medusa.refunded)}: ${money(refunded)} more was given back to the shopper than Medusa shows.`
    )
  }
  return notes
}
