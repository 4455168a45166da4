import { captureTelemetry } from "../../../integration-tests/helpers/telemetry-capture"
import type { ServiceCallReport } from "../../../src/lib/call-report"
import { setActivityRecording } from "../../../src/observability/activity-buffer"
import { observeServiceCall } from "../../../src/observability/service-calls"
import { traceSettlement } from "../../../src/observability/settlement-telemetry"
import { inSpan, instruments } from "../../../src/observability/telemetry"

/**
 * Issue 32: nothing is recorded and nothing is built when the store
 * registers no tracer or meter provider; the same calls record once it
 * registers them, and stop again when they are removed.
 */
const report: ServiceCallReport = {
  operation: "retrieve",
  httpStatus: 200,
  reasonCode: "100",
  attempts: 1,
  durationMs: 12.5,
  startedAt: Date.now(),
  record: { step: "AUTHORIZATION", status: "successful", transactionId: "t-1" },
}

describe("telemetry without and with the store's providers", () => {
  // The admin's rows are not telemetry: left out here (no database).
  beforeAll(() => setActivityRecording(false))
  afterAll(() => setActivityRecording(true))

  it("builds no attribute and has no instrument without providers, records with them, and stops when they go", async () => {
    expect(instruments()).toBeNull()
    const attributes = jest.fn(() => ({ "card_service.settle.source": "callback" }))
    const describe = jest.fn(() => ({ "card_service.settle.outcome": "order" }))
    await expect(inSpan("card_service.settle", attributes, async () => 42, describe)).resolves.toBe(42)
    observeServiceCall(report)
    expect(attributes).not.toHaveBeenCalled()
    expect(describe).not.toHaveBeenCalled()

    const telemetry = captureTelemetry()
    try {
      expect(instruments()).not.toBeNull()
      await inSpan("card_service.settle", attributes, async () => 42, describe)
      await traceSettlement("return", async () => ({ kind: "failed", failure: { code: "203" } }))
      observeServiceCall(report)
      expect(attributes).toHaveBeenCalledTimes(1)
      expect(describe).toHaveBeenCalledTimes(1)
      const spans = telemetry.spans()
      expect(spans.map((s) => s.name)).toEqual(["card_service.settle", "card_service.settle", "card_service.retrieve"])
      expect(spans[1].attributes).toEqual({
        "card_service.settle.source": "return",
        "card_service.settle.outcome": "failed",
        "card_service.failure": "203",
      })
      // The call's span keeps the call's own times.
      const [start, end] = [spans[2].startTime, spans[2].endTime].map(([s, ns]) => s * 1000 + ns / 1e6)
      expect(Math.abs(start - report.startedAt)).toBeLessThan(1)
      expect(end - start).toBeCloseTo(12.5, 0)
      const points = await telemetry.points()
      expect(points).toContainEqual(
        expect.objectContaining({
          name: "card_service.call.duration",
          attributes: { "card_service.operation": "retrieve", "card_service.call.outcome": "ok" },
          count: 1,
        })
      )
    } finally {
      telemetry.stop()
    }

    expect(instruments()).toBeNull()
    await inSpan("card_service.settle", attributes, async () => 42, describe)
    expect(attributes).toHaveBeenCalledTimes(1)
  })

  it("marks a failed settlement with the error's type and no message", async () => {
    const telemetry = captureTelemetry()
    try {
      const failing = traceSettlement("callback", async () => {
        throw Object.assign(new Error("card service retrieve: failed [transaction t-9]"), { name: "CallBudgetExceeded" })
      })
      await expect(failing).rejects.toThrow()
      const [span] = telemetry.spans()
      expect(span.attributes).toEqual({ "card_service.settle.source": "callback", "error.type": "CallBudgetExceeded" })
      expect(span.status.code).toBe(2)
      expect(span.events).toEqual([])
    } finally {
      telemetry.stop()
    }
  })
})
