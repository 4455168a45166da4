import { performance } from "node:perf_hooks"
import type { ServiceCallReport } from "../src/lib/call-report"
import { setActivityRecording } from "../src/observability/activity-buffer"
import { observeServiceCall } from "../src/observability/service-calls"
import { traceSettlement } from "../src/observability/settlement-telemetry"

/**
 * What the plugin's telemetry costs per call when the store registers no
 * tracer or meter provider (#32): observing a service call, and wrapping a
 * settlement in its span, each minus the same work without it. Must run
 * with no provider registered; the figures' rows are switched off for it.
 */
export async function noProviderCost(iterations = 200_000): Promise<{
  callNs: number
  settleNs: number
  iterations: number
}> {
  const report: ServiceCallReport = {
    operation: "retrieve",
    httpStatus: 200,
    reasonCode: "100",
    attempts: 1,
    durationMs: 10,
    startedAt: Date.now(),
  }
  const outcome = { kind: "order" }
  const settle = async () => outcome
  setActivityRecording(false)
  try {
    // Warm both paths up before timing them.
    for (let i = 0; i < 10_000; i++) {
      observeServiceCall(report)
      await traceSettlement("callback", settle)
      await settle()
    }
    let started = performance.now()
    for (let i = 0; i < iterations; i++) observeServiceCall(report)
    const callNs = ((performance.now() - started) * 1e6) / iterations

    started = performance.now()
    for (let i = 0; i < iterations; i++) await settle()
    const bare = performance.now() - started
    started = performance.now()
    for (let i = 0; i < iterations; i++) await traceSettlement("callback", settle)
    const settleNs = ((performance.now() - started - bare) * 1e6) / iterations
    return { callNs, settleNs, iterations }
  } finally {
    setActivityRecording(true)
  }
}
