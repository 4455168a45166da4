import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { useCardServiceSandbox } from "../helpers/card-service-env"
import { payLikeABrowser } from "../helpers/browser-step"
import { CARD_SERVICE_PROVIDER_ID, seedStore } from "../helpers/seed-store"
import { storeApi } from "../helpers/store-api"

jest.setTimeout(120_000)

const APPROVED = { number: "4000000000001000", cardType: "VISA" }

const env = useCardServiceSandbox()

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    describe("checkout with the card service", () => {
      it("turns an approved card payment into an order with an authorized payment", async () => {
        const store = await seedStore(getContainer())
        const storefront = storeApi(api, store)
        const cart = await storefront.createCart()
        const collection = await storefront.startPaymentSession(cart.id, CARD_SERVICE_PROVIDER_ID)
        const session = collection.payment_sessions[0]

        const result = await payLikeABrowser(api, store.publishableKey, session.id, APPROVED)

        expect(result.storefrontLocation?.searchParams.get("status")).toBe("paid")
        const orderId = result.storefrontLocation?.searchParams.get("order_id")
        expect(orderId).toMatch(/^order_/)

        const query = getContainer().resolve("query")
        const { data: orders } = await query.graph({
          entity: "order",
          fields: ["id", "total", "payment_collections.payments.*", "payment_collections.status"],
          filters: { id: orderId },
        })
        const payment = orders[0].payment_collections[0].payments[0]
        expect(payment.provider_id).toBe(CARD_SERVICE_PROVIDER_ID)
        expect(payment.data.state).toBe("authorized")

        const record = env.sandbox().transaction(payment.data.transaction_id)
        expect(record).toMatchObject({ step: "AUTHORIZATION", status: "successful", amount: 30 })
      })
    })
  },
})
