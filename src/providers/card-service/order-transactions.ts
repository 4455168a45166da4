import { toDecimal, type AmountInput } from "../../lib/money"

/**
 * Medusa's records of a payment's money on its order: the order transactions
 * its capture and refund workflows write (reference "capture" or "refund",
 * reference_id the payment's row), matched to the payment's rows. Read by
 * the provider before a refund (order-change-guard.ts) and by the sweep that
 * records what Medusa left out (reconciliation/order-records.ts).
 */

export type Row = { id: string; amount?: AmountInput; raw_amount?: AmountInput; created_at?: Date | string; refund_reason_id?: string | null }

export type OrderTransactionRow = { id?: string; reference?: string | null; reference_id?: string | null; amount?: AmountInput; raw_amount?: AmountInput }


/**
 * The payment's capture and refund rows its order's transactions do not
 * account for. A capture is counted by a transaction naming its id. A
 * refund is counted by one naming its id, or by Medusa's order cancel
 * (refundPaymentsWorkflow), which names the payment instead: such
 * transactions count the payment's other refunds, oldest first, up to their
 * amount. Rows younger than `before` are left out: their workflow may still
 * be on its way.
 *
 * A transaction naming a row for another amount is misrecorded, and its row
 * counts as not recorded: Medusa's workflows record every row of the payment
 * its order lacks, each for the amount of the capture or refund being made
 * (core-flows: `input.amount ?? row.amount`), so a refund of 7 made while a
 * refund of 5 had no transaction yet (two refunds at once, or one whose
 * workflow stopped) records the 5 as 7.
 */
export function unrecordedRows(
  payment: { id: string; captures?: Row[] | null; refunds?: Row[] | null },
  transactions: OrderTransactionRow[],
  before: Date
): { captures: Row[]; refunds: Row[]; misrecorded: string[] } {
  const amountOf = (value: { amount?: AmountInput; raw_amount?: AmountInput }) => toDecimal((value.raw_amount ?? value.amount ?? 0) as AmountInput)
  const rowAmounts = new Map(
    [...(payment.captures ?? []), ...(payment.refunds ?? [])].map((row) => [row.id, amountOf(row)])
  )
  const misrecordedRows = new Set<string>()
  const misrecorded: string[] = []
  for (const t of transactions) {
    const expected = t.reference_id ? rowAmounts.get(t.reference_id) : undefined
    if (!expected || (t.reference !== "capture" && t.reference !== "refund")) continue
    if (amountOf(t).abs().eq(expected)) continue
    misrecordedRows.add(t.reference_id!)
    if (t.id) misrecorded.push(t.id)
  }
  const named = (reference: string) =>
    new Set(transactions.filter((t) => t.reference === reference && !misrecordedRows.has(t.reference_id!)).map((t) => t.reference_id))
  const capturesNamed = named("capture")
  const refundsNamed = named("refund")
  let byPayment = transactions
    .filter((t) => t.reference === "refund" && t.reference_id === payment.id)
    .reduce((total, t) => total.plus(toDecimal((t.raw_amount ?? t.amount ?? 0) as AmountInput).abs()), toDecimal(0))
  const oldestFirst = (rows: Row[] | null | undefined) =>
    [...(rows ?? [])].sort((a, b) => time(a.created_at) - time(b.created_at))
  const refunds: Row[] = []
  for (const row of oldestFirst(payment.refunds)) {
    if (refundsNamed.has(row.id)) continue
    const amount = toDecimal((row.raw_amount ?? row.amount ?? 0) as AmountInput)
    if (byPayment.gte(amount)) {
      byPayment = byPayment.minus(amount)
      continue
    }
    refunds.push(row)
  }
  const old = (row: Row) => time(row.created_at) < before.getTime()
  return {
    captures: oldestFirst(payment.captures).filter((row) => !capturesNamed.has(row.id) && old(row)),
    refunds: refunds.filter(old),
    misrecorded,
  }
}

const time = (at: Date | string | undefined) => (at ? new Date(at).getTime() : 0)
