import fs from "node:fs"
import path from "node:path"
import ts from "typescript"

/**
 * The project's import graph as the specs that guard its boundaries read it
 * (tests/unit/bundle-boundaries.spec.ts, tests/unit/layering.spec.ts).
 */

export const SRC = path.resolve(__dirname, "../../src")

export type ImportEdge = {
  from: string
  specifier: string
  /** Erased by every compiler: `import type`, `export type`, or only `type` names. */
  typeOnly: boolean
}

export function importsOf(file: string): ImportEdge[] {
  const source = ts.createSourceFile(
    file,
    fs.readFileSync(file, "utf8"),
    ts.ScriptTarget.Latest,
    false,
    file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS
  )
  const edges: ImportEdge[] = []
  for (const statement of source.statements) {
    if (
      ts.isImportDeclaration(statement) &&
      ts.isStringLiteral(statement.moduleSpecifier)
    ) {
      const clause = statement.importClause
      const named = clause?.namedBindings
      const typeOnly =
        !!clause &&
        (clause.isTypeOnly ||
          (!clause.name &&
            !!named &&
            ts.isNamedImports(named) &&
            named.elements.length > 0 &&
            named.elements.every((e) => e.isTypeOnly)))
      edges.push({
        from: file,
        specifier: statement.moduleSpecifier.text,
        typeOnly,
      })
    } else if (
      ts.isExportDeclaration(statement) &&
      statement.moduleSpecifier &&
      ts.isStringLiteral(statement.moduleSpecifier)
    ) {
      edges.push({
        from: file,
        specifier: statement.moduleSpecifier.text,
        typeOnly: statement.isTypeOnly,
      })
    }
  }
  return edges
}

export function resolveLocal(from: string, specifier: string): string {
  const base = path.resolve(path.dirname(from), specifier)
  const candidates = [".ts", ".tsx", "/index.ts", "/index.tsx"].map(
    (ending) => base + ending
  )
  const found = candidates.find((candidate) => fs.existsSync(candidate))
  if (!found) throw new Error(`${specifier} from ${from} does not resolve`)
  return found
}

export function sourceFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory()
        ? sourceFiles(path.join(dir, entry.name))
        : /\.tsx?$/.test(entry.name)
          ? [path.join(dir, entry.name)]
          : []
    )
}
