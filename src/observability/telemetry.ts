import {
  createNoopMeter,
  metrics,
  SpanStatusCode,
  trace,
  type Attributes,
  type Counter,
  type Histogram,
  type Meter,
  type MeterProvider,
  type ProxyTracerProvider,
  type Span,
  type TracerProvider,
} from "@medusajs/framework/opentelemetry/api"
import { Tracer } from "@medusajs/framework/telemetry"
import { CardServiceError } from "../lib/card-service-error"
import { ATTR, CALL_DURATION_BUCKETS_MS, INSTRUMENTATION_SCOPE, METRICS } from "./telemetry-names"

/**
 * The plugin's tracer and meter, through Medusa's own telemetry API
 * (`@medusajs/framework/telemetry`'s Tracer) and the OpenTelemetry API the
 * framework re-exports: whatever tracer and meter providers the store
 * registers in its instrumentation.ts (registerOtel) receive them.
 *
 * Without providers nothing is recorded and almost nothing runs: the
 * OpenTelemetry API then hands out no-op spans (`isRecording()` false, so
 * no attribute is even built) and a no-op meter (detected once per
 * provider, so no instrument is called). The tracer and the instruments
 * are made again when the store's providers change (tests and the
 * benchmark switch them on and off in one process).
 */

let currentTracer: { provider: TracerProvider; tracer: Tracer } | null = null

/**
 * Medusa's Tracer for the plugin's scope. Made again when the global tracer
 * provider changes: the API's proxy tracer keeps the first real tracer it
 * was given, so one made before a provider was removed would go on
 * recording to it.
 */
export function tracer(): Tracer {
  const provider = trace.getTracerProvider()
  if (currentTracer?.provider !== provider) {
    currentTracer = { provider, tracer: new Tracer(INSTRUMENTATION_SCOPE) }
  }
  return currentTracer.tracer
}

export type Instruments = {
  paymentResults: Counter
  callDuration: Histogram
  callbacks: Counter
  sweepActions: Counter
}

let current: { provider: MeterProvider; instruments: Instruments | null } | null = null

/** The instruments of the store's meter provider, or null when it registered none. */
export function instruments(): Instruments | null {
  const provider = metrics.getMeterProvider()
  if (current?.provider !== provider) {
    const meter = provider.getMeter(INSTRUMENTATION_SCOPE)
    current = { provider, instruments: meter === createNoopMeter() ? null : instrumentsOf(meter) }
  }
  return current.instruments
}

function instrumentsOf(meter: Meter): Instruments {
  const counter = (spec: (typeof METRICS)[keyof typeof METRICS]) =>
    meter.createCounter(spec.name, { unit: spec.unit, description: spec.description })
  return {
    paymentResults: counter(METRICS.paymentResults),
    callDuration: meter.createHistogram(METRICS.callDuration.name, {
      unit: METRICS.callDuration.unit,
      description: METRICS.callDuration.description,
      advice: { explicitBucketBoundaries: CALL_DURATION_BUCKETS_MS },
    }),
    callbacks: counter(METRICS.callbacks),
    sweepActions: counter(METRICS.sweepActions),
  }
}

/**
 * Whether the store registered a tracer provider. The API's global provider
 * is a proxy that hands out no-op tracers until one is set as its delegate;
 * asking it for the delegate's tracer is a property read when there is none,
 * so a store without tracing pays for no span object, context or closure.
 */
export function tracingOn(): boolean {
  const provider = trace.getTracerProvider() as Partial<ProxyTracerProvider>
  return typeof provider.getDelegateTracer === "function"
    ? provider.getDelegateTracer(INSTRUMENTATION_SCOPE) !== undefined
    : true
}

/**
 * Runs `work` in an active span named `name` (children nest under it), ends
 * it, and marks it failed with the error's type when `work` throws.
 * `describe` turns the result into attributes, only for a recording span.
 * Without a tracer provider it only runs `work`.
 */
export function inSpan<T>(
  name: string,
  attributes: () => Attributes,
  work: () => Promise<T>,
  describe: (result: T) => Attributes
): Promise<T> {
  if (!tracingOn()) return work()
  return tracer().trace(name, async (span: Span) => {
    const recording = span.isRecording()
    if (recording) span.setAttributes(attributes())
    try {
      const result = await work()
      if (recording) span.setAttributes(describe(result))
      return result
    } catch (error) {
      if (recording) markFailed(span, errorType(error))
      throw error
    } finally {
      span.end()
    }
  })
}

/** A failed span: status ERROR and `error.type`. No message: it may name a transaction. */
export function markFailed(span: Span, type: string): void {
  span.setAttribute(ATTR.errorType, type)
  span.setStatus({ code: SpanStatusCode.ERROR })
}

/** The CardServiceError category, or the error's class name. */
export function errorType(error: unknown): string {
  if (CardServiceError.is(error)) return error.category
  return error instanceof Error ? error.name : "unknown"
}
