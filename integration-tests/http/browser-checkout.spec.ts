import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import fs from "node:fs"
import path from "node:path"
import type { Browser } from "playwright-core"
import { useCardServiceSandbox } from "../helpers/card-service-env"
import { adminHeaders, cartWithSession } from "../helpers/checkout-flow"
import { launchChromium } from "../../tests/helpers/chromium"

jest.setTimeout(180_000)

const env = useCardServiceSandbox({ storefrontPage: true })
const SCREENSHOTS = path.join(__dirname, "..", "..", "test-results")
const CHALLENGE_CARD = "4000001000001008"

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    let browser: Browser

    beforeAll(async () => {
      fs.mkdirSync(SCREENSHOTS, { recursive: true })
      browser = await launchChromium()
    })

    afterAll(async () => {
      await browser?.close()
    })

    it("pays on the hosted page with a 3DS challenge and lands on the storefront with the order", async () => {
      const { session } = await cartWithSession(api, getContainer())
      const page = await browser.newPage({ viewport: { width: 390, height: 844 } })
      const posted: string[] = []
      page.on("request", (req) => {
        if (req.method() === "POST") posted.push(`${req.url()} ${req.postData() ?? ""}`)
      })

      await page.goto(session.data.pay_url)
      await expect(page.locator("h1").textContent()).resolves.toBe("Pay €30.00")
      await expect(page.inputValue('input[name="firstName"]')).resolves.toBe("Ada")
      await page.fill("#card-number", `${CHALLENGE_CARD.slice(0, 4)} ${CHALLENGE_CARD.slice(4, 8)} ${CHALLENGE_CARD.slice(8, 12)} ${CHALLENGE_CARD.slice(12)}`)
      // The page script chose the card company from the number.
      await expect(page.inputValue("#card-type")).resolves.toBe("VISA")
      await page.selectOption('select[name="cardExpirationMonth"]', "12")
      await page.selectOption('select[name="cardExpirationYear"]', String(new Date().getUTCFullYear() + 3))
      await page.screenshot({ path: path.join(SCREENSHOTS, "checkout-payment-page.png"), fullPage: true })
      await Promise.all([page.waitForURL(/\/challenge|3ds|authenticat/i), page.click('button[type="submit"]')])

      await Promise.all([page.waitForURL(`${env.storefrontUrl()}/**`), page.click("#pass")])

      const orderId = await page.textContent("#order-id")
      expect(orderId).toMatch(/^order_/)
      await page.screenshot({ path: path.join(SCREENSHOTS, "checkout-storefront-return.png") })
      // The card number went to the service only, never to Medusa.
      const toMedusa = posted.filter((p) => p.startsWith(env.backendUrl()))
      expect(toMedusa.some((p) => p.includes(CHALLENGE_CARD))).toBe(false)
      expect(posted.some((p) => p.startsWith(env.sandbox().url) && p.includes(CHALLENGE_CARD))).toBe(true)

      const admin = await adminHeaders(getContainer())
      const { data } = await api.get(
        `/admin/orders/${orderId}?fields=payment_status,*payment_collections.payments`,
        { headers: admin }
      )
      expect(data.order.payment_status).toBe("authorized")
      const payment = data.order.payment_collections[0].payments[0]
      expect(payment.data.state).toBe("authorized")
      expect(env.sandbox().transaction(payment.data.transaction_id)).toMatchObject({
        status: "successful",
        cardSuffix: "1008",
      })
    })

    it("pays with a card that needs no challenge: the redirects back pass the page's CSP", async () => {
      const { session } = await cartWithSession(api, getContainer())
      const page = await browser.newPage()
      const blocked: string[] = []
      page.on("console", (message) => {
        if (/Content Security Policy/i.test(message.text())) blocked.push(message.text())
      })

      await page.goto(session.data.pay_url)
      await page.fill("#card-number", "4000000000001000")
      await page.selectOption('select[name="cardExpirationMonth"]', "12")
      await page.selectOption('select[name="cardExpirationYear"]', String(new Date().getUTCFullYear() + 3))
      await Promise.all([page.waitForURL(`${env.storefrontUrl()}/**`), page.click('button[type="submit"]')])

      expect(await page.textContent("#order-id")).toMatch(/^order_/)
      expect(blocked).toEqual([])
    })

    it("shows a clear page for a session that does not exist", async () => {
      const page = await browser.newPage()
      const response = await page.goto(`${env.backendUrl()}/card-service/pay/payses_unknown`)
      expect(response?.status()).toBe(404)
      await expect(page.textContent("h1")).resolves.toBe("Payment not found")
    })
  },
})
