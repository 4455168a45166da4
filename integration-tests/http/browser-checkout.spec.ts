import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import path from "node:path"
import { useCardServiceSandbox } from "../helpers/card-service-env"
import { adminHeaders, cartWithSession } from "../helpers/checkout-flow"
import {
  CHALLENGE_CARD,
  fillCard,
  SCREENSHOTS,
  submitThroughChallenge,
  useChromium,
} from "../helpers/hosted-page-browser"

jest.setTimeout(180_000)

const env = useCardServiceSandbox({ storefrontPage: true })

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    const browser = useChromium()

    it("pays on the hosted page with a 3DS challenge and lands on the storefront with the order", async () => {
      const { session } = await cartWithSession(api, getContainer())
      const page = await browser().newPage({ viewport: { width: 390, height: 844 } })
      const posted: string[] = []
      page.on("request", (req) => {
        if (req.method() === "POST") posted.push(`${req.url()} ${req.postData() ?? ""}`)
      })

      await page.goto(session.data.pay_url)
      await expect(page.locator("h1").textContent()).resolves.toBe("Pay €30.00")
      await expect(page.inputValue('input[name="firstName"]')).resolves.toBe("Ada")
      await fillCard(page, `${CHALLENGE_CARD.slice(0, 4)} ${CHALLENGE_CARD.slice(4, 8)} ${CHALLENGE_CARD.slice(8, 12)} ${CHALLENGE_CARD.slice(12)}`)
      // The page script chose the card company from the number.
      await expect(page.inputValue("#card-type")).resolves.toBe("VISA")
      await page.screenshot({ path: path.join(SCREENSHOTS, "checkout-payment-page.png"), fullPage: true })
      await submitThroughChallenge(page, env.storefrontUrl())

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
      const page = await browser().newPage()
      const blocked: string[] = []
      page.on("console", (message) => {
        if (/Content Security Policy/i.test(message.text())) blocked.push(message.text())
      })

      await page.goto(session.data.pay_url)
      await fillCard(page, "4000000000001000")
      await Promise.all([page.waitForURL(`${env.storefrontUrl()}/**`), page.click('button[type="submit"]')])

      expect(await page.textContent("#order-id")).toMatch(/^order_/)
      expect(blocked).toEqual([])
    })

    it("shows a clear page for a session that does not exist", async () => {
      const page = await browser().newPage()
      const response = await page.goto(`${env.backendUrl()}/card-service/pay/payses_unknown`)
      expect(response?.status()).toBe(404)
      await expect(page.textContent("h1")).resolves.toBe("Payment not found")
    })
  },
})
