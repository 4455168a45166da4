/**
 * The instrumentation.ts of the store that integration-tests/http/
 * trace-redaction.spec.ts starts: docs/examples/instrumentation-otlp.ts
 * (HTTP, workflows and query instrumentation on, every span through the
 * plugin's processor) with the spans written to files the test reads
 * instead of sent to a collector, and a second path without the processor,
 * which is what a store that leaves it out exports. Both paths take the
 * same spans in the same run, so the test can show its scan finds what the
 * processor removes.
 *
 * SimpleSpanProcessor, not the example's BatchSpanProcessor: it exports each
 * span when it ends, so the files are complete while Medusa runs (Medusa
 * does not shut the SDK down when it stops, and a batch not yet sent would
 * be lost).
 */
import fs from "node:fs"
import { registerOtel } from "@medusajs/medusa"
import {
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from "@medusajs/framework/opentelemetry/sdk-trace-node"
import { cardServiceSafeSpans } from "../../src/observability/trace-redaction"

/** One span as the test reads it: everything in it that can hold text. */
export type SpanLine = {
  name: string
  scope: string
  attributes: Record<string, unknown>
  events: { name: string; attributes?: Record<string, unknown> }[]
  links: { attributes?: Record<string, unknown> }[]
  status: { code: number; message?: string }
  resource: Record<string, unknown>
}

/** Appends each span as one JSON line, synchronously: the file is whole when the span has ended. */
class JsonLinesExporter implements SpanExporter {
  constructor(private readonly file: string) {}

  export(spans: ReadableSpan[], done: (result: { code: number }) => void) {
    const lines = spans.map((span) => {
      const line: SpanLine = {
        name: span.name,
        scope: span.instrumentationScope.name,
        attributes: span.attributes,
        events: span.events.map((event) => ({
          name: event.name,
          attributes: event.attributes,
        })),
        links: span.links.map((link) => ({ attributes: link.attributes })),
        status: span.status,
        resource: span.resource.attributes,
      }
      return `${JSON.stringify(line)}\n`
    })
    fs.appendFileSync(this.file, lines.join(""))
    // ExportResultCode.SUCCESS
    done({ code: 0 })
  }

  async shutdown() {}
}

export function register() {
  const file = (name: string) => {
    const value = process.env[name]
    if (!value)
      throw new Error(
        `${name} is not set: the test that starts this store sets it`
      )
    return value
  }
  registerOtel({
    serviceName: "my-store",
    spanProcessors: [
      cardServiceSafeSpans(
        new SimpleSpanProcessor(new JsonLinesExporter(file("TRACES_SAFE_FILE")))
      ),
      new SimpleSpanProcessor(new JsonLinesExporter(file("TRACES_RAW_FILE"))),
    ],
    instrument: { http: true, workflows: true, query: true },
  })
}
