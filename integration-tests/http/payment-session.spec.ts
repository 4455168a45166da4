import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { CARD_SERVICE_PROVIDER_ID, seedStore } from "../helpers/seed-store"
import { storeApi } from "../helpers/store-api"

jest.setTimeout(120_000)

process.env.CARD_SERVICE_CLIENT_CODE = "client"
process.env.CARD_SERVICE_CLIENT_SECRET = "secret"
process.env.CARD_SERVICE_VERIFY_ID = "verify"
process.env.CARD_SERVICE_MERCHANT_ID = "merchant"
process.env.CARD_SERVICE_TEST_URL = "http://127.0.0.1:9"

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    describe("a storefront starting a card-service payment", () => {
      it("gets a payment session from the card-service provider", async () => {
        const store = await seedStore(getContainer())
        const storefront = storeApi(api, store)
        const cart = await storefront.createCart()

        const collection = await storefront.startPaymentSession(cart.id, CARD_SERVICE_PROVIDER_ID)

        expect(collection.payment_sessions).toHaveLength(1)
        const [session] = collection.payment_sessions
        expect(session.provider_id).toBe(CARD_SERVICE_PROVIDER_ID)
        expect(session.status).toBe("pending")
        expect(session.currency_code).toBe("eur")
        expect(Number(session.amount)).toBe(30)
      })

      it("refuses a provider the region does not list", async () => {
        const store = await seedStore(getContainer(), { providers: ["pp_system_default"] })
        const storefront = storeApi(api, store)
        const cart = await storefront.createCart()

        await expect(
          storefront.startPaymentSession(cart.id, CARD_SERVICE_PROVIDER_ID)
        ).rejects.toMatchObject({ response: { status: 400 } })
      })
    })
  },
})
