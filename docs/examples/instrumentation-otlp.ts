// instrumentation.ts at the root of the Medusa store (next to medusa-config.ts).
// npm install @opentelemetry/exporter-trace-otlp-http @opentelemetry/exporter-metrics-otlp-http
import { registerOtel } from "@medusajs/medusa"
import { metrics } from "@medusajs/framework/opentelemetry/sdk-node"
import { BatchSpanProcessor } from "@medusajs/framework/opentelemetry/sdk-trace-node"
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { cardServiceSafeSpans } from "medusa-payment-card-service/telemetry"

// An OpenTelemetry collector (or Grafana Alloy, Honeycomb, Datadog...) that takes OTLP over HTTP.
const endpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? "http://localhost:4318"

export function register() {
  registerOtel({
    serviceName: "my-store",
    // Every span goes through the plugin's processor before it is exported (see below).
    spanProcessors: [
      cardServiceSafeSpans(
        new BatchSpanProcessor(
          new OTLPTraceExporter({ url: `${endpoint}/v1/traces` })
        )
      ),
    ],
    metricReaders: [
      new metrics.PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter({ url: `${endpoint}/v1/metrics` }),
        exportIntervalMillis: 15_000,
      }),
    ],
    instrument: { http: true, workflows: true, query: true },
  })
}
