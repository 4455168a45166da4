import fs from "node:fs"
import path from "node:path"
import { METRICS, SPANS } from "../../../src/observability/telemetry-names"

/**
 * docs/observability.md is code (a snippet an owner pastes comes from a
 * file CI checks): its two instrumentation.ts examples are
 * docs/examples/*.ts, which `npm run typecheck` compiles against Medusa's
 * registerOtel and the OpenTelemetry exporters; and it names every span,
 * metric and attribute the plugin emits (telemetry-names.ts).
 */
const ROOT = path.resolve(__dirname, "..", "..", "..")
const DOC = fs.readFileSync(path.join(ROOT, "docs", "observability.md"), "utf8")

describe("docs/observability.md", () => {
  it.each(["prometheus", "otlp"])("shows docs/examples/instrumentation-%s.ts exactly", (name) => {
    const block = DOC.match(
      new RegExp(`<!-- example:${name}:start -->\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\`\\n<!-- example:${name}:end -->`)
    )
    const file = fs.readFileSync(path.join(ROOT, "docs", "examples", `instrumentation-${name}.ts`), "utf8")
    expect(block?.[1]).toBe(file)
  })

  const names = [
    ...Object.values(SPANS).map((span) => span.name),
    ...Object.values(METRICS).map((metric) => metric.name),
  ]
  it.each(names)("names %s", (name) => {
    expect(DOC).toContain(`\`${name}\``)
  })

  const attributes = [
    ...new Set([
      ...Object.values(SPANS).flatMap((span) => span.attributes),
      ...Object.values(METRICS).flatMap((metric) => metric.attributes),
    ]),
  ]
  it.each(attributes)("describes the attribute %s", (attribute) => {
    expect(DOC).toContain(`\`${attribute}\``)
  })

  it("gives each metric's unit", () => {
    for (const metric of Object.values(METRICS)) {
      expect(DOC).toMatch(new RegExp(`\\| \`${metric.name.replace(/\./g, "\\.")}\` \\| ${metric.kind}, \`${metric.unit}\``))
    }
  })
})
