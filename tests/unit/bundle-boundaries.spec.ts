import path from "node:path"
import { importsOf, resolveLocal, sourceFiles, SRC } from "../helpers/import-graph"

/**
 * Two bundles run in browsers and share source with the server: the
 * storefront helper (./storefront, ./storefront/react) and the admin screens.
 * Both read server-side definitions (the form's field rules, the routes'
 * answers); these tests keep server code from following them in.
 */

/** Every file and package that ends up in the JavaScript of the entries. */
function runtimeGraph(entries: string[]) {
  const files = new Set<string>()
  const packages = new Set<string>()
  const visit = (file: string) => {
    if (files.has(file)) return
    files.add(file)
    for (const edge of importsOf(file)) {
      if (edge.typeOnly) continue
      if (edge.specifier.startsWith(".")) {
        visit(resolveLocal(file, edge.specifier))
      } else {
        packages.add(edge.specifier)
      }
    }
  }
  entries.forEach((entry) => visit(path.join(SRC, entry)))
  return {
    files: [...files].map((f) => path.relative(SRC, f)).sort(),
    packages: [...packages].sort(),
  }
}

describe("the storefront entries (bundled into shoppers' browsers)", () => {
  const graph = runtimeGraph([
    "storefront/index.ts",
    "storefront/react/index.ts",
  ])

  it("need no package but card-validator and react: no @medusajs, no zod, no country tables", () => {
    expect(graph.packages).toEqual(["card-validator", "react"])
  })

  it("reach only the storefront and framework-free lib files", () => {
    const outside = graph.files.filter(
      (file) => !file.startsWith("storefront/") && !file.startsWith("lib/")
    )
    expect(outside).toEqual([])
    expect(graph.files).toContain("lib/form-field-rules.ts")
  })
})

describe("the admin screens (bundled into the dashboard)", () => {
  const admin = path.join(SRC, "admin")

  it("import the routes' answer types, and anything else outside src/admin, as types only", () => {
    const valueImportsOut = sourceFiles(admin)
      .flatMap(importsOf)
      .filter(
        (edge) =>
          edge.specifier.startsWith(".") &&
          !edge.typeOnly &&
          !resolveLocal(edge.from, edge.specifier).startsWith(admin + path.sep)
      )
      .map((edge) => `${path.relative(SRC, edge.from)} -> ${edge.specifier}`)
    expect(valueImportsOut).toEqual([])
  })

  it("take no server package at run time", () => {
    const packages = new Set(
      sourceFiles(admin)
        .flatMap(importsOf)
        .filter((edge) => !edge.typeOnly && !edge.specifier.startsWith("."))
        .map((edge) => edge.specifier)
    )
    const server = [...packages].filter(
      (name) =>
        name === "zod" ||
        name === "undici" ||
        name.startsWith("@medusajs/framework") ||
        name === "@medusajs/medusa"
    )
    expect(server).toEqual([])
  })
})

describe("the telemetry entry (./telemetry, loaded by a store's instrumentation.ts before Medusa)", () => {
  const graph = runtimeGraph(["observability/trace-redaction.ts"])

  it("needs no package: it fits whichever OpenTelemetry SDK the store's Medusa carries", () => {
    expect(graph.packages).toEqual([])
  })

  it("reaches only framework-free lib files", () => {
    expect(graph.files.filter((file) => !file.startsWith("lib/"))).toEqual(["observability/trace-redaction.ts"])
  })
})
