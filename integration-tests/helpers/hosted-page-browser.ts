import fs from "node:fs"
import path from "node:path"
import type { Browser, Page } from "playwright-core"
import { launchChromium } from "../../tests/helpers/chromium"

/** Where the browser specs keep their screenshots. */
export const SCREENSHOTS = path.join(__dirname, "..", "..", "test-results")

/** The sandbox's VISA that asks for a 3DS challenge (its page has a #pass button). */
export const CHALLENGE_CARD = "4000001000001008"

/**
 * Debian's chromium for the tests of a describe block (or a testSuite),
 * launched once before them and closed after; the screenshots folder is made.
 */
export function useChromium(): () => Browser {
  let browser: Browser | undefined
  beforeAll(async () => {
    fs.mkdirSync(SCREENSHOTS, { recursive: true })
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
  })
  return () => {
    if (!browser) throw new Error("chromium is not launched yet (beforeAll)")
    return browser
  }
}

/** The shopper fills the hosted page's card: the number as typed, and an expiry three years ahead. */
export async function fillCard(page: Page, typed: string) {
  await page.fill("#card-number", typed)
  await page.selectOption('select[name="cardExpirationMonth"]', "12")
  await page.selectOption('select[name="cardExpirationYear"]', String(new Date().getUTCFullYear() + 3))
}

/** Submits the page, passes the sandbox's 3DS challenge and waits for the storefront's return page. */
export async function submitThroughChallenge(page: Page, storefrontUrl: string) {
  await Promise.all([page.waitForURL(/\/challenge|3ds|authenticat/i), page.click('button[type="submit"]')])
  await Promise.all([page.waitForURL(`${storefrontUrl}/**`), page.click("#pass")])
}
