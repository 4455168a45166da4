import {
  unknownCapture,
  unknownRefundReferences,
} from "../../../src/providers/card-service/lost-follow-ons"
import type { TransactionLogEntry } from "../../../src/providers/card-service/session-data"

const entry = (
  operation: TransactionLogEntry["operation"],
  decision: TransactionLogEntry["decision"],
  key?: string
): TransactionLogEntry => ({
  transaction_id: decision === "UNKNOWN" ? null : `tx-${operation}-${key}`,
  operation,
  decision,
  reason_code: decision === "UNKNOWN" ? null : "100",
  amount: 10,
  at: "2026-01-01T00:00:00.000Z",
  ...(key ? { key } : {}),
})

describe("follow-ons booked with no answer", () => {
  it("a capture is unknown only while the last capture in the log is", () => {
    const lost = entry("capture", "UNKNOWN", "capt_1")
    expect(
      unknownCapture({ transactions: [entry("authorization", "ACCEPT"), lost] })
    ).toBe(lost)
    // Settled by a later sending (242 or a fresh capture).
    expect(
      unknownCapture({
        transactions: [lost, entry("capture", "ACCEPT", "capt_1")],
      })
    ).toBeNull()
    expect(
      unknownCapture({ transactions: [entry("capture", "ACCEPT", "capt_1")] })
    ).toBeNull()
    // A refund of unknown outcome is not a capture of unknown outcome.
    expect(
      unknownCapture({ transactions: [entry("refund", "UNKNOWN", "ref_1")] })
    ).toBeNull()
  })

  it("names each refund of unknown outcome by the reference it was sent with (Medusa's refund id)", () => {
    expect(
      unknownRefundReferences({
        session_id: "payses_1",
        transactions: [
          entry("refund", "ACCEPT", "ref_1"),
          entry("refund", "UNKNOWN", "ref_2"),
          entry("refund", "UNKNOWN"),
          entry("capture", "UNKNOWN", "capt_1"),
        ],
      })
    ).toEqual(["ref_2", "payses_1"])
  })
})
