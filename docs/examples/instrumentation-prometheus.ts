// instrumentation.ts at the root of the Medusa store (next to medusa-config.ts).
// npm install @opentelemetry/exporter-prometheus @opentelemetry/exporter-trace-otlp-http
import { registerOtel } from "@medusajs/medusa"
import { BatchSpanProcessor } from "@medusajs/framework/opentelemetry/sdk-trace-node"
import { PrometheusExporter } from "@opentelemetry/exporter-prometheus"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { cardServiceSafeSpans } from "medusa-payment-card-service/telemetry"

export function register() {
  registerOtel({
    serviceName: "my-store",
    // Spans (Medusa's and the card service's) to an OTLP collector, e.g. Jaeger on :4318,
    // each through the plugin's processor first (see below).
    spanProcessors: [
      cardServiceSafeSpans(
        new BatchSpanProcessor(
          new OTLPTraceExporter({ url: "http://localhost:4318/v1/traces" })
        )
      ),
    ],
    // Metrics scraped by Prometheus from http://<host>:9464/metrics.
    metricReaders: [new PrometheusExporter({ port: 9464 })],
    instrument: { http: true, workflows: true, query: true },
  })
}
