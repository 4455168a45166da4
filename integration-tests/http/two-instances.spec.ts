import { Cluster, startCluster } from "../../scripts/lib/load-cluster"
import { audit, runShoppers } from "../../scripts/lib/load-shoppers"

/**
 * Two Medusa instances on one PostgreSQL and one Redis behind a round-robin
 * proxy (the cluster npm run bench:load measures). Every payment's callbacks
 * (two copies from the service, one more after the return) and the browser's
 * return are spread over both instances: whichever settles first, a cart
 * gets one order, an authorization at most one capture, and no approval is
 * left with neither an order nor a reversal.
 */
jest.setTimeout(240_000)

let cluster: Cluster

beforeAll(async () => {
  cluster = await startCluster({
    dbEnv: process.env,
    stock: 200,
    keepLogs: false,
  })
}, 200_000)

afterAll(async () => {
  await cluster?.stop()
})

it("settles 20 checkouts whose duplicate callbacks land on both instances: one order, one capture each", async () => {
  const run = await runShoppers(cluster, {
    concurrency: 5,
    checkouts: 20,
    timeCapMs: 120_000,
    providers: ["card"],
  })
  const card = run.results.filter((r) => r.provider === "card")
  expect(card.filter((r) => !r.ok).map((r) => r.error)).toEqual([])
  expect(card).toHaveLength(20)

  // The proxy sent each session's callbacks and return to both instances.
  const spread = card.filter(
    (r) => (cluster.counters.settledOn.get(r.sessionId!)?.size ?? 0) === 2
  )
  expect(spread).toHaveLength(20)

  const counts = await audit(cluster, run.results)
  expect(counts).toMatchObject({
    cardCheckouts: 20,
    doubleOrders: 0,
    doubleCaptures: 0,
    approvalsLeftBehind: 0,
    ordersWithoutCapture: 0,
    upstream5xx: 0,
  })
  const orders = await cluster.query(
    "SELECT cart_id, count(*)::int AS n FROM order_cart WHERE deleted_at IS NULL AND cart_id = ANY($1) GROUP BY cart_id",
    [card.map((r) => r.cartId)]
  )
  expect(orders).toHaveLength(20)
  expect(orders.every((row) => row.n === 1)).toBe(true)
})
