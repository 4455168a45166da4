import { MedusaError, Modules } from "@medusajs/framework/utils"
import type CardServiceProviderService from "../../src/providers/card-service/service"
import { recordingLogger } from "./provider-sandbox"

export { recordingResponse } from "./recording-response"

/**
 * A small in-memory stand-in for the pieces of Medusa's container that
 * settlement (src/checkout) and the callback and return routes resolve: the
 * payment module (sessions, collections, providers), `query.graph` over the
 * cart links, the locking module, the cart-completion workflow and the
 * logger. Only what that code uses, kept as Medusa 2.21 behaves where it
 * matters to the outcome:
 * - `retrievePaymentSession` throws NOT_FOUND for a session it lacks;
 * - `updatePaymentSession` hands the data to the provider's updatePayment and
 *   stores what it returns, and writes `metadata` as given (left out, cleared);
 *   the module's own `paymentSessionService_.update` writes only the columns
 *   it is given;
 * - completing a cart authorizes its session with the provider (refused
 *   unless authorized or captured) and makes one order per cart; a cart that
 *   is already an order answers that order (Medusa's own completion guard);
 * - locks are real: `execute` runs one holder per key at a time;
 * - `query.graph` answers only the `fields` asked for, and
 *   `listPaymentProviders` honours `is_enabled` (disabledProviders);
 * - the cache module (Modules.CACHE) keeps JSON copies in memory, as Medusa's
 *   in-memory and Redis caches hand back what was stored, not the object.
 * The provider is a real CardServiceProviderService (on the in-process
 * sandbox, tests/helpers/provider-sandbox.ts).
 *
 * The workflow is reached through jest.mock of @medusajs/medusa/core-flows in
 * the spec: `jest.mock("@medusajs/medusa/core-flows", () => fakeCoreFlows)`.
 */

export type FakeSession = {
  id: string
  provider_id: string
  amount: number
  currency_code: string
  data: Record<string, unknown>
  metadata: Record<string, unknown> | null
  payment_collection_id: string
  status?: string
  /** Set when Medusa authorized the session (it then has a payment). */
  authorized_at?: Date | null
}

type Waiter = () => void

/** Medusa's locking module, in memory: one holder per key. */
export class FakeLocking {
  private readonly owners_ = new Map<string, string>()
  private readonly queues_ = new Map<string, Waiter[]>()
  /** Keys `execute` ran under, in order (to see what was serialized). */
  readonly executed: string[] = []

  /**
   * Milliseconds per second of a lock's `timeout` (Medusa's wait for the
   * lock, in seconds): 1000 as Medusa, less so a test need not wait 30 s.
   */
  msPerTimeoutSecond = 1000

  async execute<T>(key: string, job: () => Promise<T>, options?: { timeout?: number }): Promise<T> {
    this.executed.push(key)
    const owner = `execute:${Math.random()}`
    const deadline = options?.timeout ? Date.now() + options.timeout * this.msPerTimeoutSecond : Infinity
    while (!this.tryTake(key, owner)) {
      const wait = deadline - Date.now()
      if (wait <= 0) throw new Error(`Timed-out acquiring lock: ${key}`)
      await new Promise<void>((resolve) => {
        const queue = this.queue(key)
        const timer = Number.isFinite(wait) ? setTimeout(wake, wait) : undefined
        function wake() {
          clearTimeout(timer)
          const at = queue.indexOf(wake)
          if (at >= 0) queue.splice(at, 1)
          resolve()
        }
        queue.push(wake)
      })
    }
    try {
      return await job()
    } finally {
      this.free(key)
    }
  }

  async acquire(key: string, { ownerId }: { ownerId: string; expire?: number }): Promise<void> {
    if (!this.tryTake(key, ownerId)) {
      throw new Error(`lock ${key} is held by another owner`)
    }
  }

  async release(key: string, { ownerId }: { ownerId: string }): Promise<boolean> {
    if (this.owners_.get(key) !== ownerId) return false
    this.free(key)
    return true
  }

  isHeld(key: string): boolean {
    return this.owners_.has(key)
  }

  private tryTake(key: string, owner: string): boolean {
    const holder = this.owners_.get(key)
    if (holder !== undefined && holder !== owner) return false
    this.owners_.set(key, owner)
    return true
  }

  private free(key: string): void {
    this.owners_.delete(key)
    this.queue(key)[0]?.()
  }

  private queue(key: string): Waiter[] {
    if (!this.queues_.has(key)) this.queues_.set(key, [])
    return this.queues_.get(key)!
  }
}

/** Medusa's cache module (ICacheService), in memory; set `fail` to make every call throw. */
export class FakeCache {
  readonly entries = new Map<string, { json: string; ttl?: number }>()
  fail: Error | null = null

  async get<T>(key: string): Promise<T | null> {
    if (this.fail) throw this.fail
    const entry = this.entries.get(key)
    return entry ? (JSON.parse(entry.json) as T) : null
  }

  async set(key: string, data: unknown, ttl?: number): Promise<void> {
    if (this.fail) throw this.fail
    this.entries.set(key, { json: JSON.stringify(data), ttl })
  }

  async invalidate(key: string): Promise<void> {
    if (this.fail) throw this.fail
    this.entries.delete(key)
  }
}

const notFound = (what: string) => new MedusaError(MedusaError.Types.NOT_FOUND, `${what} was not found`)

/** The payment module's part settlement uses. */
export class FakePaymentModule {
  readonly sessions = new Map<string, FakeSession>()
  readonly collections = new Map<string, { id: string; metadata: Record<string, unknown> | null }>()
  readonly providers = new Map<string, CardServiceProviderService>()
  /** Providers the store disabled (Medusa's `is_enabled: false`). */
  readonly disabledProviders = new Set<string>()
  /** Set to make the next retrievePaymentSession calls fail as a database outage would. */
  failRetrieve: Error | null = null

  readonly paymentProviderService_ = {
    retrieveProvider: (id: string) => this.providers.get(id),
  }

  /** The module's own session service: writes only the columns it is given. */
  readonly paymentSessionService_ = {
    update: async ({
      id,
      ...columns
    }: {
      id: string
      metadata?: Record<string, unknown>
      data?: Record<string, unknown>
      status?: string
    }) => {
      const session = this.session(id)
      if (columns.metadata !== undefined) session.metadata = columns.metadata
      if (columns.data !== undefined) session.data = columns.data
      if (columns.status !== undefined) session.status = columns.status
    },
  }

  async retrievePaymentSession(id: string): Promise<FakeSession> {
    if (this.failRetrieve) throw this.failRetrieve
    const session = this.sessions.get(id)
    if (!session) throw notFound(`Payment session ${id}`)
    return { ...session, data: { ...session.data } }
  }

  /** With `select`, only those columns (as Medusa's list does). */
  async listPaymentSessions(filter: { id: string }, config: { select?: string[] } = {}): Promise<FakeSession[]> {
    const session = this.sessions.get(filter.id)
    if (!session) return []
    const { select } = config
    if (!select) return [{ ...session }]
    return [Object.fromEntries(select.filter((c) => c in session).map((c) => [c, session[c as keyof FakeSession]])) as FakeSession]
  }

  async updatePaymentSession(input: {
    id: string
    amount: number
    currency_code: string
    data: Record<string, unknown>
    metadata?: Record<string, unknown>
  }): Promise<FakeSession> {
    const session = this.session(input.id)
    // Medusa 2.21 writes `metadata: input.metadata`: left out, the column is cleared.
    session.metadata = input.metadata ?? null
    const { data } = await this.provider(session).updatePayment({
      amount: input.amount,
      currency_code: input.currency_code,
      data: input.data,
      context: { idempotency_key: session.id },
    } as never)
    session.data = data as Record<string, unknown>
    return session
  }

  /** Honours the `is_enabled` filter, as Medusa's listPaymentProviders does. */
  async listPaymentProviders(filter: { is_enabled?: boolean } = {}): Promise<{ id: string }[]> {
    return [...this.providers.keys()]
      .filter((id) => filter.is_enabled === undefined || filter.is_enabled === !this.disabledProviders.has(id))
      .map((id) => ({ id }))
  }

  async listPaymentCollections(filter: { id: string }) {
    const collection = this.collections.get(filter.id)
    return collection ? [{ ...collection }] : []
  }

  async updatePaymentCollections(id: string, update: { metadata: Record<string, unknown> }) {
    const collection = this.collections.get(id)
    if (collection) collection.metadata = update.metadata
  }

  /** Medusa's authorizePaymentSession: the provider decides, anything but authorized is refused. */
  /** Counted, as Medusa's is idempotent: an authorized session is answered without the provider. */
  authorizations = 0

  async authorizePaymentSession(id: string): Promise<void> {
    const session = this.session(id)
    if (session.authorized_at) return
    this.authorizations++
    const { status, data } = await this.provider(session).authorizePayment({
      data: session.data,
      context: { idempotency_key: session.id },
    } as never)
    session.data = (data ?? session.data) as Record<string, unknown>
    // Medusa 2.17.2+: authorization deferred (an order on hold), no payment yet.
    if (status === "pending_authorization") {
      session.status = status
      return
    }
    if (status !== "authorized" && status !== "captured") {
      throw new MedusaError(MedusaError.Types.NOT_ALLOWED, `Session: ${id} was not authorized with the provider.`)
    }
    session.status = "authorized"
    session.authorized_at = new Date()
  }

  session(id: string): FakeSession {
    const session = this.sessions.get(id)
    if (!session) throw notFound(`Payment session ${id}`)
    return session
  }

  private provider(session: FakeSession): CardServiceProviderService {
    const provider = this.providers.get(session.provider_id)
    if (!provider) throw notFound(`Payment provider ${session.provider_id}`)
    return provider
  }
}

type Cart = { id: string; email: string | null; locale: string | null; collectionId: string }

/** Carts, their payment collections and their orders, as query.graph reads them. */
export class FakeCarts {
  readonly carts = new Map<string, Cart>()
  /** cart id → order id */
  readonly orders = new Map<string, string>()
  /** Each completion the workflow was asked for, by cart id. */
  readonly completions: string[] = []
  /** Set to make query.graph fail (a database outage). */
  failQuery: Error | null = null
  private orderCount_ = 0
  private readonly placedAt_ = new Map<string, Date>()

  constructor(private readonly payments_: FakePaymentModule) {}

  readonly query = {
    graph: async (input: { entity: string; fields: string[]; filters: Record<string, string> }) => {
      const { data } = await this.rows(input)
      // As Medusa's query.graph: only the fields asked for.
      return { data: data.map((row) => Object.fromEntries(input.fields.filter((f) => f in row).map((f) => [f, row[f]]))) }
    },
  }

  private async rows({ entity, filters }: { entity: string; filters: Record<string, string> }): Promise<{ data: Record<string, unknown>[] }> {
    {
      if (this.failQuery) throw this.failQuery
      switch (entity) {
        case "cart_payment_collection":
          return {
            data: [...this.carts.values()]
              .filter((c) => c.collectionId === filters.payment_collection_id)
              .map((c) => ({ cart_id: c.id })),
          }
        case "cart": {
          const cart = this.carts.get(filters.id)
          return { data: cart ? [{ id: cart.id, email: cart.email, locale: cart.locale }] : [] }
        }
        case "order_cart": {
          const order = this.orders.get(filters.cart_id)
          return { data: order ? [{ order_id: order }] : [] }
        }
        case "order": {
          // Orders are placed and never changed here (no fulfilment, no cancel).
          const placed = [...this.orders.values()].includes(filters.id)
          return { data: placed ? [{ id: filters.id, status: "pending", created_at: this.placedAt_.get(filters.id) }] : [] }
        }
        default:
          throw new Error(`fake query.graph knows no entity ${entity}`)
      }
    }
  }

  hasOrder(orderId: string): boolean {
    return [...this.orders.values()].includes(orderId)
  }

  /** completeCartWorkflow: the cart's card session authorized, then one order per cart. */
  async complete(cartId: string): Promise<{ id: string }> {
    this.completions.push(cartId)
    const existing = this.orders.get(cartId)
    if (existing) return { id: existing }
    const cart = this.carts.get(cartId)
    if (!cart) throw notFound(`Cart ${cartId}`)
    const session = [...this.payments_.sessions.values()].find(
      (s) => s.payment_collection_id === cart.collectionId
    )
    if (!session) throw new MedusaError(MedusaError.Types.NOT_ALLOWED, "the cart has no payment session")
    await this.payments_.authorizePaymentSession(session.id)
    const raced = this.orders.get(cartId)
    if (raced) {
      throw new MedusaError(MedusaError.Types.CONFLICT, `cart ${cartId} is being completed`)
    }
    const orderId = `order_${++this.orderCount_}`
    this.orders.set(cartId, orderId)
    this.placedAt_.set(orderId, new Date())
    return { id: orderId }
  }
}

export type FakeMedusa = {
  container: { resolve: <T = any>(key: string) => T }
  payments: FakePaymentModule
  carts: FakeCarts
  locking: FakeLocking
  cache: FakeCache
  logger: ReturnType<typeof recordingLogger>
  /** Registers a card-service provider under Medusa's id pp_card-service_<id>. */
  addProvider: (provider: CardServiceProviderService, id?: string) => string
  /**
   * A cart with a payment collection and one session of the provider, with
   * the data initiatePayment returned. Returns the ids.
   */
  addCart: (input: {
    providerId: string
    sessionId: string
    data: Record<string, unknown>
    amount?: number
    currencyCode?: string
    email?: string | null
    locale?: string | null
  }) => { cartId: string; collectionId: string }
}

let carts = 0

export function fakeMedusa(): FakeMedusa {
  const payments = new FakePaymentModule()
  const cartStore = new FakeCarts(payments)
  const locking = new FakeLocking()
  const cache = new FakeCache()
  const logger = recordingLogger()
  const registry: Record<string, unknown> = {
    payment: payments,
    locking,
    [Modules.CACHE]: cache,
    query: cartStore.query,
    logger,
    fakeCarts: cartStore,
    // The order module as order-payment.ts asks it whether an order exists; orders here are never deleted.
    [Modules.ORDER]: {
      listOrders: async ({ id }: { id: string }) => (cartStore.hasOrder(id) ? [{ id }] : []),
    },
  }
  const container = {
    resolve: <T = any>(key: string): T => {
      if (!(key in registry)) throw new Error(`fake Medusa container has no ${key}`)
      return registry[key] as T
    },
  }
  return {
    container,
    payments,
    carts: cartStore,
    locking,
    cache,
    logger,
    addProvider: (provider, id = "default") => {
      const providerId = `pp_card-service_${id}`
      payments.providers.set(providerId, provider)
      return providerId
    },
    addCart: ({ providerId, sessionId, data, amount = 30, currencyCode = "eur", email = "ada@example.com", locale = null }) => {
      const n = ++carts
      const cartId = `cart_${n}`
      const collectionId = `pay_col_${n}`
      payments.collections.set(collectionId, { id: collectionId, metadata: null })
      payments.sessions.set(sessionId, {
        id: sessionId,
        provider_id: providerId,
        amount,
        currency_code: currencyCode,
        data,
        metadata: null,
        payment_collection_id: collectionId,
      })
      cartStore.carts.set(cartId, { id: cartId, email, locale, collectionId })
      return { cartId, collectionId }
    },
  }
}

/**
 * Stands in for @medusajs/medusa/core-flows (jest.mock in the spec): the one
 * workflow settlement runs, completing the cart through the container's fake.
 */
export const fakeCoreFlows = {
  completeCartWorkflow: (container: { resolve: (key: string) => unknown }) => ({
    run: async ({ input }: { input: { id: string } }) => ({
      result: await (container.resolve("fakeCarts") as FakeCarts).complete(input.id),
    }),
  }),
}

/** A route's request on the fake container. */
export function routeRequest(
  medusa: FakeMedusa,
  sessionId: string,
  input: { query?: Record<string, unknown>; body?: unknown; headers?: Record<string, string> } = {}
) {
  return {
    scope: medusa.container,
    params: { session_id: sessionId },
    query: input.query ?? {},
    body: input.body,
    headers: input.headers ?? {},
  } as never
}
