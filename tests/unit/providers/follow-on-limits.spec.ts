import {
  formatAmount,
  liveCapture,
  partialCaptureText,
  refundBeyondCapture,
  secondCaptureText,
  unknownRefund,
  unknownRefundText,
} from "../../../src/providers/card-service/follow-on-limits"
import type { TransactionLogEntry } from "../../../src/providers/card-service/session-data"

const entry = (over: Partial<TransactionLogEntry>): TransactionLogEntry => ({
  transaction_id: "t",
  operation: "capture",
  decision: "ACCEPT",
  reason_code: "100",
  amount: 8.7,
  at: "",
  key: "capt_1",
  ...over,
})
const session = (transactions: TransactionLogEntry[], amount = 17.4, currency_code = "eur") => ({
  session_id: "payses_01JZ0000000000000000000000",
  currency_code,
  amount,
  transaction_id: "auth_1",
  transactions,
  refunded_amount: 0,
})

describe("follow-on limits", () => {
  it("formats amounts with the currency's own digits", () => {
    expect(formatAmount(8.7, { currency_code: "eur" })).toBe("8.70 EUR")
    expect(formatAmount(1740, { currency_code: "jpy" })).toBe("1740 JPY")
    expect(formatAmount(1.25, { currency_code: "kwd" })).toBe("1.250 KWD")
  })

  it("finds the live capture: the last accepted or unknown one, not a refused or voided one", () => {
    expect(liveCapture(session([]))).toBeNull()
    expect(liveCapture(session([entry({ decision: "REJECT" })]))).toBeNull()
    expect(liveCapture(session([entry({ voided: true })]))).toBeNull()
    const unknown = entry({ decision: "UNKNOWN", key: "capt_2" })
    expect(liveCapture(session([entry({ voided: true }), unknown]))).toBe(unknown)
    expect(liveCapture(session([entry({ operation: "refund" })]))).toBeNull()
  })

  it("says what a second capture cannot take, and what to do", () => {
    const text = secondCaptureText(session([entry({})]), entry({}), 8.7)
    expect(text).toBe(
      "cannot capture 8.70 EUR: the card service allows one capture per approval, and this payment's approval of 17.40 EUR was already captured for 8.70 EUR. The other 8.70 EUR cannot be captured; the card issuer gives it back to the shopper when the approval expires. Medusa books nothing for this request. To collect more from the shopper, take a new payment for the outstanding amount (the payment link in the order's card-service panel)."
    )
    const pending = secondCaptureText(session([]), entry({ decision: "UNKNOWN", amount: 5 }), 3)
    expect(pending).toContain("an earlier capture of this payment (5.00 EUR, reference")
    expect(pending).toContain("Nothing more is captured until it is settled")
  })

  it("finds an unknown refund under another key only", () => {
    const lost = entry({ operation: "refund", decision: "UNKNOWN", key: "ref_1", amount: 4 })
    expect(unknownRefund(session([lost]), "ref_1")).toBeNull()
    expect(unknownRefund(session([lost]), "ref_2")).toBe(lost)
    expect(unknownRefund(session([entry({ operation: "refund", key: "ref_3" })]), "ref_2")).toBeNull()
    expect(unknownRefundText(session([lost]), lost)).toContain("an earlier refund of this payment (4.00 EUR, reference")
  })

  it("refuses a refund beyond what the service captured and has not given back, to the minor unit", () => {
    expect(refundBeyondCapture({ currency_code: "eur", refunded_amount: 2 }, 8.7, 6.7)).toBeNull()
    const over = refundBeyondCapture({ currency_code: "eur", refunded_amount: 2 }, 8.7, 6.71)
    expect(over?.message).toContain("at most 6.70 EUR can be refunded")
    expect(refundBeyondCapture({ currency_code: "eur", refunded_amount: 9 }, 8.7, 0.01)?.message).toContain(
      "at most 0.00 EUR"
    )
  })

  it("describes a partial capture only", () => {
    expect(partialCaptureText(session([]))).toBeNull()
    expect(partialCaptureText(session([entry({ amount: 17.4 })]))).toBeNull()
    expect(partialCaptureText(session([entry({ decision: "UNKNOWN" })]))).toBeNull()
    expect(partialCaptureText(session([entry({})]))).toBe(
      "8.70 EUR of the 17.40 EUR approval was captured. The card service allows one capture per approval, so the other 8.70 EUR cannot be captured: the card issuer gives it back to the shopper when the approval expires. To collect more, take a new payment for what the order still owes."
    )
  })

  it("stops new refunds only for an unknown refund, not for an unknown capture or an accepted refund", () => {
    expect(unknownRefund(session([entry({ decision: "UNKNOWN", key: "x" })]), "y")).toBeNull()
    expect(unknownRefund(session([entry({ operation: "refund", decision: "ACCEPT", key: "x" })]), "y")).toBeNull()
  })

  it("clamps what is left to refund at zero when more was refunded than captured", () => {
    const over = refundBeyondCapture({ currency_code: "eur", refunded_amount: 10 }, 8.7, 1)
    expect(over?.message).toContain("so at most 0.00 EUR can be refunded")
    expect(over?.message).toContain("8.70 EUR of this payment and 10.00 EUR of it is already refunded")
  })
})
