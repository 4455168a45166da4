import fs from "node:fs"
import path from "node:path"
import { REVIEW_EVENTS } from "../../../src/checkout/review-verdict"

/**
 * Docs are code: a file an owner copies from docs/ is shown from a file CI
 * type-checks (docs/examples/, in tsconfig's include), between
 * `<!-- example:<file> -->` and `<!-- example:end -->`, and must be the same.
 */
const ROOT = path.resolve(__dirname, "../../..")
const DOCS = fs.readdirSync(path.join(ROOT, "docs")).filter((name) => name.endsWith(".md"))

const shown = DOCS.flatMap((doc) => {
  const text = fs.readFileSync(path.join(ROOT, "docs", doc), "utf8")
  return [...text.matchAll(/<!-- example:(\S+) -->\n```\w*\n([\s\S]*?)```\n<!-- example:end -->/g)].map(
    (match) => [doc, match[1], match[2]] as const
  )
})

describe("examples shown in docs/", () => {
  it("there are some", () => {
    expect(shown.length).toBeGreaterThan(0)
  })

  it.each(shown)("%s shows %s as it is", (_, file, text) => {
    expect(text).toBe(fs.readFileSync(path.join(ROOT, file), "utf8"))
  })

  it("the review subscriber listens to the events the plugin emits", () => {
    const example = fs.readFileSync(path.join(ROOT, "docs/examples/review-verdict-subscriber.ts"), "utf8")
    for (const name of [REVIEW_EVENTS.approved, REVIEW_EVENTS.rejected, REVIEW_EVENTS.expired]) {
      expect(example).toContain(`"${name}"`)
    }
  })
})
