import fs from "node:fs"
import path from "node:path"

/**
 * docs/storefront.md gives the Next.js starter's lines file by file, and
 * says they are the lines of storefront-example/, which the browser test
 * drives. This keeps the two equal: a new file in the docs must be the
 * example's file, and every line of an edit must be in the example's file.
 */
const ROOT = path.resolve(__dirname, "..", "..", "..")
const DOC = fs.readFileSync(path.join(ROOT, "docs", "storefront.md"), "utf8")
const EXAMPLE = path.join(ROOT, "storefront-example")

type Block = { head: string; lines: string[] }

function codeBlocks(markdown: string): Block[] {
  return [...markdown.matchAll(/```tsx?\n([\s\S]*?)```/g)].map((match) => {
    const [head, ...lines] = match[1].replace(/\n$/, "").split("\n")
    return { head, lines }
  })
}

const blocks = codeBlocks(DOC)
const newFiles = blocks.filter((b) => /^\/\/ src\/\S+$/.test(b.head))
const edits = blocks.filter((b) => /^\/\/ in src\//.test(b.head))

describe("docs/storefront.md, the starter recipe", () => {
  it("has the new files and the edits", () => {
    expect(newFiles.map((b) => b.head)).toEqual([
      "// src/modules/checkout/components/card-service-form/index.tsx",
      "// src/app/[countryCode]/(checkout)/checkout/card-service/route.ts",
      "// src/app/[countryCode]/(checkout)/checkout/card-service/pending/page.tsx",
      "// src/modules/checkout/components/card-service-pending/index.tsx",
    ])
    expect(edits.length).toBeGreaterThanOrEqual(5)
  })

  it.each(newFiles.map((b) => [b.head.slice(3), b] as const))(
    "%s is storefront-example's file, line for line",
    (file, block) => {
      const actual = fs.readFileSync(path.join(EXAMPLE, file), "utf8")
      expect(block.lines.join("\n")).toBe(actual.replace(/\n$/, ""))
    }
  )

  // The hosted-page variant replaces the card form, which the example keeps;
  // the example reaches the hosted page through the form's link instead.
  const checkedEdits = edits.filter((b) => !b.head.includes("hosted page"))

  it.each(checkedEdits.map((b) => [b.head, b] as const))(
    "%s: every line is in storefront-example's file",
    (head, block) => {
      const file = head.match(/^\/\/ in (src\/[^\s,]+)/)![1]
      const actual = new Set(
        fs
          .readFileSync(path.join(EXAMPLE, file), "utf8")
          .split("\n")
          .map((line) => line.trim())
      )
      const missing = block.lines
        .map((line) => line.trim())
        // Comments place the lines; a line with a trailing comment, or one
        // reading the starter's build-time variables, is for the starter only.
        .filter(
          (line) => line && !line.startsWith("//") && !line.includes(" // ")
        )
        .filter((line) => !line.includes("process.env.NEXT_PUBLIC_"))
        .filter((line) => !actual.has(line))
      expect(missing).toEqual([])
    }
  )
})
