import axe from "axe-core"
import type { Page } from "playwright-core"

/** The WCAG 2.1 success criteria of levels A and AA (EN 301 549, hence the European Accessibility Act). */
export const WCAG21_AA_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

export type AxeFinding = {
  rule: string
  impact: string | null
  help: string
  targets: string[]
}

/**
 * Runs axe-core in the page on what is there now and returns its WCAG 2.1
 * A/AA violations, one line per rule and element, readable in a failed
 * expectation. The source goes in through the DevTools protocol (evaluate),
 * which a page's Content-Security-Policy does not block. `include` limits
 * the check to the given selectors: what the plugin renders inside a page
 * that is not its own (the admin dashboard); axe refuses a selector that
 * matches nothing.
 */
export async function wcagCheck(
  page: Page,
  include?: string[]
): Promise<{ violations: AxeFinding[]; passedRules: number }> {
  await page.evaluate(axe.source)
  const results = await page.evaluate(
    async ({ tags, include }) => {
      const context = include
        ? { include: include.map((selector) => [selector]) }
        : document
      const run = await (window as unknown as { axe: typeof axe }).axe.run(
        context as never,
        {
          runOnly: { type: "tag", values: tags },
          resultTypes: ["violations"],
        }
      )
      return {
        violations: run.violations.map((violation) => ({
          rule: violation.id,
          impact: violation.impact ?? null,
          help: violation.help,
          targets: violation.nodes.map((node) => String(node.target.join(" "))),
        })),
        // How many rules found something to check and passed: a check of an
        // empty page passes nothing, so a test can tell it looked.
        passedRules: run.passes.length,
      }
    },
    { tags: WCAG21_AA_TAGS, include }
  )
  return results
}
