import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks"
import {
  context,
  metrics,
  trace,
  type Attributes,
} from "@medusajs/framework/opentelemetry/api"
import {
  DataPointType,
  MeterProvider,
  MetricReader,
  type MetricData,
} from "@opentelemetry/sdk-metrics"
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base"

/** A metric reader that exports nowhere: the test collects on demand. */
class CollectingReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

export type MetricPoint = { name: string; attributes: Attributes; value: number; count?: number }

/**
 * What a store's instrumentation.ts registers, kept in memory: a tracer
 * provider with an in-memory span exporter and a meter provider with a
 * reader the test collects from, and the async-hooks context manager so
 * spans nest across awaits as they do under the Node SDK. `stop()`
 * unregisters all three (the API then hands out no-op spans and meters).
 */
export function captureTelemetry() {
  const exporter = new InMemorySpanExporter()
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  })
  const reader = new CollectingReader()
  const meterProvider = new MeterProvider({ readers: [reader] })
  const contextManager = new AsyncLocalStorageContextManager().enable()

  const start = () => {
    context.setGlobalContextManager(contextManager)
    trace.setGlobalTracerProvider(tracerProvider)
    metrics.setGlobalMeterProvider(meterProvider)
  }
  const stop = () => {
    trace.disable()
    metrics.disable()
    context.disable()
  }
  start()

  return {
    start,
    stop,
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
    resetSpans: () => exporter.reset(),
    /** Every data point of every metric the plugin's meter recorded, cumulative. */
    points: async (): Promise<MetricPoint[]> => {
      const { resourceMetrics } = await reader.collect()
      const out: MetricPoint[] = []
      for (const scope of resourceMetrics.scopeMetrics) {
        for (const metric of scope.metrics as MetricData[]) {
          for (const point of metric.dataPoints as any[]) {
            const histogram = metric.dataPointType === DataPointType.HISTOGRAM
            out.push({
              name: metric.descriptor.name,
              attributes: point.attributes,
              value: histogram ? point.value.sum : point.value,
              ...(histogram ? { count: point.value.count } : {}),
            })
          }
        }
      }
      return out
    },
  }
}
