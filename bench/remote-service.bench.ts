/**
 * A card service across the internet (issue 43): the sandbox answers every
 * request one round trip late (`latency`, with 10% jitter), and a checkout
 * is measured at each latency against Medusa completing a cart with its
 * system provider, alternating checkout by checkout in one run.
 *
 *   npm run bench:remote    (BENCH_LATENCIES=0,50,100,200 ms, BENCH_CHECKOUTS=15 per side and latency)
 *
 * Per card checkout:
 * - the form's wait: GET /store/card-service/sessions/:id/form, what a
 *   storefront (or the hosted page) waits for before it can show the card
 *   fields, with the form code it carries;
 * - the service calls from the form's fetch to the order, by endpoint
 *   (the browser's own POST /order/start among them): all that were made,
 *   waited on or not;
 * - callback to order: the callback's arrival to its answer with the order
 *   made, beside pp_system_default's cart completion. The goal: at most the
 *   system's time plus one round trip, plus 10%.
 */
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { performance } from "node:perf_hooks"
import { request } from "undici"
import { useCardServiceSandbox } from "../integration-tests/helpers/card-service-env"
import { postPaymentForm } from "../integration-tests/helpers/browser-step"
import { CARDS, orderOfCart } from "../integration-tests/helpers/checkout-flow"
import { CARD_SERVICE_PROVIDER_ID, seedStore } from "../integration-tests/helpers/seed-store"
import { storeApi } from "../integration-tests/helpers/store-api"

const LATENCIES = (process.env.BENCH_LATENCIES ?? "0,50,100,200").split(",").map(Number)
const CHECKOUTS = Number(process.env.BENCH_CHECKOUTS ?? 15)
const WARMUP = 2

jest.setTimeout(60 * 60_000)

const env = useCardServiceSandbox({ callbackKnobs: { drop: true } })

type CardSample = { formMs: number; callbackMs: number; calls: Record<string, number> }

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    it(`times ${CHECKOUTS} checkouts per side at each service latency (${LATENCIES.join(", ")} ms)`, async () => {
      const store = await seedStore(getContainer(), { providers: [CARD_SERVICE_PROVIDER_ID, "pp_system_default"] })
      const storefront = storeApi(api, store)
      const sandbox = env.sandbox()

      const card = async (): Promise<CardSample> => {
        const cart = await storefront.createCart()
        const collection = await storefront.startPaymentSession(cart.id, CARD_SERVICE_PROVIDER_ID)
        const session = collection.payment_sessions[0]
        const before = { ...sandbox.requestCounts() }
        let started = performance.now()
        const { data } = await api.get(`/store/card-service/sessions/${session.id}/form`, {
          headers: { "x-publishable-api-key": store.publishableKey },
        })
        const formMs = performance.now() - started
        const { serviceLocation } = await postPaymentForm(data.form, CARDS.approved)
        const transactionId = new URL(serviceLocation as string).searchParams.get("transactionId")
        started = performance.now()
        const response = await request(`${env.backendUrl()}/card-service/callback/${session.id}/`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ decision: "ACCEPT", reasonCode: "100", transactionId, originalTransactionId: "" }),
        })
        await response.body.dump()
        const callbackMs = performance.now() - started
        if (response.statusCode !== 200 || !(await orderOfCart(getContainer(), cart.id))) {
          throw new Error(`callback did not create an order (HTTP ${response.statusCode})`)
        }
        const after = sandbox.requestCounts()
        const calls: Record<string, number> = {}
        for (const [endpoint, count] of Object.entries(after)) {
          const made = count - (before[endpoint] ?? 0)
          if (made > 0) calls[endpoint] = made
        }
        return { formMs, callbackMs, calls }
      }

      const system = async (): Promise<number> => {
        const cart = await storefront.createCart()
        await storefront.startPaymentSession(cart.id, "pp_system_default")
        const started = performance.now()
        const result = await storefront.post(`/store/carts/${cart.id}/complete`)
        const ms = performance.now() - started
        if (result.type !== "order") throw new Error("the system provider's cart did not complete")
        return ms
      }

      const lines: string[] = ["", `a card service across the internet: ${CHECKOUTS} checkouts per side at each latency, alternating, one run`]
      for (const latency of LATENCIES) {
        sandbox.setLatency({ ms: latency, jitterMs: Math.round(latency / 10) })
        for (let i = 0; i < WARMUP; i++) {
          await card()
          await system()
        }
        const cards: CardSample[] = []
        const systems: number[] = []
        for (let i = 0; i < CHECKOUTS; i++) {
          // Rotated each round, so neither side always goes first.
          if (i % 2 === 0) {
            cards.push(await card())
            systems.push(await system())
          } else {
            systems.push(await system())
            cards.push(await card())
          }
        }
        const callback = cards.map((c) => c.callbackMs)
        const goal = cards.map((c, i) => c.callbackMs / (systems[i] + latency))
        const endpoints = [...new Set(cards.flatMap((c) => Object.keys(c.calls)))].sort()
        const perCheckout = endpoints
          .map((e) => `${e} ${(cards.reduce((sum, c) => sum + (c.calls[e] ?? 0), 0) / cards.length).toFixed(2)}`)
          .join(", ")
        lines.push(
          "",
          `service latency ${latency} ms (jitter ${Math.round(latency / 10)} ms):`,
          `  form's wait (GET .../form), median / p95:          ${ms(median(cards.map((c) => c.formMs)))} / ${ms(quantile(cards.map((c) => c.formMs), 0.95))}`,
          `  callback to order, median / p95:                   ${ms(median(callback))} / ${ms(quantile(callback, 0.95))}`,
          `  pp_system_default cart completion, median / p95:   ${ms(median(systems))} / ${ms(quantile(systems, 0.95))}`,
          `  card / (system + one round trip), per round:       median ${median(goal).toFixed(3)}x (middle half ${quantile(goal, 0.25).toFixed(3)}x to ${quantile(goal, 0.75).toFixed(3)}x; goal at most 1.100x)`,
          `  service calls per checkout, form to order:         ${perCheckout}`
        )
      }
      sandbox.setLatency({ ms: 0, jitterMs: 0 })
      process.stdout.write(lines.join("\n") + "\n\n")
      expect(LATENCIES.length).toBeGreaterThan(0)
    })
  },
})

const ms = (v: number) => `${v.toFixed(1)} ms`

function median(values: number[]): number {
  return quantile(values, 0.5)
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]
}
