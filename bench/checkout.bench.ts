/**
 * Checkout latency: the time from the service's callback reaching the
 * plugin to the order existing, next to the time Medusa takes to complete
 * the same kind of cart with its built-in system provider
 * (pp_system_default), which is the floor this path can approach.
 *
 *   npm run bench:checkout            (BENCH_CHECKOUTS=50 by default)
 *
 * Both sides are measured in one run, against one Medusa and one database,
 * alternating so that warm-up and load affect them alike.
 */
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { performance } from "node:perf_hooks"
import { request } from "undici"
import { useCardServiceSandbox } from "../integration-tests/helpers/card-service-env"
import { payLikeABrowser } from "../integration-tests/helpers/browser-step"
import { CARDS, orderOfCart } from "../integration-tests/helpers/checkout-flow"
import { CARD_SERVICE_PROVIDER_ID, seedStore } from "../integration-tests/helpers/seed-store"
import { storeApi } from "../integration-tests/helpers/store-api"

const CHECKOUTS = Number(process.env.BENCH_CHECKOUTS ?? 50)
const WARMUP = 3

jest.setTimeout(30 * 60_000)

const env = useCardServiceSandbox({ callbackKnobs: { drop: true } })

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    it(`completes ${CHECKOUTS} card-service checkouts from the callback, and as many system-provider ones`, async () => {
      const store = await seedStore(getContainer(), {
        providers: [CARD_SERVICE_PROVIDER_ID, "pp_system_default"],
      })
      const storefront = storeApi(api, store)

      const cardService = async (): Promise<number> => {
        const cart = await storefront.createCart()
        const collection = await storefront.startPaymentSession(cart.id, CARD_SERVICE_PROVIDER_ID)
        const session = collection.payment_sessions[0]
        const paid = await payLikeABrowser(api, store.publishableKey, session.id, CARDS.approved, {
          followReturn: false,
        })
        const transactionId = new URL(paid.serviceLocation as string).searchParams.get("transactionId")
        const started = performance.now()
        const response = await request(`${env.backendUrl()}/card-service/callback/${session.id}/`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            decision: "ACCEPT",
            reasonCode: "100",
            transactionId,
            originalTransactionId: "",
          }),
        })
        await response.body.dump()
        const elapsed = performance.now() - started
        if (response.statusCode !== 200 || !(await orderOfCart(getContainer(), cart.id))) {
          throw new Error(`callback did not create an order (HTTP ${response.statusCode})`)
        }
        return elapsed
      }

      const system = async (): Promise<number> => {
        const cart = await storefront.createCart()
        await storefront.startPaymentSession(cart.id, "pp_system_default")
        const started = performance.now()
        const result = await storefront.post(`/store/carts/${cart.id}/complete`)
        const elapsed = performance.now() - started
        if (result.type !== "order") {
          throw new Error("the system provider's cart did not complete")
        }
        return elapsed
      }

      for (let i = 0; i < WARMUP; i++) {
        await cardService()
        await system()
      }
      const card: number[] = []
      const base: number[] = []
      for (let i = 0; i < CHECKOUTS; i++) {
        card.push(await cardService())
        base.push(await system())
      }

      const stats = (values: number[]) => {
        const sorted = [...values].sort((a, b) => a - b)
        const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]
        return { median: at(0.5), p95: at(0.95) }
      }
      const c = stats(card)
      const s = stats(base)
      const ms = (v: number) => `${v.toFixed(1)} ms`.padStart(10)
      process.stdout.write(
        [
          "",
          `checkout latency, ${CHECKOUTS} checkouts each (after ${WARMUP} warm-up), one run:`,
          `                                            median        p95`,
          `  card service: callback -> order      ${ms(c.median)} ${ms(c.p95)}`,
          `  pp_system_default: complete cart      ${ms(s.median)} ${ms(s.p95)}`,
          `  ratio (card service / system)        ${(c.median / s.median).toFixed(2).padStart(9)}x ${(c.p95 / s.p95).toFixed(2).padStart(9)}x`,
          "",
        ].join("\n") + "\n"
      )
      expect(card).toHaveLength(CHECKOUTS)
    })
  },
})
