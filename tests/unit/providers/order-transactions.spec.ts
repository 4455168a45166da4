import { unrecordedRows } from "../../../src/providers/card-service/order-transactions"
import { creditLineAmount } from "../../../src/providers/card-service/order-change-guard"

/**
 * Which of a payment's capture and refund rows its order does not count
 * (Medusa's workflow stopped between booking the payment and recording it on
 * the order), from the order's transactions.
 */
describe("the rows of a payment its order does not count", () => {
  const at = (minute: number) => new Date(Date.UTC(2026, 10, 29, 0, minute))
  const before = at(30)
  const payment = {
    id: "pay_1",
    captures: [{ id: "capt_1", amount: 30, created_at: at(1) }],
    refunds: [
      { id: "ref_1", amount: 5, created_at: at(2) },
      { id: "ref_2", amount: 7, created_at: at(3) },
    ],
  }

  it("finds none when each row has its transaction", () => {
    const transactions = [
      { id: "t1", reference: "capture", reference_id: "capt_1", amount: 30 },
      { id: "t2", reference: "refund", reference_id: "ref_1", amount: -5 },
      { id: "t3", reference: "refund", reference_id: "ref_2", amount: -7 },
    ]
    expect(unrecordedRows(payment, transactions, before)).toEqual({ captures: [], refunds: [], misrecorded: [], duplicates: [] })
  })

  it("finds a capture and a refund with none", () => {
    const transactions = [{ id: "t2", reference: "refund", reference_id: "ref_1", amount: -5 }]
    const found = unrecordedRows(payment, transactions, before)
    expect(found.captures.map((r) => r.id)).toEqual(["capt_1"])
    expect(found.refunds.map((r) => r.id)).toEqual(["ref_2"])
  })

  it("counts refunds Medusa's order cancel recorded under the payment's id, oldest first, up to their amount", () => {
    const transactions = [
      { id: "t1", reference: "capture", reference_id: "capt_1", amount: 30 },
      { id: "t2", reference: "refund", reference_id: "pay_1", amount: -5 },
    ]
    expect(unrecordedRows(payment, transactions, before).refunds.map((r) => r.id)).toEqual(["ref_2"])
    const both = [...transactions, { id: "t3", reference: "refund", reference_id: "pay_1", amount: -7 }]
    expect(unrecordedRows(payment, both, before).refunds).toEqual([])
  })

  it("takes a transaction naming a row for another amount as misrecorded, and the row as not recorded", () => {
    const transactions = [
      { id: "t1", reference: "capture", reference_id: "capt_1", amount: 30 },
      { id: "t2", reference: "refund", reference_id: "ref_1", amount: -7 },
      { id: "t3", reference: "refund", reference_id: "ref_2", amount: -7 },
    ]
    const found = unrecordedRows(payment, transactions, before)
    expect(found.misrecorded).toEqual(["t2"])
    expect(found.refunds.map((r) => r.id)).toEqual(["ref_1"])
  })

  it("finds a row counted twice (two workflows recorded it at once), keeping its first transaction", () => {
    const transactions = [
      { id: "ordtrx_02", reference: "capture", reference_id: "capt_1", amount: 30 },
      { id: "ordtrx_01", reference: "capture", reference_id: "capt_1", amount: 30 },
      { id: "ordtrx_03", reference: "refund", reference_id: "ref_1", amount: -5 },
      { id: "ordtrx_04", reference: "refund", reference_id: "ref_2", amount: -7 },
      { id: "ordtrx_05", reference: "refund", reference_id: "ref_2", amount: -7 },
    ]
    const found = unrecordedRows(payment, transactions, before)
    expect(found.duplicates).toEqual(["ordtrx_02", "ordtrx_05"])
    expect(found).toMatchObject({ captures: [], refunds: [], misrecorded: [] })
    // Not while the rows are young: the workflows may still be on their way.
    expect(unrecordedRows(payment, transactions, at(1)).duplicates).toEqual([])
  })

  it("leaves out rows younger than the grace: their workflow may still be on its way", () => {
    const found = unrecordedRows(payment, [], at(2))
    expect(found.captures.map((r) => r.id)).toEqual(["capt_1"])
    expect(found.refunds).toEqual([])
  })
})

describe("the credit line Medusa's refund adds", () => {
  it("is the whole refund when the order owes the customer nothing, the part beyond what it owes otherwise", () => {
    expect(creditLineAmount({ pending_difference: 0 }, 10)).toBe(10)
    expect(creditLineAmount({ pending_difference: 4 }, 10)).toBe(10)
    expect(creditLineAmount({ pending_difference: -4 }, 10)).toBe(6)
    expect(creditLineAmount({ pending_difference: -10 }, 10)).toBe(0)
    expect(creditLineAmount({ raw_pending_difference: { value: "-2.5", precision: 20 } }, 10)).toBe(7.5)
  })
})
