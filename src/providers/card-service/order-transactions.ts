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
 *
 * A row named by more than one transaction for its amount is counted twice
 * by its order: Medusa's step that records them (core-flows'
 * addOrderTransactionStep) reads which rows are recorded, then writes the
 * others, so two workflows of one payment at once both write the same row
 * (seen: the owner pressed capture twice while the first capture was slow;
 * the second workflow found the payment captured, both recorded its capture
 * 12 ms apart, and the order counted 34.8 captured for 17.4). `duplicates`
 * are such rows' transactions after the first (by id, as Medusa's ids sort
 * by time), of rows older than `before`.
 */
export function unrecordedRows(
  payment: { id: string; captures?: Row[] | null; refunds?: Row[] | null },
  transactions: OrderTransactionRow[],
  before: Date
): { captures: Row[]; refunds: Row[]; misrecorded: string[]; duplicates: string[] } {
  const amountOf = (value: { amount?: AmountInput; raw_amount?: AmountInput }) => toDecimal((value.raw_amount ?? value.amount ?? 0) as AmountInput)
  const rows = [...(payment.captures ?? []), ...(payment.refunds ?? [])]
  const rowAmounts = new Map(rows.map((row) => [row.id, amountOf(row)]))
  const misrecordedRows = new Set<string>()
  const misrecorded: string[] = []
  const rightOf = new Map<string, string[]>()
  for (const t of transactions) {
    const expected = t.reference_id ? rowAmounts.get(t.reference_id) : undefined
    if (!expected || (t.reference !== "capture" && t.reference !== "refund")) continue
    if (amountOf(t).abs().eq(expected)) {
      if (t.id) rightOf.set(t.reference_id!, [...(rightOf.get(t.reference_id!) ?? []), t.id])
      continue
    }
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
  const oldRows = new Set(rows.filter(old).map((row) => row.id))
  const duplicates = [...rightOf]
    .filter(([rowId]) => oldRows.has(rowId) && !misrecordedRows.has(rowId))
    .flatMap(([, ids]) => [...ids].sort().slice(1))
  return {
    captures: oldestFirst(payment.captures).filter((row) => !capturesNamed.has(row.id) && old(row)),
    refunds: refunds.filter(old),
    misrecorded,
    duplicates,
  }
}

const time = (at: Date | string | undefined) => (at ? new Date(at).getTime() : 0)
