import { SpanKind, type Attributes } from "@medusajs/framework/opentelemetry/api"
import type { ServiceCallReport } from "../lib/call-report"
import { isPaymentStep, PAYMENT_RESULT_KINDS, paymentResultKind } from "../lib/payment-results"
import { describeReasonCode } from "../lib/reason-codes"
import { onNewResults, recordActivity, type ActivityRow } from "./activity-buffer"
import { inSettlement } from "./settlement-scope"
import { ATTR, callSpanName } from "./telemetry-names"
import { instruments, markFailed, tracer, tracingOn } from "./telemetry"

/**
 * The provider's observer of its card-service client (src/lib/call-report.ts):
 * each call becomes a `card_service.<operation>` span, a sample of the
 * call-duration histogram and a row for the admin's latency figures; a
 * retrieve made while settling a reported result that read a payment's
 * outcome (an AUTHORIZATION or AUTHENTICATION record) also becomes a
 * payment result, counted once per transaction however often it is read
 * (activity-buffer.ts, settlement-scope.ts).
 *
 * The span is made when the call has ended, with the call's own start and
 * end times, under whatever span is active (a settlement, Medusa's HTTP
 * request or workflow step).
 */
export function observeServiceCall(report: ServiceCallReport): void {
  const outcome = report.errorCategory ?? "ok"
  traceCall(report)
  instruments()?.callDuration.record(report.durationMs, {
    [ATTR.operation]: report.operation,
    [ATTR.callOutcome]: outcome,
  })
  recordActivity({
    kind: "call",
    name: report.operation,
    reason_code: report.reasonCode ?? null,
    http_status: report.httpStatus ?? null,
    duration_ms: report.durationMs,
  })
  const record = report.record
  if (record && report.reasonCode && isPaymentStep(record.step) && inSettlement()) {
    recordActivity({
      kind: "result",
      name: paymentResultKind(report.reasonCode),
      reason_code: report.reasonCode,
      flag: describeReasonCode(report.reasonCode).flag,
      transaction_id: record.transactionId,
    })
  }
}

function traceCall(report: ServiceCallReport): void {
  if (!tracingOn()) return
  const span = tracer().getOTTracer().startSpan(callSpanName(report.operation), {
    kind: SpanKind.CLIENT,
    startTime: report.startedAt,
  })
  if (span.isRecording()) {
    const attributes: Attributes = {
      [ATTR.operation]: report.operation,
      [ATTR.attempts]: report.attempts,
    }
    if (report.httpStatus !== undefined) attributes[ATTR.httpStatus] = report.httpStatus
    if (report.decision) attributes[ATTR.decision] = report.decision
    if (report.reasonCode) {
      attributes[ATTR.reasonCode] = report.reasonCode
      const flag = describeReasonCode(report.reasonCode).flag
      if (flag) attributes[ATTR.reasonFlag] = flag
    }
    span.setAttributes(attributes)
    if (report.errorCategory) markFailed(span, report.errorCategory)
  }
  span.end(report.startedAt + report.durationMs)
}

/**
 * New payment results (written first by this instance, or with no database)
 * go to the results metric: a review's verdict is one too. A review that
 * expired is no result the service decided, and is not counted there.
 */
onNewResults((rows: ActivityRow[]) => {
  const counter = instruments()?.paymentResults
  if (!counter) return
  for (const row of rows) {
    if (!(PAYMENT_RESULT_KINDS as readonly string[]).includes(row.name)) continue
    const attributes: Attributes = {
      [ATTR.result]: row.name,
      [ATTR.reasonCode]: row.reason_code ?? "",
    }
    if (row.flag) attributes[ATTR.reasonFlag] = row.flag
    counter.add(1, attributes)
  }
})
