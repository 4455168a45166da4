/**
 * Shoppers for the load benchmark and the two-instance test: whole checkouts
 * over HTTP through the cluster's proxy, as a storefront and a browser make
 * them (no browser: the form post carries the headers a browser's navigation
 * sends), and the audit of what they left behind.
 */
import { randomUUID } from "node:crypto"
import { performance } from "node:perf_hooks"
import { request } from "undici"
import { AUTHORIZE_ONLY_PROVIDER_ID, CARD_PROVIDER_ID, Cluster, SYSTEM_PROVIDER_ID } from "./load-cluster"

const NAVIGATION_HEADERS = {
  "content-type": "application/x-www-form-urlencoded",
  "sec-fetch-mode": "navigate",
  "sec-fetch-dest": "document",
  "sec-fetch-site": "cross-site",
  "sec-fetch-user": "?1",
}
const APPROVED_FRICTIONLESS = { number: "4000000000001000", cardType: "VISA" }

/** A test card of the sandbox (docs/sandbox.md, "Test cards"). */
export type TestCard = { number: string; cardType: string }

/**
 * The shopper's browser posts the pay form to the service with a card, as a
 * top-level navigation; the service's answer (a 303 onwards, or a page) and
 * when it was posted and answered (ms since the epoch).
 */
export async function postPayForm(
  form: PayForm,
  card: TestCard,
  timeoutMs = 60_000
): Promise<{ status: number; location: string; postedAt: number; answeredAt: number }> {
  const fields = {
    ...form.fields,
    cardAccountNumber: card.number,
    cardType: card.cardType,
    cardExpirationMonth: "12",
    cardExpirationYear: String(new Date().getUTCFullYear() + 3),
  }
  const postedAt = Date.now()
  const posted = await request(form.action, {
    method: "POST",
    headers: NAVIGATION_HEADERS,
    body: new URLSearchParams(fields).toString(),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  }).catch((error: Error) => {
    throw new Error(`the form post to the service: ${error.message}`)
  })
  await posted.body.dump()
  return { status: posted.statusCode, location: String(posted.headers.location ?? ""), postedAt, answeredAt: Date.now() }
}

/**
 * The sides of a run: the card service with automatic capture (the store's
 * setting, CARD_SERVICE_AUTO_CAPTURE), the same provider authorizing only
 * (a cluster started with `authorizeSide`), and Medusa's system provider.
 */
export type Provider = "card" | "authorize" | "system"
export const PROVIDERS: readonly Provider[] = ["card", "authorize", "system"]
export type PerSide<T> = Record<Provider, T>

export const perSide = <T>(make: () => T): PerSide<T> => ({ card: make(), authorize: make(), system: make() })

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
  /** The alternation of the sides whose round this checkout was in (load-rounds.ts). */
  alternation?: number
  /**
   * Card service: wall-clock moments (ms since the epoch, the sandbox's clock)
   * of the form post, the service's 303, the return's 303 and the order, for
   * the split of where the time went (load-split.ts).
   */
  marks?: { posted: number; redirected: number; returned: number; ordered: number }
}

type Catalog = { variantIds: string[]; shippingOptionId?: string }

export type PayForm = { action: string; fields: Record<string, string> }

/** What the return route told the shopper: the status= of the storefront URL it sent the browser to. */
export function toldByReturn(onwards: string): "paid" | "failed" | "pending" {
  const status = new URL(onwards).searchParams.get("status")
  return status === "paid" || status === "failed" ? status : "pending"
}

/** A cart ready to pay (prepare), or why it could not be made. */
export type Prepared = { cartId: string; sessionId: string; form?: PayForm; error?: string }

/**
 * How long the timed call may take: the system provider's complete, and for
 * the card service the wait for an order after a pending return. At 100
 * shoppers on 2 cores one complete can take over a minute (every request in
 * flight shares the CPU); a browser would keep waiting, and the card path's
 * order is not bounded by 60 s either (the service delivers its callback
 * again), so neither side is cut off at 60 s.
 */
const CHECKOUT_TIMEOUT_MS = 300_000

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

  /** The pay form of a session, as the storefront fetches it. */
  const formOf = async (sessionId: string): Promise<PayForm> =>
    (await call("GET", `/store/card-service/sessions/${sessionId}/form`)).form

  /**
   * The shopper's browser at the service: the form, posted with the approved
   * card (frictionless 3DS). Returns where the service sends the browser
   * (the return route) without going there.
   */
  const payAtService = async (sessionId: string, preparedForm?: PayForm) => {
    const form = preparedForm ?? (await formOf(sessionId))
    // The benchmark's clock runs from the form post (docs/benchmarks.md).
    const started = performance.now()
    const { status, location: serviceLocation, postedAt, answeredAt: redirectedAt } = await postPayForm(
      form,
      APPROVED_FRICTIONLESS
    )
    if (status !== 303 || !serviceLocation.includes("/card-service/return/")) {
      throw new Error(`the service answered the form with ${status} ${serviceLocation}`)
    }
    return {
      serviceLocation,
      started,
      postedAt,
      redirectedAt,
      transactionId: new URL(serviceLocation).searchParams.get("transactionId") ?? undefined,
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
    formOf,
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

export { percentile } from "./load-goals"

export { CARD_PROVIDER_ID, SYSTEM_PROVIDER_ID }
