import fs from "node:fs"
import path from "node:path"

/**
 * The starter recipe is data (scripts/lib/starter-recipe.js). This keeps its
 * three uses equal: docs/storefront.md shows exactly what the recipe
 * generates, storefront-example/ (which CI type-checks, builds and drives in
 * Chromium) has every line of it, and an owner writes at most 40 lines for
 * the card form and 15 for the hosted page (#29).
 */
type Edit = {
  id: string
  file: string
  create?: true
  before?: string
  after?: string
  replace?: string
  text: string
}
type Recipe = {
  VARIANTS: Record<"form" | "hosted", Edit[]>
  markdown: (variant: string) => string
  lineCounts: (variant: string) => { total: number }
  applyEdit: (source: string | null, edit: Edit) => string
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const recipe = require("../../../scripts/lib/starter-recipe") as Recipe

const ROOT = path.resolve(__dirname, "..", "..", "..")
const DOC = fs.readFileSync(path.join(ROOT, "docs", "storefront.md"), "utf8")
const EXAMPLE = path.join(ROOT, "storefront-example")

describe("the starter recipe", () => {
  it.each(["form", "hosted"])(
    "docs/storefront.md shows the %s variant exactly as the recipe has it (regenerate: node scripts/lib/starter-recipe.js --markdown <variant>)",
    (variant) => {
      const between = DOC.match(
        new RegExp(
          `<!-- recipe:${variant}:start -->\\n([\\s\\S]*?)<!-- recipe:${variant}:end -->`
        )
      )
      expect(between?.[1]).toBe(recipe.markdown(variant))
    }
  )

  it.each([
    ["form", 40],
    ["hosted", 15],
  ] as const)(
    "the %s variant asks at most %d lines of the owner",
    (variant, most) => {
      expect(recipe.lineCounts(variant).total).toBeLessThanOrEqual(most)
    }
  )

  it("every count of the owner's lines in docs/storefront.md and README is the recipe's (#44: the docs said 21 and 23 for the same edits)", () => {
    const README = fs.readFileSync(path.join(ROOT, "README.md"), "utf8")
    const form = recipe.lineCounts("form") as { total: number; perFile: Record<string, number> }
    const hosted = recipe.lineCounts("hosted") as { total: number; perFile: Record<string, number> }
    const files = Object.keys(form.perFile)
    const button = files.find((file) => file.includes("payment-button"))!
    const [constants, payment, order] = ["constants.tsx", "payment/index.tsx", "order-completed-template.tsx"].map(
      (name) => form.perFile[files.find((file) => file.endsWith(name))!]
    )
    expect(DOC).toContain(`**What a store owner writes: ${form.total} lines** with the card form, **${hosted.total}** with the hosted page`)
    expect(DOC).toContain(
      `${constants} in \`constants.tsx\`, ${payment} in the payment step, ${form.perFile[button]} (or ${hosted.perFile[button]}) in the review\nstep's \`PaymentButton\`, ${order} in the order page's template`
    )
    expect(DOC).toContain(`(here ${hosted.perFile[button]} lines there, not ${form.perFile[button]})`)
    expect(README).toContain(`${form.total} lines in ${files.length} files of the starter's \`apps/storefront\` (${hosted.total} with the hosted page)`)
    // No other count of the whole: a "(21 of them)" is what drifted.
    const totals = [...`${DOC}\n${README}`.matchAll(/\((\d+) of them\)|every line \((\d+)/g)]
    expect(totals).toEqual([])
  })

  const edits = [...recipe.VARIANTS.form, ...recipe.VARIANTS.hosted].filter(
    (edit, i, all) => all.findIndex((e) => e.id === edit.id) === i
  )

  it.each(edits.map((edit) => [edit.id, edit] as const))(
    "storefront-example has every line of %s, where CI builds it",
    (_, edit) => {
      const actual = fs.readFileSync(path.join(EXAMPLE, edit.file), "utf8")
      if (edit.create) {
        expect(actual).toBe(edit.text)
        return
      }
      const lines = new Set(actual.split("\n").map((line) => line.trim()))
      const missing = edit.text
        .split("\n")
        .map((line) => line.trim())
        .filter((line) => line && !lines.has(line))
      expect(missing).toEqual([])
    }
  )

  describe("applyEdit", () => {
    const edit = (over: Partial<Edit>): Edit => ({
      id: "e",
      file: "f.tsx",
      text: "NEW\n",
      ...over,
    })

    it("inserts before, after, or in place of its anchor line", () => {
      expect(recipe.applyEdit("a\nb\nc\n", edit({ before: "b\n" }))).toBe(
        "a\nNEW\nb\nc\n"
      )
      expect(recipe.applyEdit("a\nb\nc\n", edit({ after: "b\n" }))).toBe(
        "a\nb\nNEW\nc\n"
      )
      expect(recipe.applyEdit("a\nb\nc\n", edit({ replace: "b\n" }))).toBe(
        "a\nNEW\nc\n"
      )
      expect(recipe.applyEdit(null, edit({ create: true }))).toBe("NEW\n")
    })

    it("refuses an anchor that is missing or not unique, naming the edit", () => {
      expect(() => recipe.applyEdit("a\n", edit({ before: "b\n" }))).toThrow(
        /"e".*not there/
      )
      expect(() => recipe.applyEdit("b\nb\n", edit({ before: "b\n" }))).toThrow(
        /more than once/
      )
      expect(() => recipe.applyEdit("x", edit({ create: true }))).toThrow(
        /exists already/
      )
    })
  })
})
