import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { Modules } from "@medusajs/framework/utils"
import { request } from "undici"
import { useCardServiceSandbox } from "../helpers/card-service-env"
import { payLikeABrowser } from "../helpers/browser-step"
import { CARDS, cartWithSession } from "../helpers/checkout-flow"
import { REDIS_BINARY, startOwnRedis, type OwnRedis } from "../../scripts/lib/redis-server"

jest.setTimeout(120_000)

// The production-like modules (see medusa-config.ts): Redis locking, event
// bus, workflow engine and cache, on a redis-server of this file's own on a
// free port (Debian's binary), else on REDIS_URL, so that the test shares no
// state with any other Redis user of the machine.
const before = { REDIS_URL: process.env.REDIS_URL, REDIS_NAMESPACE: process.env.REDIS_NAMESPACE }
let redis: OwnRedis | null = null
// Registered before the test runner's own beforeAll, which loads medusa-config.ts.
beforeAll(async () => {
  redis = await startOwnRedis()
  if (!redis && !process.env.REDIS_URL) {
    throw new Error(`no ${REDIS_BINARY} and no REDIS_URL: this test needs a Redis`)
  }
  process.env.REDIS_URL = redis?.url ?? process.env.REDIS_URL
  process.env.REDIS_NAMESPACE = `card-service-test-${process.pid}:`
})
// Test files may share a process: leave the environment as it was found.
afterAll(async () => {
  for (const [name, value] of Object.entries(before)) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
  await redis?.stop()
})

const env = useCardServiceSandbox()

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    let afterCase = () => {}
    afterEach(() => afterCase())

    it("runs with the Redis locking provider", () => {
      const locking = getContainer().resolve(Modules.LOCKING) as unknown as {
        defaultProviderId: string
      }
      expect(locking.defaultProviderId).toMatch(/locking-redis/)
    })

    // Scheduled sweep on: copies that find another copy settling are answered
    // at once (a claim taken on Redis); off: they wait for the session lock.
    it.each([
      ["the sweep off", "off"],
      ["the sweep scheduled", "* * * * *"],
    ])("makes one order and one payment of ten concurrent callbacks racing the browser's return (%s)", async (_, schedule) => {
      const scheduleBefore = process.env.CARD_SERVICE_RECONCILE_SCHEDULE
      process.env.CARD_SERVICE_RECONCILE_SCHEDULE = schedule
      afterCase = () => {
        process.env.CARD_SERVICE_RECONCILE_SCHEDULE = scheduleBefore
      }
      const flow = await cartWithSession(api, getContainer())
      env.sandbox().setCallbackKnobs({ drop: true })
      const paid = await payLikeABrowser(api, flow.store.publishableKey, flow.session.id, CARDS.approved, {
        followReturn: false,
      })
      env.sandbox().resetKnobs()
      const transactionId = new URL(paid.serviceLocation as string).searchParams.get("transactionId")
      const callback = () =>
        request(`${env.backendUrl()}/card-service/callback/${flow.session.id}/`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            decision: "ACCEPT",
            reasonCode: "100",
            transactionId,
            originalTransactionId: "",
          }),
        }).then(async (response) => {
          await response.body.dump()
          return response.statusCode
        })
      const browserReturn = () =>
        request(paid.serviceLocation as string).then(async (response) => {
          await response.body.dump()
          return new URL(response.headers.location as string).searchParams.get("status")
        })

      const [statuses, returned] = await Promise.all([
        Promise.all(Array.from({ length: 10 }, callback)),
        browserReturn(),
      ])

      expect(statuses).toEqual(Array(10).fill(200))
      expect(returned).toBe("paid")
      const query = getContainer().resolve("query")
      const { data: orders } = await query.graph({
        entity: "order_cart",
        fields: ["order_id"],
        filters: { cart_id: flow.cart.id },
      })
      expect(orders).toHaveLength(1)
      const { data: payments } = await query.graph({
        entity: "payment",
        fields: ["id"],
        filters: { payment_session_id: flow.session.id },
      })
      expect(payments).toHaveLength(1)
    })
  },
})
