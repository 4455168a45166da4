import { moneyComparison } from "../../../src/api/admin/card-service/money-comparison"
import type { TransactionLogEntry } from "../../../src/providers/card-service/session-data"

const entry = (over: Partial<TransactionLogEntry>): TransactionLogEntry => ({
  transaction_id: "t1",
  operation: "capture",
  decision: "ACCEPT",
  reason_code: "100",
  amount: 17.4,
  at: "2026-11-27T00:00:00.000Z",
  ...over,
})
const session = (transactions: TransactionLogEntry[] = [], currency_code = "eur") => ({
  currency_code,
  session_id: "payses_01JZ0000000000000000000000",
  transactions,
})

describe("moneyComparison", () => {
  it("says nothing when the service holds what Medusa books", () => {
    expect(moneyComparison({ captured: 8.7, refunded: 2 }, { captured: 8.7, refunded: 2 }, session())).toEqual([])
  })

  it("names the capture of the whole approval for a capture Medusa booked in part, and speaks of no refund (issue 40)", () => {
    const notes = moneyComparison({ captured: 8.7, refunded: 0 }, { captured: 17.4, refunded: 0 }, session([entry({})]))
    expect(notes).toEqual([
      "The service captured 17.40 EUR, Medusa books 8.70 EUR captured: 8.70 EUR more was taken from the shopper than Medusa shows, and Medusa cannot book it. Give it back at the card service if the order does not owe it.",
    ])
    expect(notes.join(" ")).not.toMatch(/refund/i)
  })

  it("says nothing for a full refund the provider turned into a void of the capture", () => {
    const log = [entry({ voided: true }), entry({ operation: "void", transaction_id: "t2" })]
    expect(moneyComparison({ captured: 30, refunded: 30 }, { captured: 0, refunded: 0 }, session(log))).toEqual([])
  })

  it("names a capture voided at the service, net", () => {
    const log = [entry({ voided: true, amount: 30 })]
    expect(moneyComparison({ captured: 30, refunded: 0 }, { captured: 0, refunded: 0 }, session(log))).toEqual([
      expect.stringMatching(/^The service has taken 0.00 EUR net, Medusa counts 30.00 EUR: a capture was voided/),
    ])
  })

  it("names a refund with no answer by its reference and Medusa refund, and says what to do", () => {
    const log = [entry({}), entry({ operation: "refund", decision: "UNKNOWN", transaction_id: null, amount: 5, key: "ref_01" })]
    const [note] = moneyComparison({ captured: 17.4, refunded: 5 }, { captured: 17.4, refunded: 0 }, session(log))
    expect(note).toContain("a refund of 5.00 EUR")
    expect(note).toContain("Medusa refund ref_01")
    expect(note).toContain("record whether it was made")
  })

  it("names a capture with no answer as being settled by the sweep", () => {
    const log = [entry({ decision: "UNKNOWN", transaction_id: null, key: "capt_1" })]
    expect(moneyComparison({ captured: 17.4, refunded: 0 }, { captured: 0, refunded: 0 }, session(log))).toEqual([
      expect.stringContaining("had no answer, and the reconciliation sweep is settling it"),
    ])
  })

  it("names both sides when both differ, in the currency's digits", () => {
    const notes = moneyComparison({ captured: 1000, refunded: 0 }, { captured: 1740, refunded: 300 }, session([entry({})], "jpy"))
    expect(notes).toEqual([
      expect.stringContaining("740 JPY more was taken"),
      expect.stringContaining("300 JPY more was given back"),
    ])
  })

  it("names money Medusa shows as moved that the service never moved", () => {
    expect(moneyComparison({ captured: 30, refunded: 10 }, { captured: 20, refunded: 0 }, session([entry({})]))).toEqual([
      expect.stringContaining("10.00 EUR that Medusa shows as paid was not taken from the shopper"),
      expect.stringContaining("10.00 EUR that Medusa shows as given back was not refunded at the service"),
    ])
  })

  it("takes only a voided capture (not a voided refund) for the net explanation, and nets refunds in", () => {
    const voidedRefund = [entry({}), entry({ operation: "refund", voided: true, transaction_id: "r1", amount: 5 })]
    expect(moneyComparison({ captured: 30, refunded: 30 }, { captured: 0, refunded: 0 }, session(voidedRefund))).toEqual([
      expect.stringContaining("30.00 EUR that Medusa shows as paid was not taken"),
      expect.stringContaining("a voided refund is not paid out"),
    ])
    const voidedCapture = [entry({ voided: true, amount: 30 })]
    expect(moneyComparison({ captured: 30, refunded: 10 }, { captured: 0, refunded: 0 }, session(voidedCapture))).toEqual([
      expect.stringMatching(/^The service has taken 0.00 EUR net, Medusa counts 20.00 EUR/),
      expect.stringContaining("Medusa counts 10.00 EUR refunded, the service 0.00 EUR: 10.00 EUR that Medusa shows"),
    ])
  })

  it("takes only an unknown capture for the sweep's explanation, and names its amount", () => {
    const unknownRefund = [entry({}), entry({ operation: "refund", decision: "UNKNOWN", transaction_id: null, amount: 2, key: "r" })]
    expect(moneyComparison({ captured: 17.4, refunded: 0 }, { captured: 10, refunded: 0 }, session(unknownRefund))).toEqual([
      expect.stringContaining("7.40 EUR that Medusa shows as paid was not taken"),
    ])
    const lost = [entry({ decision: "UNKNOWN", transaction_id: null, amount: 4.5, key: "capt_1" })]
    expect(moneyComparison({ captured: 4.5, refunded: 0 }, { captured: 0, refunded: 0 }, session(lost))[0]).toContain(
      "a capture of 4.50 EUR (reference"
    )
  })

  it("does not take a voided capture with money still held for a void that explains everything", () => {
    const log = [entry({ voided: true, amount: 10 }), entry({ transaction_id: "t2", amount: 10 })]
    expect(moneyComparison({ captured: 10, refunded: 10 }, { captured: 10, refunded: 10 }, session(log))).toEqual([])
    expect(moneyComparison({ captured: 20, refunded: 10 }, { captured: 10, refunded: 0 }, session(log))).toHaveLength(2)
  })
})
