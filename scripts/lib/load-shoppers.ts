/**
 * Shoppers for the load benchmark and the two-instance test: whole checkouts
 * over HTTP through the cluster's proxy, as a storefront and a browser make
 * them (no browser: the form post carries the headers a browser's navigation
 * sends), and the audit of what they left behind.
 */
import fs from "node:fs"
import { randomUUID } from "node:crypto"
import { performance } from "node:perf_hooks"
import { request } from "undici"
import { AUTHORIZE_ONLY_PROVIDER_ID, CARD_PROVIDER_ID, Cluster, SYSTEM_PROVIDER_ID } from "./load-cluster"
import { addStatements, type StatementTally } from "./load-statements"

const NAVIGATION_HEADERS = {
  "content-type": "application/x-www-form-urlencoded",
  "sec-fetch-mode": "navigate",
  "sec-fetch-dest": "document",
  "sec-fetch-site": "cross-site",
  "sec-fetch-user": "?1",
}
const APPROVED_FRICTIONLESS = { number: "4000000000001000", cardType: "VISA" }

/**
 * The sides of a run: the card service with automatic capture (the store's
 * setting, CARD_SERVICE_AUTO_CAPTURE), the same provider authorizing only
 * (a cluster started with `authorizeSide`), and Medusa's system provider.
 */
export type Provider = "card" | "authorize" | "system"
export const PROVIDERS: readonly Provider[] = ["card", "authorize", "system"]
export type PerSide<T> = Record<Provider, T>

const perSide = <T>(make: () => T): PerSide<T> => ({ card: make(), authorize: make(), system: make() })

const PROVIDER_IDS: PerSide<string> = {
  card: CARD_PROVIDER_ID,
  authorize: AUTHORIZE_ONLY_PROVIDER_ID,
  system: SYSTEM_PROVIDER_ID,
}

export type CheckoutResult = {
  provider: Provider
  ok: boolean
  /** Form post (system: the complete call) to the order, ms. */
  ms?: number
  cartId?: string
  sessionId?: string
  transactionId?: string
  error?: string
  /** Store calls a shopper had to repeat (an instance died under them). */
  retries: number
  /**
   * Card service: wall-clock moments (ms since the epoch, the sandbox's clock)
   * of the form post, the service's 303, the return's 303 and the order, for
   * the split of where the time went (load-split.ts).
   */
  marks?: { posted: number; redirected: number; returned: number; ordered: number }
}

type Catalog = { variantIds: string[]; shippingOptionId?: string }

type PayForm = { action: string; fields: Record<string, string> }

/** A cart ready to pay (prepare), or why it could not be made. */
type Prepared = { cartId: string; sessionId: string; form?: PayForm; error?: string }

/**
 * How long the timed call may take: the system provider's complete, and for
 * the card service the wait for an order after a pending return. At 100
 * shoppers on 2 cores one complete can take over a minute (every request in
 * flight shares the CPU); a browser would keep waiting, and the card path's
 * order is not bounded by 60 s either (the service delivers its callback
 * again), so neither side is cut off at 60 s.
 */
const CHECKOUT_TIMEOUT_MS = 300_000

/** Carts made at once before a round (prepareRound). */
const PREPARE_AT_ONCE = 10

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string
  ) {
    super(message)
  }
}

/**
 * What a shopper's calls need of a store: its URL (the cluster's proxy, or
 * one store of `npm run test:compat`), the demo seed's key, region and
 * channel, and its database, where a checkout waits for its order.
 */
export type StoreAccess = Pick<Cluster, "proxyUrl" | "seed" | "query">

export function storeClient(cluster: StoreAccess) {
  const headers = {
    "x-publishable-api-key": cluster.seed.publishableKey,
    "content-type": "application/json",
  }
  let catalog: Catalog | null = null
  let retries = 0
  let carts = 0

  // A shopper (or storefront) repeats a call that failed with 502 once the
  // other instance takes over; anything else is an error of the run.
  const call = async (
    method: "GET" | "POST",
    url: string,
    body?: unknown,
    timeoutMs = 60_000
  ): Promise<any> => {
    for (let attempt = 1; ; attempt++) {
      // A transport failure (a 60 s headers timeout) names the call, so a
      // report says which step of the checkout it hit.
      const response = await request(`${cluster.proxyUrl}${url}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      }).catch((error: Error) => {
        throw new Error(`${method} ${url.replace(/[a-z]+_[0-9A-Z]{26}/g, ":id")}: ${error.message}`)
      })
      const text = await response.body.text()
      if (response.statusCode === 502 && attempt < 4) {
        retries++
        await new Promise((resolve) => setTimeout(resolve, 500 * attempt))
        continue
      }
      if (response.statusCode >= 400) {
        throw new HttpError(
          response.statusCode,
          `${method} ${url}: ${response.statusCode} ${text.slice(0, 200)}`
        )
      }
      return text ? JSON.parse(text) : {}
    }
  }

  const loadCatalog = async (): Promise<Catalog> => {
    if (catalog) return catalog
    // The load product's variants when the cluster seeded them (one
    // inventory item each, so concurrent carts do not queue on one item's
    // reservation lock: demo-seed.ts, seedLoadProduct), else the demo mug.
    const { products: spread } = await call(
      "GET",
      `/store/products?handle=load-mug&region_id=${cluster.seed.regionId}`
    )
    if (spread[0]?.variants?.length) {
      catalog = { variantIds: spread[0].variants.map((v: { id: string }) => v.id) }
      return catalog
    }
    const { products } = await call(
      "GET",
      `/store/products?handle=card-service-mug&region_id=${cluster.seed.regionId}`
    )
    catalog = { variantIds: [products[0].variants[0].id] }
    return catalog
  }

  const cartReadyToPay = async (providerId: string) => {
    const { variantIds } = await loadCatalog()
    // Round robin: the shoppers of one round buy different variants while
    // there are at least as many variants as shoppers.
    const variantId = variantIds[carts++ % variantIds.length]
    const address = {
      first_name: "Ada",
      last_name: "Lovelace",
      address_1: "Unter den Linden 1",
      city: "Berlin",
      postal_code: "10117",
      country_code: "de",
      phone: "+4930123456",
    }
    const { cart } = await call("POST", "/store/carts", {
      region_id: cluster.seed.regionId,
      sales_channel_id: cluster.seed.salesChannelId,
      // One address per shopper: Medusa creates a guest customer per new
      // e-mail, and two carts racing to create the same one answer 400
      // "already exists" (seen with two instances; not the payment path).
      email: `shopper-${randomUUID()}@example.com`,
      shipping_address: address,
      billing_address: address,
    })
    await call("POST", `/store/carts/${cart.id}/line-items`, {
      variant_id: variantId,
      quantity: 1,
    })
    if (!catalog!.shippingOptionId) {
      const { shipping_options } = await call(
        "GET",
        `/store/shipping-options?cart_id=${cart.id}`
      )
      catalog!.shippingOptionId = shipping_options[0].id
    }
    await call("POST", `/store/carts/${cart.id}/shipping-methods`, {
      option_id: catalog!.shippingOptionId,
    })
    const { payment_collection } = await call(
      "POST",
      "/store/payment-collections",
      { cart_id: cart.id }
    )
    const { payment_collection: withSession } = await call(
      "POST",
      `/store/payment-collections/${payment_collection.id}/payment-sessions`,
      { provider_id: providerId }
    )
    return {
      cartId: cart.id as string,
      sessionId: withSession.payment_sessions[0].id as string,
    }
  }

  /**
   * The shopper's browser at the service: the form, posted with the approved
   * card (frictionless 3DS). Returns where the service sends the browser
   * (the return route) without going there.
   */
  const formOf = async (sessionId: string): Promise<PayForm> =>
    (await call("GET", `/store/card-service/sessions/${sessionId}/form`)).form

  const payAtService = async (sessionId: string, preparedForm?: PayForm) => {
    const form = preparedForm ?? (await formOf(sessionId))
    const fields = {
      ...form.fields,
      cardAccountNumber: APPROVED_FRICTIONLESS.number,
      cardType: APPROVED_FRICTIONLESS.cardType,
      cardExpirationMonth: "12",
      cardExpirationYear: String(new Date().getUTCFullYear() + 3),
    }
    // The benchmark's clock runs from the form post (docs/benchmarks.md).
    const started = performance.now()
    const postedAt = Date.now()
    const posted = await request(form.action, {
      method: "POST",
      headers: NAVIGATION_HEADERS,
      body: new URLSearchParams(fields).toString(),
      headersTimeout: 60_000,
    }).catch((error: Error) => {
      throw new Error(`the form post to the service: ${error.message}`)
    })
    await posted.body.dump()
    const redirectedAt = Date.now()
    const serviceLocation = String(posted.headers.location ?? "")
    if (
      posted.statusCode !== 303 ||
      !serviceLocation.includes("/card-service/return/")
    ) {
      throw new Error(
        `the service answered the form with ${posted.statusCode} ${serviceLocation}`
      )
    }
    return {
      serviceLocation,
      started,
      postedAt,
      redirectedAt,
      transactionId:
        new URL(serviceLocation).searchParams.get("transactionId") ?? undefined,
    }
  }

  /**
   * The card service: the form, the post to the service (frictionless 3DS;
   * the service calls back twice before it sends the browser on), the
   * browser's return, then the callback once more after the return.
   */
  const cardCheckout = async (
    prepared?: Prepared,
    provider: Exclude<Provider, "system"> = "card"
  ): Promise<CheckoutResult> => {
    const before = retries
    const result: CheckoutResult = { provider, ok: false, retries: 0 }
    try {
      const { cartId, sessionId, form } = prepared ?? (await prepare(provider))
      if (prepared?.error) throw new Error(prepared.error)
      Object.assign(result, { cartId, sessionId })
      const { serviceLocation, transactionId, started, postedAt, redirectedAt } =
        await payAtService(sessionId, form)
      result.transactionId = transactionId
      let status: string | null = null
      for (let attempt = 1; attempt <= 4; attempt++) {
        const back = await request(serviceLocation, {
          method: "GET",
          headers: { "sec-fetch-mode": "navigate" },
        })
        await back.body.dump()
        if (back.statusCode === 502) {
          result.retries++
          await new Promise((resolve) => setTimeout(resolve, 500 * attempt))
          continue
        }
        if (back.statusCode >= 500)
          throw new Error(`the return answered ${back.statusCode}`)
        status = new URL(String(back.headers.location)).searchParams.get(
          "status"
        )
        break
      }
      const returnedAt = Date.now()
      if (status !== "paid") {
        // Pending: the storefront would poll; the order must still come.
        await waitForOrder(cluster, cartId, CHECKOUT_TIMEOUT_MS)
      }
      result.ms = performance.now() - started
      result.marks = {
        posted: postedAt,
        redirected: redirectedAt,
        returned: returnedAt,
        ordered: Date.now(),
      }
      // The service's late copy, after the shopper is back in the shop.
      const late = await request(
        `${cluster.proxyUrl}/card-service/callback/${sessionId}/`,
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            decision: "ACCEPT",
            reasonCode: "100",
            transactionId: result.transactionId,
            originalTransactionId: "",
          }),
        }
      )
      await late.body.dump()
      result.ok = true
    } catch (error) {
      result.error = (error as Error).message
    }
    result.retries += retries - before
    return result
  }

  /** Medusa's system provider: the same cart, completed directly. */
  const systemCheckout = async (prepared?: Prepared): Promise<CheckoutResult> => {
    const before = retries
    const result: CheckoutResult = { provider: "system", ok: false, retries: 0 }
    try {
      const { cartId, sessionId } = prepared ?? (await prepare("system"))
      if (prepared?.error) throw new Error(prepared.error)
      Object.assign(result, { cartId, sessionId })
      const started = performance.now()
      const completed = await call(
        "POST",
        `/store/carts/${cartId}/complete`,
        {},
        CHECKOUT_TIMEOUT_MS
      )
      if (completed.type !== "order")
        throw new Error(`complete answered ${completed.type}`)
      result.ms = performance.now() - started
      result.ok = true
    } catch (error) {
      result.error = (error as Error).message
    }
    result.retries += retries - before
    return result
  }

  /**
   * What a shopper does before the clock starts: the cart (item, addresses,
   * shipping, payment collection and session) and, for the card service,
   * the pay form. A failure is kept for the checkout to report.
   */
  const prepare = async (provider: Provider): Promise<Prepared> => {
    const ready = await cartReadyToPay(PROVIDER_IDS[provider])
    return provider === "system" ? ready : { ...ready, form: await formOf(ready.sessionId) }
  }

  return {
    cardCheckout,
    systemCheckout,
    prepare,
    loadCatalog,
    cartReadyToPay,
    payAtService,
    call,
  }
}

async function waitForOrder(
  cluster: StoreAccess,
  cartId: string,
  timeoutMs: number
) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const rows = await cluster.query(
      "SELECT order_id FROM order_cart WHERE cart_id = $1 AND deleted_at IS NULL",
      [cartId]
    )
    if (rows.length) return
    if (Date.now() > deadline)
      throw new Error(`no order for cart ${cartId} after ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

export type RunResult = {
  concurrency: number
  /** The sides this run drove. */
  providers: Provider[]
  wallMs: PerSide<number>
  /**
   * CPU time the whole machine spent during each provider's rounds (every
   * process: the instances, PostgreSQL, Redis, this process with the sandbox
   * and the proxy), from /proc/stat; null where there is none. Work a round
   * leaves behind (events, the sweep) lands in the next round's.
   */
  cpuMs: PerSide<number> | null
  /**
   * Of cpuMs, this process's own: the sandbox (the card service's side of
   * every card checkout), the proxy and the shoppers. Work that in
   * production runs on the service's machines and the shoppers' devices.
   */
  benchCpuMs: PerSide<number>
  /** The statements run during each side's rounds, when the cluster counts them (load-statements.ts). */
  statements: PerSide<StatementTally> | null
  results: CheckoutResult[]
  timedOut: boolean
}

/**
 * `checkouts` of each provider by `concurrency` shoppers. The providers
 * alternate in rounds (a round of card checkouts, then a round of each other
 * side's, each with all shoppers at once), so warm-up and background load
 * fall on all alike; each side's throughput is its checkouts over the time
 * its own rounds took. `timeCapMs` stops starting new rounds.
 */
export async function runShoppers(
  cluster: Cluster,
  {
    concurrency,
    checkouts,
    timeCapMs,
    providers = ["card", "system"],
    onPayments,
    perShopper = 1,
  }: {
    concurrency: number
    checkouts: number
    /**
     * Checkouts each shopper makes in a round, one after another (a round is
     * `concurrency * perShopper` carts). A round ends when its slowest
     * shopper is done, so with one each, every round's throughput is set by
     * its slowest checkout (which p99 already reports) and the cores idle
     * while the last few finish; more per shopper keeps N payments in flight
     * for longer between those ends.
     */
    perShopper?: number
    timeCapMs: number
    providers?: Provider[]
    /** Called when a round's payments start (its carts are built). */
    onPayments?: () => void
  }
): Promise<RunResult> {
  const client = storeClient(cluster)
  await client.loadCatalog()
  const sides = PROVIDERS.filter((provider) => providers.includes(provider))
  const results: CheckoutResult[] = []
  const wallMs = perSide(() => 0)
  const cpuMs: RunResult["cpuMs"] = machineCpuMs() === null ? null : perSide(() => 0)
  const benchCpuMs = perSide(() => 0)
  const statements: RunResult["statements"] = cluster.statements ? perSide(() => new Map()) : null
  const deadline = Date.now() + timeCapMs
  const done = perSide(() => 0)
  let timedOut = false
  while (sides.some((provider) => done[provider] < checkouts)) {
    if (Date.now() > deadline) {
      timedOut = true
      break
    }
    for (const provider of sides) {
      const size = Math.min(concurrency * perShopper, checkouts - done[provider])
      if (size <= 0) continue
      // The carts first, a few at a time and off the clock, then all the
      // round's shoppers pay at once: N shoppers means N concurrent
      // payments. Building 100 carts at once on 2 cores made every store
      // call of it take over a minute (docs/benchmarks.md), which is the
      // shop's cart API under saturation, not the payment path.
      const prepared = await prepareRound(client, provider, size)
      await cluster.statements?.reset()
      const started = performance.now()
      const cpuBefore = machineCpuMs()
      const ownBefore = process.cpuUsage()
      onPayments?.()
      // Each shopper pays for its next cart as soon as its last checkout is
      // done, so N payments are in flight until the round's carts run out.
      const round: CheckoutResult[] = new Array(size)
      let next = 0
      await Promise.all(
        Array.from({ length: Math.min(concurrency, size) }, async () => {
          for (let i = next++; i < size; i = next++) {
            round[i] = await (provider === "system"
              ? client.systemCheckout(prepared[i])
              : client.cardCheckout(prepared[i], provider))
          }
        })
      )
      wallMs[provider] += performance.now() - started
      const cpuAfter = machineCpuMs()
      const own = process.cpuUsage(ownBefore)
      benchCpuMs[provider] += (own.user + own.system) / 1000
      if (statements && cluster.statements) addStatements(statements[provider], await cluster.statements.read())
      if (cpuMs && cpuBefore !== null && cpuAfter !== null) cpuMs[provider] += cpuAfter - cpuBefore
      done[provider] += size
      results.push(...round)
    }
  }
  return { concurrency, providers: sides, wallMs, cpuMs, benchCpuMs, statements, results, timedOut }
}

async function prepareRound(
  client: ReturnType<typeof storeClient>,
  provider: Provider,
  size: number
): Promise<Prepared[]> {
  const prepared: Prepared[] = new Array(size)
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(PREPARE_AT_ONCE, size) }, async () => {
      for (let i = next++; i < size; i = next++) {
        prepared[i] = await client.prepare(provider).catch((error: Error) => ({
          cartId: "",
          sessionId: "",
          error: `before the payment: ${error.message}`,
        }))
      }
    })
  )
  return prepared
}

export type Audit = {
  cardCheckouts: number
  doubleOrders: number
  doubleCaptures: number
  approvalsLeftBehind: number
  /** Each approval left behind: its transaction, reference, cart (when a shopper of the run paid it) and whether that cart has an order. */
  leftBehindDetails: string[]
  /** The transaction ids of the approvals left behind, for followLeftBehind. */
  leftBehindIds: string[]
  ordersWithoutCapture: number
  /** Their approvals, for followWithoutCapture. */
  withoutCaptureIds: string[]
  /** For the first few orders without a capture at the service: what Medusa's payment of it says. */
  withoutCaptureDetails: string[]
  undeliveredCallbacks: number
  upstream5xx: number
  /** Of upstream5xx, the answers to the service's callbacks (load-cluster.ts). */
  callback5xx: number
}

/**
 * What must be zero, from the sandbox's transaction records and the database:
 * carts with more than one order, authorizations captured more than once,
 * approvals with neither an order nor a reversal. `settleMs` lets re-sent
 * callbacks finish first.
 */
export async function audit(
  cluster: Cluster,
  results: CheckoutResult[],
  settleMs = 8000
): Promise<Audit> {
  await waitUntilCallbacksSettle(cluster, settleMs)
  const doubles = await cluster.query(
    "SELECT cart_id FROM order_cart WHERE deleted_at IS NULL GROUP BY cart_id HAVING count(*) > 1"
  )
  const ordered = await orderedCarts(cluster)
  const cartOfTransaction = cartsOfTransactions(results)
  const transactions = cluster.sandbox.transactions()
  const approvals = transactions.filter(
    (t) => t.step === "AUTHORIZATION" && t.reasonCode === "100"
  )
  const capturesOf = capturesByApproval(cluster)
  const reversed = reversedApprovals(cluster)
  // Which orders must have a capture: the card side's, when the store
  // captures automatically; never the authorize-only side's.
  const authorizeOnly = new Set(
    results.filter((r) => r.provider === "authorize" && r.transactionId).map((r) => r.transactionId!)
  )
  const captures = (transactionId: string) => cluster.autoCapture && !authorizeOnly.has(transactionId)
  let leftBehind = 0
  const leftBehindDetails: string[] = []
  const leftBehindIds: string[] = []
  let withoutCapture = 0
  const withoutCaptureIds: string[] = []
  for (const approval of approvals) {
    const cartId = cartOfTransaction.get(approval.transactionId)
    const hasOrder = cartId !== undefined && ordered.has(cartId)
    if (!hasOrder && !reversed.has(approval.transactionId)) {
      leftBehind++
      leftBehindIds.push(approval.transactionId)
      leftBehindDetails.push(
        `approval ${approval.transactionId} (reference ${approval.merchantReferenceCode}, ` +
          (cartId ? `cart ${cartId} without an order` : "paid by no shopper of this run") +
          ")"
      )
    }
    if (hasOrder && !capturesOf.get(approval.transactionId) && captures(approval.transactionId)) {
      withoutCapture++
      withoutCaptureIds.push(approval.transactionId)
    }
  }
  const undelivered = undeliveredCallbacks(cluster)
  return {
    cardCheckouts: approvals.length,
    doubleOrders: doubles.length,
    doubleCaptures: [...capturesOf.values()].filter((n) => n > 1).length,
    approvalsLeftBehind: leftBehind,
    leftBehindDetails,
    leftBehindIds,
    ordersWithoutCapture: withoutCapture,
    withoutCaptureIds,
    withoutCaptureDetails: await paymentStates(cluster, withoutCaptureIds.slice(0, 10)),
    undeliveredCallbacks: undelivered,
    upstream5xx: cluster.counters.upstream5xx,
    callback5xx: cluster.counters.callback5xx,
  }
}

/** The carts that are an order. */
async function orderedCarts(cluster: Cluster): Promise<Set<string>> {
  const rows = await cluster.query("SELECT cart_id FROM order_cart WHERE deleted_at IS NULL")
  return new Set(rows.map((row) => row.cart_id))
}

/** The service's successful captures, counted by the authorization each captured. */
function capturesByApproval(cluster: Cluster): Map<string, number> {
  const capturesOf = new Map<string, number>()
  for (const t of cluster.sandbox.transactions()) {
    if (t.step === "CAPTURE" && t.reasonCode === "100") {
      capturesOf.set(t.originalTransactionId, (capturesOf.get(t.originalTransactionId) ?? 0) + 1)
    }
  }
  return capturesOf
}

/** The authorizations the service reversed. */
function reversedApprovals(cluster: Cluster): Set<string> {
  return new Set(
    cluster.sandbox
      .transactions()
      .filter((t) => t.step === "REVERSAL" && t.reasonCode === "100")
      .map((t) => t.originalTransactionId)
  )
}

/** Which shopper's cart each transaction of the run paid for. */
function cartsOfTransactions(results: CheckoutResult[]): Map<string, string> {
  return new Map(results.filter((r) => r.transactionId).map((r) => [r.transactionId!, r.cartId!] as const))
}

/**
 * Medusa's payment of each approval: whether it is captured in Medusa
 * (captured_at, its capture rows) and the last entry of the payment's log
 * (operation and decision: UNKNOWN is a capture with no answer, left to the
 * sweep). No card data is in either.
 */
async function paymentStates(cluster: Cluster, transactionIds: string[]): Promise<string[]> {
  if (!transactionIds.length) return []
  const rows = await cluster.query(
    `SELECT p.data->>'transaction_id' AS transaction_id, p.captured_at, p.canceled_at,
            (SELECT count(*)::int FROM capture c WHERE c.payment_id = p.id AND c.deleted_at IS NULL) AS captures,
            p.data->'transactions'->-1->>'operation' AS last_operation,
            p.data->'transactions'->-1->>'decision' AS last_decision
       FROM payment p WHERE p.deleted_at IS NULL AND p.data->>'transaction_id' = ANY($1)`,
    [transactionIds]
  )
  const byId = new Map(rows.map((row) => [row.transaction_id, row]))
  return transactionIds.map((id) => {
    const row = byId.get(id)
    if (!row) return `order without a capture: approval ${id}, no Medusa payment names it`
    return (
      `order without a capture: approval ${id}; Medusa's payment: ${row.captures} capture(s), ` +
      `captured_at ${row.captured_at ? "set" : "null"}, canceled_at ${row.canceled_at ? "set" : "null"}, ` +
      `last log entry ${row.last_operation ?? "-"} ${row.last_decision ?? "-"}`
    )
  })
}

/**
 * What became of each approval the audit found left behind: waits (up to
 * `waitMs`) until it has an order or a reversal and says when, and whether a
 * callback delivery was answered 2xx in between (else the sweep or the
 * browser settled it), with the approval's callback history: copy.attempt,
 * the status Medusa answered (or the error) and when, from its first
 * delivery.
 */
export async function followLeftBehind(
  cluster: Cluster,
  results: CheckoutResult[],
  ids: string[],
  waitMs = 90_000
): Promise<string[]> {
  if (!ids.length) return []
  const since = Date.now()
  const cartOf = cartsOfTransactions(results)
  const pending = new Set(ids)
  const lines: string[] = []
  while (pending.size) {
    const reversed = reversedApprovals(cluster)
    const ordered = await orderedCarts(cluster)
    for (const id of [...pending]) {
      const cartId = cartOf.get(id)
      const outcome = reversed.has(id) ? "reversed" : cartId && ordered.has(cartId) ? "ordered" : null
      if (!outcome) continue
      pending.delete(id)
      const answered = cluster.sandbox
        .callbacks()
        .some((d) => d.transactionId === id && d.ok && d.at >= since)
      lines.push(
        `follow-up: approval ${id} ${outcome} within ${Math.ceil((Date.now() - since) / 1000)} s of the audit, ` +
          (answered ? "after a callback delivery answered 2xx" : "with no callback delivered since the audit (the sweep)") +
          `; its callbacks: ${callbackHistory(cluster, id)}`
      )
    }
    if (!pending.size || Date.now() - since > waitMs) break
    await new Promise((resolve) => setTimeout(resolve, 2500))
  }
  for (const id of pending) {
    lines.push(
      `follow-up: approval ${id} still without an order or a reversal ${Math.round(waitMs / 1000)} s after the audit; ` +
        `its callbacks: ${callbackHistory(cluster, id)}`
    )
  }
  return lines
}

/**
 * What became of each order the audit found without a capture (an instance
 * killed inside Medusa's cart completion leaves its order without a
 * payment): waits (up to `waitMs`, past Medusa's 2-minute cart lock and a
 * sweep) until Medusa has a payment naming the approval and the service a
 * capture of it, and says when; else says what is still missing.
 */
export async function followWithoutCapture(cluster: Cluster, ids: string[], waitMs = 240_000): Promise<string[]> {
  if (!ids.length) return []
  const since = Date.now()
  const pending = new Set(ids)
  const lines: string[] = []
  const state = async (id: string) => {
    const captured = (capturesByApproval(cluster).get(id) ?? 0) > 0
    const [row] = await cluster.query(
      `SELECT p.id, p.captured_at FROM payment p WHERE p.deleted_at IS NULL AND p.data->>'transaction_id' = $1`,
      [id]
    )
    return { captured, payment: row ? (row.captured_at ? "captured" : "not captured") : "none" }
  }
  for (;;) {
    for (const id of [...pending]) {
      const now = await state(id)
      if (!now.captured || now.payment !== "captured") continue
      pending.delete(id)
      lines.push(
        `follow-up: the order of approval ${id} has its payment (Medusa: captured; the service: one capture) ` +
          `within ${Math.ceil((Date.now() - since) / 1000)} s of the audit`
      )
    }
    if (!pending.size || Date.now() - since > waitMs) break
    await new Promise((resolve) => setTimeout(resolve, 5000))
  }
  for (const id of pending) {
    const now = await state(id)
    lines.push(
      `follow-up: the order of approval ${id} still has no captured payment ${Math.round(waitMs / 1000)} s after the audit ` +
        `(Medusa's payment: ${now.payment}; a capture at the service: ${now.captured ? "yes" : "no"})`
    )
  }
  return lines
}

function callbackHistory(cluster: Cluster, transactionId: string): string {
  const deliveries = cluster.sandbox.callbacks().filter((d) => d.transactionId === transactionId)
  if (!deliveries.length) return "none"
  const first = deliveries[0].at
  return deliveries
    .map(
      (d) =>
        `${d.copy}.${d.attempt} ${d.dropped ? "dropped" : (d.status ?? d.error ?? "no answer")} ` +
        `at +${((d.at - first) / 1000).toFixed(1)} s` +
        (d.ms !== undefined ? ` (${(d.ms / 1000).toFixed(1)} s)` : "")
    )
    .join(", ")
}

/** Callback copies whose every attempt failed (the service gave up on them). */
function undeliveredCallbacks(cluster: Cluster): number {
  const byCopy = new Map<string, boolean>()
  for (const d of cluster.sandbox.callbacks()) {
    if (d.dropped) continue
    const key = `${d.transactionId}#${d.copy}`
    byCopy.set(key, (byCopy.get(key) ?? false) || d.ok)
  }
  return [...byCopy.values()].filter((ok) => !ok).length
}

async function waitUntilCallbacksSettle(cluster: Cluster, settleMs: number) {
  // Re-deliveries are spaced by the retry interval; wait until none is due.
  const deadline = Date.now() + settleMs
  let last = -1
  while (Date.now() < deadline) {
    const count = cluster.sandbox.callbacks().length
    if (count === last) break
    last = count
    await new Promise((resolve) => setTimeout(resolve, 2500))
  }
}

export function percentile(values: number[], q: number): number {
  if (!values.length) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[
    Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))
  ]
}

export { CARD_PROVIDER_ID, SYSTEM_PROVIDER_ID }

/**
 * CPU time the machine has spent since boot, all cores, in ms (Linux
 * /proc/stat: user, nice, system, irq, softirq and steal; not idle or
 * iowait), or null without /proc/stat.
 */
export function machineCpuMs(): number | null {
  let line: string
  try {
    line = fs.readFileSync("/proc/stat", "utf8").split("\n")[0]
  } catch {
    return null
  }
  const fields = line.trim().split(/\s+/).slice(1).map(Number)
  const [user, nice, system, , , irq, softirq, steal] = fields
  const ticks = [user, nice, system, irq, softirq, steal ?? 0].reduce((sum, n) => sum + (Number.isFinite(n) ? n : 0), 0)
  // USER_HZ is 100 on Linux.
  return ticks * 10
}
