import path from "node:path"
import { importsOf, resolveLocal, sourceFiles, SRC } from "../helpers/import-graph"

/**
 * The rooms of the server code, lowest first: the session's notes
 * (src/payment-notes: hints, reconcile notes, attempts) are read and written
 * by both the checkout and the reconciliation sweep, so they sit below both;
 * the routes (src/api) sit above everything and nothing below reaches up
 * into them, not even for a type (issue 39: following a callback's session
 * id to its order went back and forth between rooms).
 */

/** Every import, value or type, from the files of `room` into the files of `into`. */
function importsInto(room: string, into: string): string[] {
  const target = path.join(SRC, into) + path.sep
  return sourceFiles(path.join(SRC, room))
    .flatMap(importsOf)
    .filter((edge) => edge.specifier.startsWith(".") && resolveLocal(edge.from, edge.specifier).startsWith(target))
    .map((edge) => `${path.relative(SRC, edge.from)} -> ${edge.specifier}`)
}

describe("the server's rooms", () => {
  it.each(["checkout", "reconciliation", "payment-notes"])("src/%s imports nothing from src/api", (room) => {
    expect(importsInto(room, "api")).toEqual([])
  })

  it.each(["checkout", "reconciliation"])("src/payment-notes imports nothing from src/%s (it is below both)", (room) => {
    expect(importsInto("payment-notes", room)).toEqual([])
  })

  it("sees an import when there is one (the check can fail)", () => {
    expect(importsInto("reconciliation", "payment-notes").length).toBeGreaterThan(0)
  })
})
