import type {
  AuthenticatedMedusaRequest,
  MedusaResponse,
} from "@medusajs/framework/http"
import { fromMinorUnits, toMinorUnits } from "../../../../../../lib/money"
import { loadCardServicePayment } from "../../../payment-access"
import type {
  PaymentTransactionsResponse,
  TransactionRow,
} from "../../../response-types"
import { isServiceFailure, sendServiceFailure } from "../../../service-failure"
import { partialCaptureText } from "../../../../../../providers/card-service/follow-on-limits"
import { moneyComparison } from "../../../money-comparison"
import { transactionRows } from "../../../transaction-view"

/**
 * GET /admin/card-service/payments/:payment_id/transactions - each service
 * transaction of the payment, read from the service's own record, with what
 * can still be voided, and how the service's totals compare with Medusa's.
 */
export async function GET(
  req: AuthenticatedMedusaRequest,
  res: MedusaResponse
) {
  const { payment, provider, session, medusa } = await loadCardServicePayment(
    req.scope,
    req.params.payment_id
  )
  res.setHeader("Cache-Control", "no-store")
  const summary = {
    id: payment.id,
    provider_id: payment.provider_id,
    currency_code: payment.currency_code,
    amount: medusa.amount,
    state: session?.state ?? null,
    medusa: { captured: medusa.captured, refunded: medusa.refunded },
  }
  if (!session) {
    res.json({
      payment: { ...summary, service: null, notes: [], capture_note: null },
      transactions: [],
      problem:
        "This payment's card-service data is missing or was altered, so its service transactions cannot be listed",
    } satisfies PaymentTransactionsResponse)
    return
  }

  let rows: TransactionRow[]
  try {
    rows = await transactionRows(provider.client, session)
  } catch (error) {
    if (isServiceFailure(error)) {
      sendServiceFailure(res, error)
      return
    }
    throw error
  }
  // A transaction whose record was not read counts for nothing either way:
  // totals without it would show money taken or voided that nobody saw.
  const unread = rows.filter((row) => row.transaction_id && row.step === null)
  if (unread.length) {
    res.json({
      payment: {
        ...summary,
        service: null,
        notes: [unreadNote(unread)],
        capture_note: partialCaptureText(session),
      },
      transactions: rows,
      problem: null,
    } satisfies PaymentTransactionsResponse)
    return
  }
  const currency = session.currency_code
  const service = {
    captured: total(rows, "CAPTURE", currency),
    refunded: total(rows, "REFUND", currency),
  }
  res.json({
    payment: {
      ...summary,
      service,
      notes: moneyComparison(medusa, service, session),
      capture_note: partialCaptureText(session),
    },
    transactions: rows,
    problem: null,
  } satisfies PaymentTransactionsResponse)
}

/** Says which records are missing, and that nothing is inferred from their absence. */
function unreadNote(unread: TransactionRow[]): string {
  const all = unread.every((row) => row.no_record)
  const count = `${unread.length} of this payment's transaction${unread.length === 1 ? "" : "s"}`
  return all
    ? `The service has no record of ${count}, so what it has taken is not known here and is not compared with Medusa's totals. A missing record does not mean a capture was voided; ask the card service.`
    : `The service's record of ${count} could not be read, so what it has taken is not compared with Medusa's totals; reload to ask again.`
}

/** Successful, not voided CAPTURE or REFUND amounts, summed in minor units. */
function total(
  rows: TransactionRow[],
  step: "CAPTURE" | "REFUND",
  currency: string
): number {
  const minor = rows
    .filter(
      (r) =>
        r.step === step &&
        r.status === "successful" &&
        !r.voided &&
        r.amount !== null
    )
    .reduce((sum, r) => sum + toMinorUnits(r.amount as number, currency), 0n)
  return fromMinorUnits(minor, currency)
}
