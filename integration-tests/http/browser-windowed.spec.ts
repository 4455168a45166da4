import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import type { Browser } from "playwright-core"
import { useCardServiceSandbox } from "../helpers/card-service-env"
import { cartWithSession } from "../helpers/checkout-flow"
import { launchChromium } from "../../tests/helpers/chromium"

jest.setTimeout(180_000)

// windowed: true sends isWindowed Y (section 2.2): the 3DS step runs in a new
// window that closes afterwards, and the shopper's page moves on by itself.
const env = useCardServiceSandbox({ storefrontPage: true, windowed: true })

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    let browser: Browser

    beforeAll(async () => {
      browser = await launchChromium()
    })

    afterAll(async () => {
      await browser?.close()
    })

    it("authenticates in a popup that closes, and the shopper lands on the storefront with the order", async () => {
      const { session } = await cartWithSession(api, getContainer())
      const context = await browser.newContext()
      const page = await context.newPage()

      await page.goto(session.data.pay_url)
      expect(await page.inputValue('input[name="isWindowed"]')).toBe("Y")
      await page.fill("#card-number", "4000001000001008")
      await page.selectOption('select[name="cardExpirationMonth"]', "12")
      await page.selectOption('select[name="cardExpirationYear"]', String(new Date().getUTCFullYear() + 3))
      const [popup] = await Promise.all([
        context.waitForEvent("page"),
        page.click('button[type="submit"]'),
      ])
      await popup.waitForSelector("#pass")
      const closed = popup.waitForEvent("close")
      await popup.click("#pass")
      await closed
      await page.waitForURL(`${env.storefrontUrl()}/**`)

      const orderId = await page.textContent("#order-id")
      expect(orderId).toMatch(/^order_/)
      await context.close()
    })
  },
})
