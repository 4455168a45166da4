import { MedusaError, Modules } from "@medusajs/framework/utils"
import type CardServiceProviderService from "../../src/providers/card-service/service"
import { recordingLogger } from "./provider-sandbox"

export { recordingResponse } from "./recording-response"

/**
 * A small in-memory stand-in for the pieces of Medusa's container that
 * settlement (src/checkout) and the callback and return routes resolve: the
 * payment module (sessions, collections, providers), `query.graph` over the
 * cart links and orders, the order module, the event bus, the locking
 * module, the workflows settlement runs (completing a cart, canceling an
 * order on hold, authorizing its payment) and the logger. Only what that code uses, kept as Medusa 2.21 behaves where it
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
 *   in-memory and Redis caches hand back what was stored, not the object;
 * - orders (FakeOrderModule) keep their status and placing time; the order
 *   module allows one active (pending or requested) order change per order,
 *   and cancels only an active one; cancelOrderWorkflow refuses an order
 *   canceled or completed, or with a fulfillment not canceled, and records
 *   its credit line in an order change it creates and confirms, so any active
 *   change makes it fail ("already has an existing active order change");
 * - authorizePaymentSessionForOrderWorkflow refuses a session not in
 *   `pending_authorization`, then authorizes it as the payment module does;
 * - the event bus (Modules.EVENT_BUS) keeps what was emitted;
 * - an order's own payment collection (addOrderBalance: what an order edit
 *   left owing) is linked to the order and to no cart, with Medusa's status
 *   and amount, and authorizing its session marks it authorized.
 * The provider is a real CardServiceProviderService (on the in-process
 * sandbox, tests/helpers/provider-sandbox.ts).
 *
 * The workflows are reached through jest.mock of @medusajs/medusa/core-flows in
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
  /** The lease (`expire`, seconds) each key was last taken with: how long it outlives a holder that died. */
  readonly leases = new Map<string, number | undefined>()

  /**
   * Milliseconds per second of a lock's `timeout` (Medusa's wait for the
   * lock, in seconds): 1000 as Medusa, less so a test need not wait 30 s.
   */
  msPerTimeoutSecond = 1000

  async execute<T>(key: string, job: () => Promise<T>, options?: { timeout?: number; expire?: number }): Promise<T> {
    this.executed.push(key)
    this.leases.set(key, options?.expire)
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
  readonly collections = new Map<
    string,
    {
      id: string
      metadata: Record<string, unknown> | null
      /** An order's own collection (addOrderBalance): what query.graph reads of it. */
      status?: string
      amount?: number
      currency_code?: string
    }
  >()
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
    // maybeUpdatePaymentCollection_: one session for the whole amount.
    const collection = this.collections.get(session.payment_collection_id)
    if (collection?.status) collection.status = "authorized"
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

export type FakeOrder = {
  id: string
  email?: string | null
  status: "pending" | "completed" | "canceled"
  created_at: Date
  /** Medusa will not cancel an order with a fulfillment that is not canceled. */
  fulfillments: { canceled_at: Date | null }[]
}

export type FakeOrderChange = {
  id: string
  order_id: string
  change_type: string
  status: "pending" | "requested" | "confirmed" | "canceled" | "declined"
  created_at: Date
}

const ACTIVE_CHANGE = ["pending", "requested"]

/** The order module's part the checkout uses, and what cancelOrderWorkflow does to an order. */
export class FakeOrderModule {
  readonly orders = new Map<string, FakeOrder>()
  readonly changes: FakeOrderChange[] = []
  /** Orders cancelOrderWorkflow canceled, in order (Medusa emits order.canceled for each). */
  readonly canceled: string[] = []
  private changeCount_ = 0

  constructor(private readonly events_: FakeEventBus) {}

  async listOrders({ id }: { id: string }): Promise<{ id: string }[]> {
    return this.orders.has(id) ? [{ id }] : []
  }

  /**
   * As Medusa's createOrderChange: refused while the order has an active
   * change. `created_at` lets a test leave one behind as a dead workflow would.
   */
  createOrderChange(input: { order_id: string; change_type: string; created_at?: Date }): FakeOrderChange {
    if (!this.orders.has(input.order_id)) {
      throw new MedusaError(MedusaError.Types.INVALID_DATA, `Order could not be found: ${input.order_id}`)
    }
    if (this.changes.some((c) => c.order_id === input.order_id && ACTIVE_CHANGE.includes(c.status))) {
      throw new MedusaError(MedusaError.Types.INVALID_DATA, `Order (${input.order_id}) already has an existing active order change`)
    }
    const change: FakeOrderChange = {
      id: `ordch_${++this.changeCount_}`,
      order_id: input.order_id,
      change_type: input.change_type,
      status: "pending",
      created_at: input.created_at ?? new Date(),
    }
    this.changes.push(change)
    return change
  }

  /** Filters by equality, or by membership for an array; with `select`, only those columns. */
  async listOrderChanges(filter: Record<string, unknown>, config: { select?: string[] } = {}): Promise<Partial<FakeOrderChange>[]> {
    const matches = (change: FakeOrderChange) =>
      Object.entries(filter).every(([key, wanted]) => {
        const value = change[key as keyof FakeOrderChange]
        return Array.isArray(wanted) ? wanted.includes(value) : value === wanted
      })
    const { select } = config
    return this.changes
      .filter(matches)
      .map((c) => (select ? Object.fromEntries(select.filter((k) => k in c).map((k) => [k, c[k as keyof FakeOrderChange]])) : { ...c }))
  }

  /** As Medusa's: every id must name an active change, or nothing is canceled. */
  async cancelOrderChange(ids: string | string[]): Promise<void> {
    const list = Array.isArray(ids) ? ids : [ids]
    const found = list.map((id) => this.changes.find((c) => c.id === id))
    const missing = list.filter((_, i) => !found[i])
    if (missing.length) throw new MedusaError(MedusaError.Types.INVALID_DATA, `Order Change could not be found: ${missing.join(", ")}`)
    const inactive = found.filter((c) => !ACTIVE_CHANGE.includes(c!.status)).map((c) => c!.id)
    if (inactive.length) throw new MedusaError(MedusaError.Types.INVALID_DATA, `Order Change cannot be modified: ${inactive.join(", ")}.`)
    for (const change of found) change!.status = "canceled"
  }

  /** Errors the next cancels throw before doing anything, one each (a dropped connection, a lock not had). */
  readonly cancelFailures: Error[] = []

  /** cancelOrderWorkflow (Medusa 2.21): its validation, then the credit-line change, then the order canceled. */
  async cancelOrder(orderId: string): Promise<void> {
    const failure = this.cancelFailures.shift()
    if (failure) throw failure
    const order = this.orders.get(orderId)
    if (!order) throw notFound(`Order ${orderId}`)
    if (order.status === "canceled") {
      throw new MedusaError(MedusaError.Types.INVALID_DATA, `Order with id ${orderId} has been canceled.`)
    }
    if (order.status === "completed") {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        "Cannot cancel a completed order. Please use the return process to handle refunds or exchanges."
      )
    }
    if (order.fulfillments.some((f) => !f.canceled_at)) {
      throw new MedusaError(MedusaError.Types.NOT_ALLOWED, "All fulfillments must be canceled before canceling an order")
    }
    // createOrderRefundCreditLinesWorkflow: created, then confirmed.
    this.createOrderChange({ order_id: orderId, change_type: "credit_line" }).status = "confirmed"
    order.status = "canceled"
    this.canceled.push(orderId)
    await this.events_.emit({ name: "order.canceled", data: { id: orderId } })
  }
}

/** The event bus: what was emitted, in order. */
export class FakeEventBus {
  readonly emitted: { name: string; data: unknown }[] = []

  async emit(message: { name: string; data: unknown } | { name: string; data: unknown }[]): Promise<void> {
    for (const one of Array.isArray(message) ? message : [message]) this.emitted.push({ name: one.name, data: one.data })
  }

  /** The events whose name starts with the prefix. */
  named(prefix: string): { name: string; data: unknown }[] {
    return this.emitted.filter((e) => e.name.startsWith(prefix))
  }
}

/** Links of carts to orders; linking places the order (pending, now) when the order module lacks it. */
class OrderLinks extends Map<string, string> {
  constructor(private readonly module_: FakeOrderModule) {
    super()
  }

  override set(cartId: string, orderId: string): this {
    if (!this.module_.orders.has(orderId)) {
      this.module_.orders.set(orderId, { id: orderId, status: "pending", created_at: new Date(), fulfillments: [] })
    }
    return super.set(cartId, orderId)
  }
}

/** Carts, their payment collections and their orders, as query.graph reads them. */
export class FakeCarts {
  readonly carts = new Map<string, Cart>()
  /**
   * cart id → order id (the cart's link). A test that links a cart to an
   * order (a completion that died after making it) makes that order too.
   */
  readonly orders: Map<string, string>
  /** Each completion the workflow was asked for, by cart id. */
  readonly completions: string[] = []
  /** payment collection id → order id, for collections of an order with no cart (addOrderBalance). */
  readonly orderCollections = new Map<string, string>()
  /** Set to make query.graph fail (a database outage). */
  failQuery: Error | null = null
  private orderCount_ = 0

  constructor(
    private readonly payments_: FakePaymentModule,
    private readonly orders_: FakeOrderModule
  ) {
    this.orders = new OrderLinks(orders_)
  }

  /** A cart's payment collection → its order, for completions the fake made (Medusa links both). */
  readonly linkedCollections = new Map<string, string>()

  /** Medusa's link module, as order-payment.ts uses it: order ↔ payment collection links. */
  readonly link = {
    create: async (definition: Record<string, Record<string, string>>) => {
      const orderId = definition[Modules.ORDER]?.order_id
      const collectionId = definition[Modules.PAYMENT]?.payment_collection_id
      if (orderId && collectionId) this.linkedCollections.set(collectionId, orderId)
    },
  }

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
          const order = this.orders_.orders.get(filters.id)
          return { data: order ? [{ ...order }] : [] }
        }
        // An order's own payment collection (an order edit's outstanding amount): no cart.
        case "order_payment_collection": {
          const orderId = this.orderCollections.get(filters.payment_collection_id) ?? this.linkedCollections.get(filters.payment_collection_id)
          return { data: orderId ? [{ order_id: orderId }] : [] }
        }
        case "payment_collection": {
          const collection = this.payments_.collections.get(filters.id)
          return { data: collection ? [{ ...collection }] : [] }
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
    return { id: orderId }
  }
}

export type FakeMedusa = {
  container: { resolve: <T = any>(key: string) => T }
  payments: FakePaymentModule
  carts: FakeCarts
  orders: FakeOrderModule
  events: FakeEventBus
  locking: FakeLocking
  cache: FakeCache
  logger: ReturnType<typeof recordingLogger>
  /** Registers a card-service provider under Medusa's id pp_card-service_<id>. */
  addProvider: (provider: CardServiceProviderService, id?: string) => string
  /**
   * A cart with a payment collection and one session of the provider, with
   * the data initiatePayment returned. Returns the ids.
   */
  addCart: (input: SessionInput & { locale?: string | null }) => { cartId: string; collectionId: string }
  /**
   * What an order edit left owing: a placed order (pending) with a payment
   * collection of its own, linked to no cart, and one session of the
   * provider on it. Returns the ids.
   */
  addOrderBalance: (
    input: SessionInput & {
      /** The collection's status (Medusa's: not_paid until a session is authorized). */
      status?: string
    }
  ) => { orderId: string; collectionId: string }
}

/** The one session addCart and addOrderBalance put on the collection they make. */
type SessionInput = {
  providerId: string
  sessionId: string
  data: Record<string, unknown>
  amount?: number
  currencyCode?: string
  email?: string | null
}

let carts = 0

export function fakeMedusa(): FakeMedusa {
  const payments = new FakePaymentModule()
  const events = new FakeEventBus()
  const orders = new FakeOrderModule(events)
  const cartStore = new FakeCarts(payments, orders)
  const locking = new FakeLocking()
  const cache = new FakeCache()
  const logger = recordingLogger()
  const registry: Record<string, unknown> = {
    payment: payments,
    locking,
    [Modules.CACHE]: cache,
    query: cartStore.query,
    link: cartStore.link,
    logger,
    fakeCarts: cartStore,
    // Orders here are never deleted: order-payment.ts always finds the order.
    [Modules.ORDER]: orders,
    [Modules.EVENT_BUS]: events,
  }
  /** A new session on a collection, with no metadata yet, as the payment module makes it. */
  const addSession = (session: Omit<FakeSession, "metadata">) => {
    payments.sessions.set(session.id, { ...session, metadata: null })
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
    orders,
    events,
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
      addSession({ id: sessionId, provider_id: providerId, amount, currency_code: currencyCode, data, payment_collection_id: collectionId })
      cartStore.carts.set(cartId, { id: cartId, email, locale, collectionId })
      return { cartId, collectionId }
    },
    addOrderBalance: ({ providerId, sessionId, data, amount = 12.5, currencyCode = "eur", email = "ada@example.com", status = "not_paid" }) => {
      const n = ++carts
      const orderId = `order_placed_${n}`
      const collectionId = `pay_col_${n}`
      orders.orders.set(orderId, { id: orderId, email, status: "pending", created_at: new Date(), fulfillments: [] })
      payments.collections.set(collectionId, { id: collectionId, metadata: null, status, amount, currency_code: currencyCode })
      addSession({
        id: sessionId,
        provider_id: providerId,
        amount,
        currency_code: currencyCode,
        data,
        payment_collection_id: collectionId,
        status: "pending",
      })
      cartStore.orderCollections.set(collectionId, orderId)
      return { orderId, collectionId }
    },
  }
}

type Resolver = { resolve: (key: string) => unknown }

/**
 * Stands in for @medusajs/medusa/core-flows (jest.mock in the spec): the
 * workflows settlement runs, each on the container's fakes.
 */
export const fakeCoreFlows = {
  completeCartWorkflow: (container: Resolver) => ({
    run: async ({ input }: { input: { id: string } }) => ({
      result: await (container.resolve("fakeCarts") as FakeCarts).complete(input.id),
    }),
  }),
  cancelOrderWorkflow: (container: Resolver) => ({
    run: async ({ input }: { input: { order_id: string } }) => {
      await (container.resolve(Modules.ORDER) as FakeOrderModule).cancelOrder(input.order_id)
      return { result: undefined }
    },
  }),
  authorizePaymentSessionForOrderWorkflow: (container: Resolver) => ({
    run: async ({ input }: { input: { payment_session_id: string } }) => {
      const payments = container.resolve(Modules.PAYMENT) as FakePaymentModule
      const session = payments.session(input.payment_session_id)
      if (session.status !== "pending_authorization") {
        throw new MedusaError(
          MedusaError.Types.NOT_ALLOWED,
          `Payment session ${session.id} is not in pending_authorization status`
        )
      }
      await payments.authorizePaymentSession(session.id)
      return { result: { id: `pay_${session.id}` } }
    },
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
