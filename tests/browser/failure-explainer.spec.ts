import fs from "node:fs"
import http from "node:http"
import type { AddressInfo } from "node:net"
import type { Browser } from "playwright-core"
import { watchPages } from "../helpers/admin-demo"
import { launchChromium } from "../helpers/chromium"

jest.setTimeout(60_000)

/**
 * The admin browser tests' failures must explain themselves from CI's output
 * alone (watchPages): a page that never shows what a test waits for is
 * reported with its text, its failed requests, the browser's errors and the
 * store's log.
 */
describe("watchPages (a failed browser test says what the page showed)", () => {
  let browser: Browser
  let server: http.Server
  let base: string

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === "/") {
        res.setHeader("Content-Type", "text/html")
        res.end(
          `<p>Loading the dashboard</p><script src="/missing-chunk.js"></script>` +
            `<script>console.error("Failed to fetch dynamically imported module")</script>`
        )
        return
      }
      res.statusCode = 504
      res.end("Outdated Optimize Dep")
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    browser = await launchChromium()
  })

  afterAll(async () => {
    await browser?.close()
    await new Promise((resolve) => server.close(resolve))
  })

  it("adds the page's text, its failed requests, the browser's errors, a screenshot and the store's last lines", async () => {
    const explain = watchPages(browser)
    const page = await browser.newPage()
    await page.goto(base)
    const waited = await page
      .getByTestId("card-service-order-widget")
      .waitFor({ timeout: 500 })
      .then(() => null, (error: unknown) => error)
    expect(waited).toBeInstanceOf(Error)

    const explained = await explain(waited, { tail: () => "its Medusa logged:\nthe store's own line" })

    const text = explained.message
    expect(text).toContain("waiting for getByTestId('card-service-order-widget')")
    expect(text).toContain(`page ${base}/`)
    expect(text).toContain("shows: Loading the dashboard")
    expect(text).toMatch(new RegExp(`504 GET ${base}/missing-chunk\\.js`))
    expect(text).toContain("console error: Failed to fetch dynamically imported module")
    expect(text).toContain("the store's own line")
    const shot = /screenshot (\S+\.png)/.exec(text)?.[1]
    expect(shot && fs.existsSync(shot)).toBe(true)
    await page.close()
  })

  it("watches pages of contexts made after it, and says so when nothing failed", async () => {
    const explain = watchPages(browser)
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(`${base}/`)
    await page.close()
    const quiet = await context.newPage()
    await quiet.setContent("<p>All well</p>")
    const explained = await explain(new Error("expected 3 rows"), undefined)
    expect(explained.message).toContain("expected 3 rows")
    expect(explained.message).toContain("shows: All well")
    expect(explained.message).toContain("no failed request, no browser error")
    await context.close()
  })
})
