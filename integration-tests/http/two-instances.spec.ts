import { request } from "undici"
import {
  CARD_PROVIDER_ID,
  Cluster,
  startCluster,
} from "../../scripts/lib/load-cluster"
import { audit } from "../../scripts/lib/load-audit"
import { runShoppers } from "../../scripts/lib/load-rounds"
import { storeClient } from "../../scripts/lib/load-shoppers"

/**
 * Two Medusa instances on one PostgreSQL and one Redis behind a round-robin
 * proxy (the cluster npm run bench:load measures). Every payment's callbacks
 * (two copies from the service, one more after the return) and the browser's
 * return are spread over both instances: whichever settles first, a cart
 * gets one order, an authorization at most one capture, and no approval is
 * left with neither an order nor a reversal.
 */
jest.setTimeout(240_000)

const REVIEW_APPROVED = "4000000000004806"

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

it("runs the reconciliation sweep on both instances at once: each order made and each reversal sent once", async () => {
  const { sandbox } = cluster
  const shop = storeClient(cluster)
  // Two approvals whose one callback met the service down (503): one for a
  // cart that is unchanged (the sweep makes its order), one for a cart that
  // changed afterwards (the sweep reverses it).
  sandbox.setCallbackKnobs({ duplicates: 1, retries: 0 })
  sandbox.injectFault({
    type: "status",
    status: 503,
    count: 50,
    path: "/payment/retrieve",
  })
  const paid = []
  for (let i = 0; i < 2; i++) {
    const cart = await shop.cartReadyToPay(CARD_PROVIDER_ID)
    const { transactionId } = await shop.payAtService(cart.sessionId)
    await sandbox.waitForCallbacks(
      (d) => d.some((c) => c.url.includes(cart.sessionId) && c.status === 503),
      20_000
    )
    paid.push({ ...cart, transactionId })
  }
  sandbox.resetKnobs()
  const [unchanged, changed] = paid
  const { variantIds } = await shop.loadCatalog()
  await shop.call("POST", `/store/carts/${changed.cartId}/line-items`, {
    variant_id: variantIds[0],
    quantity: 1,
  })
  // Slow retrieves keep the first sweep inside its lock while the other starts.
  sandbox.injectFault({
    type: "delay",
    ms: 400,
    count: 4,
    path: "/payment/retrieve",
  })

  const token = await adminToken(cluster.instances[0].url)
  const sweepOn = async (url: string) => {
    const response = await request(`${url}/admin/card-service/reconciliation`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
      },
      body: "{}",
    })
    expect(response.statusCode).toBe(200)
    return (await response.body.json()) as any
  }
  const all = cluster.instances.map((instance) => instance.url)
  const together = await Promise.all(all.map(sweepOn))
  // Then once more on each, as the next minute's runs would.
  const again = [await sweepOn(all[0]), await sweepOn(all[1])]

  // The lock is Redis's: while one instance sweeps, the other does not.
  expect(together.filter((r) => r.ran)).toHaveLength(1)
  const actions = [...together, ...again].flatMap((r) => r.actions ?? [])
  expect(
    actions.filter((a: any) => a.session_id === unchanged.sessionId)
  ).toEqual([expect.objectContaining({ status: "order_created" })])
  expect(
    actions.filter((a: any) => a.session_id === changed.sessionId)
  ).toEqual([expect.objectContaining({ status: "released" })])
  // Counted where it matters: Medusa's orders and the service's reversals.
  const orders = await cluster.query(
    "SELECT cart_id FROM order_cart WHERE deleted_at IS NULL AND cart_id = ANY($1)",
    [[unchanged.cartId, changed.cartId]]
  )
  expect(orders.map((row) => row.cart_id)).toEqual([unchanged.cartId])
  const reversals = (transactionId?: string) =>
    sandbox
      .transactions()
      .filter(
        (r) =>
          r.step === "REVERSAL" &&
          r.status === "successful" &&
          r.originalTransactionId === transactionId
      )
  expect(reversals(changed.transactionId)).toHaveLength(1)
  expect(reversals(unchanged.transactionId)).toHaveLength(0)
})

it("settles a review's verdict delivered twice, to both instances at once: the order on hold is authorized and captured once", async () => {
  const { sandbox } = cluster
  const shop = storeClient(cluster)
  const cart = await shop.cartReadyToPay(CARD_PROVIDER_ID)
  const { form } = await shop.call("GET", `/store/card-service/sessions/${cart.sessionId}/form`)
  const posted = await request(form.action, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "sec-fetch-mode": "navigate",
      "sec-fetch-dest": "document",
      "sec-fetch-site": "cross-site",
    },
    body: new URLSearchParams({
      ...form.fields,
      cardAccountNumber: REVIEW_APPROVED,
      cardType: "VISA",
      cardExpirationMonth: "12",
      cardExpirationYear: String(new Date().getUTCFullYear() + 3),
    }).toString(),
  })
  await posted.body.dump()
  const transactionId = new URL(String(posted.headers.location)).searchParams.get("transactionId")!
  const orderOf = async () =>
    (await cluster.query("SELECT order_id FROM order_cart WHERE cart_id = $1 AND deleted_at IS NULL", [cart.cartId]))[0]
      ?.order_id
  const deadline = Date.now() + 30_000
  while (!(await orderOf()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200))
  const orderId = await orderOf()
  expect(orderId).toMatch(/^order_/)
  const sessionRow = async () =>
    (await cluster.query("SELECT status FROM payment_session WHERE id = $1", [cart.sessionId]))[0]
  expect((await sessionRow()).status).toBe("pending_authorization")

  // The verdict is given at the service, and its callback delivered twice at
  // the same moment, once straight to each instance.
  const first = sandbox.callbacks().find((d) => d.transactionId === transactionId)!
  sandbox.setCallbackKnobs({ drop: true }, first.merchantReferenceCode)
  await sandbox.concludeReview(transactionId, "approve")
  sandbox.resetKnobs()
  const path = new URL(first.url).pathname
  const verdict = JSON.stringify({
    decision: "ACCEPT",
    reasonCode: "100",
    transactionId,
    originalTransactionId: "",
    merchantReferenceCode: first.merchantReferenceCode,
  })
  const answers = await Promise.all(
    cluster.instances.map(async (instance) => {
      const answer = await request(`${instance.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: verdict,
      })
      await answer.body.dump()
      return answer.statusCode
    })
  )
  expect(answers).toEqual([200, 200])

  expect((await sessionRow()).status).toBe("authorized")
  const payments = await cluster.query(
    "SELECT p.id FROM payment p JOIN payment_collection pc ON pc.id = p.payment_collection_id JOIN payment_session ps ON ps.payment_collection_id = pc.id WHERE ps.id = $1 AND p.deleted_at IS NULL",
    [cart.sessionId]
  )
  expect(payments).toHaveLength(1)
  const captures = sandbox
    .transactions()
    .filter((r) => r.step === "CAPTURE" && r.status === "successful" && r.originalTransactionId === transactionId)
  expect(captures).toHaveLength(cluster.autoCapture ? 1 : 0)
  const recorded = await cluster.query(
    "SELECT count(*)::int AS n FROM order_transaction WHERE order_id = $1 AND reference = 'capture' AND deleted_at IS NULL",
    [orderId]
  )
  expect(recorded[0].n).toBe(cluster.autoCapture ? 1 : 0)
})

async function adminToken(url: string): Promise<string> {
  const response = await request(`${url}/auth/user/emailpass`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      email: "admin@example.com",
      password: "supersecret",
    }),
  })
  const { token } = (await response.body.json()) as { token: string }
  return token
}
