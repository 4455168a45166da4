import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

/**
 * Issue 31: settlement had grown into files that imported each other
 * (settle-payment, hint-admission, settled-check). A folder whose files form
 * a circle can only be read, tested and changed as one; this keeps the
 * settlement and the sweep free of them. Type-only imports count too: they
 * tie the files together for a reader as much as any other.
 */
const ROOT = resolve(__dirname, "../../..")
const FOLDERS = ["src/checkout", "src/reconciliation"]

function sourcesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name)
    if (statSync(path).isDirectory()) return sourcesUnder(path)
    return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [path] : []
  })
}

function localImports(file: string, known: Set<string>): string[] {
  const text = readFileSync(file, "utf8")
  const targets: string[] = []
  for (const match of text.matchAll(/(?:import|export)[^"';]*?from\s+"(\.{1,2}\/[^"]+)"/g)) {
    const base = resolve(dirname(file), match[1])
    const hit = [`${base}.ts`, `${base}.tsx`, join(base, "index.ts")].find((candidate) => known.has(candidate))
    if (hit) targets.push(hit)
  }
  return targets
}

/** Every circle of imports among the files, each as the list of files around it. */
export function importCircles(files: string[]): string[][] {
  const known = new Set(files)
  const graph = new Map(files.map((file) => [file, localImports(file, known)]))
  const circles: string[][] = []
  const state = new Map<string, "open" | "done">()
  const path: string[] = []
  const visit = (file: string) => {
    state.set(file, "open")
    path.push(file)
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === "open") circles.push([...path.slice(path.indexOf(next)), next])
      else if (!state.has(next)) visit(next)
    }
    path.pop()
    state.set(file, "done")
  }
  for (const file of files) if (!state.has(file)) visit(file)
  return circles
}

describe("no import circles in settlement and the sweep", () => {
  it.each(FOLDERS)("%s has none", (folder) => {
    const files = sourcesUnder(join(ROOT, folder))
    expect(files.length).toBeGreaterThan(3)
    const circles = importCircles(files).map((circle) => circle.map((file) => relative(ROOT, file)).join(" -> "))
    expect(circles).toEqual([])
  })

  it("finds a circle when there is one", () => {
    // The detector itself, on the three files as they were before issue 31.
    const dir = join(ROOT, "tests/unit/tooling/__fixtures__/circle")
    const circles = importCircles(sourcesUnder(dir))
    expect(circles.length).toBeGreaterThan(0)
  })
})
