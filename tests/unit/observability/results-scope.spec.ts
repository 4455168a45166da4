import { captureTelemetry } from "../../../integration-tests/helpers/telemetry-capture"
import type { ServiceCallReport } from "../../../src/lib/call-report"
import { observeServiceCall } from "../../../src/observability/service-calls"
import { traceSettlement } from "../../../src/observability/settlement-telemetry"

/**
 * A payment result is counted when a settlement reads it, once per
 * transaction; the order widget or a cancellation reading an old approval
 * again counts nothing (the record has no date to tell it is old). No
 * activity module here, so each new result goes to the metric at once.
 */
const read = (transactionId: string, reasonCode = "100"): ServiceCallReport => ({
  operation: "retrieve",
  httpStatus: 200,
  reasonCode,
  attempts: 1,
  durationMs: 3,
  startedAt: Date.now(),
  record: { step: "AUTHORIZATION", status: reasonCode === "100" ? "successful" : "declined", transactionId },
})

describe("payment results", () => {
  it("are counted when read while settling, once per transaction, and not when read elsewhere", async () => {
    const telemetry = captureTelemetry()
    try {
      observeServiceCall(read("old-approval"))
      await traceSettlement("callback", async () => {
        observeServiceCall(read("t-approved"))
        observeServiceCall(read("t-approved"))
        observeServiceCall(read("t-declined", "204"))
        return { kind: "order" }
      })
      await traceSettlement("return", async () => {
        observeServiceCall(read("t-approved"))
        return { kind: "order" }
      })
      const results = (await telemetry.points()).filter((p) => p.name === "card_service.payment.results")
      expect(results).toEqual([
        {
          name: "card_service.payment.results",
          attributes: { "card_service.result": "approved", "card_service.reason_code": "100", "card_service.reason_flag": "SOK" },
          value: 1,
        },
        {
          name: "card_service.payment.results",
          attributes: { "card_service.result": "declined", "card_service.reason_code": "204", "card_service.reason_flag": "DCARDREFUSED" },
          value: 1,
        },
      ])
    } finally {
      telemetry.stop()
    }
  })
})
