/**
 * The store owner in the soak: logs in as the seed's admin, acts on some
 * orders while the run goes on (so its actions meet the faults too), and
 * runs the reconciliation sweep on each instance at the end.
 *
 * Its actions, each through Medusa's own admin API as an owner does it:
 * two full refunds sent at once, or the order's cancel (issue 33); and what
 * an owner does after the checkout (issue 40): capture part of a payment
 * captured by hand, then sometimes try to capture the rest (the card
 * service allows one capture per approval); edit an order down before its
 * capture, then capture the new total; a return with the refund of what is
 * due; an exchange for a cheaper or a dearer item, refunding what is due.
 */
import { request } from "undici"
import { AUTHORIZE_ONLY_PROVIDER_ID, CARD_PROVIDER_ID, type Cluster } from "./load-cluster"
import { seededRandom } from "./soak-faults"
import { followOnReference } from "../../src/providers/card-service/merchant-reference"

/** The admin the cluster's seed creates (load-cluster.ts). */
const ADMIN = { email: "admin@example.com", password: "supersecret" }

export type AdminAction =
  | "refund-twice"
  | "cancel"
  | "capture-part"
  | "capture-part-then-rest"
  | "edit-then-capture"
  | "return-refund"
  | "exchange"

/**
 * Issue 40's actions, as shares of all checkouts, drawn from the owner's own
 * stream of the run's seed (ownerPlans) for the checkouts the run's older
 * draw left without an action (refund-twice 3%, cancel 2%: bench-soak.ts).
 */
export const AFTER_CHECKOUT_SHARE: Record<Exclude<AdminAction, "refund-twice" | "cancel">, number> = {
  "capture-part": 0.05,
  "capture-part-then-rest": 0.04,
  "edit-then-capture": 0.05,
  "return-refund": 0.05,
  exchange: 0.04,
}

/** Actions on a payment the owner captures by hand: their shoppers pay with the authorize-only provider. */
export const MANUAL_CAPTURE_ACTIONS: ReadonlySet<AdminAction> = new Set(["capture-part", "capture-part-then-rest", "edit-then-capture"])

/** An action for one checkout, with the numbers in [0, 1) its amounts and picks are drawn from. */
export type OwnerPlan = { action: AdminAction; draws: number[] }

/** Numbers drawn for every checkout, whether it gets an action or not, so the stream stays in step. */
const DRAWS_PER_CHECKOUT = 4

/**
 * The owner's plans, one call per arriving checkout, from a stream of the
 * run's seed of its own (the shoppers' mix and the older actions' draws do
 * not move): `earlier` is the action the run's older draw gave the checkout.
 */
export function ownerPlans(seed: number): (earlier: AdminAction | null) => OwnerPlan | null {
  const random = seededRandom((seed ^ 0x0e40_0a) >>> 0)
  return (earlier) => {
    const [pick, ...draws] = Array.from({ length: DRAWS_PER_CHECKOUT }, () => random())
    if (earlier) return { action: earlier, draws }
    let at = pick
    for (const [action, share] of Object.entries(AFTER_CHECKOUT_SHARE) as Array<[AdminAction, number]>) {
      at -= share
      if (at < 0) return { action, draws }
    }
    return null
  }
}

/** The provider a checkout pays with: the authorize-only one when the owner is to capture by hand. */
export const providerFor = (plan: OwnerPlan | null) =>
  plan && MANUAL_CAPTURE_ACTIONS.has(plan.action) ? AUTHORIZE_ONLY_PROVIDER_ID : CARD_PROVIDER_ID

/** An admin call's answer; status 0 when none came (the connection failed). */
type Answer = { status: number; json: any }

/** A step that did not succeed: the action stops there, named by its step and status. */
class StepFailed extends Error {
  constructor(
    readonly step: string,
    readonly answer: Answer
  ) {
    super(`${step} ${answer.status}`)
  }
}

/** How long an owner waits before trying again a capture or refund the store answered 5xx or not at all. */
const RETRY_AFTER_MS = 3_000

/** Cents: the soak's store sells in EUR. */
const cents = (amount: number) => Math.round(amount * 100) / 100

export function storeOwner(cluster: Cluster) {
  let token: Promise<string> | null = null
  /** Payments an action is working on (soak-invariants.ts does not judge them meanwhile). */
  const busy = new Map<string, number>()
  let locationId: Promise<string> | null = null

  const login = async () => {
    const answer = await request(`${cluster.proxyUrl}/auth/user/emailpass`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(ADMIN),
    })
    const body = (await answer.body.json()) as { token?: string }
    if (!body.token) throw new Error(`admin login answered ${answer.statusCode}`)
    return body.token
  }
  const call = async (base: string, path: string, body: unknown = {}, method: "GET" | "POST" | "DELETE" = "POST"): Promise<Answer> => {
    token ??= login().catch((error) => {
      token = null
      throw error
    })
    const answer = await request(`${base}${path}`, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${await token}` },
      body: method === "GET" ? undefined : JSON.stringify(body),
      headersTimeout: 120_000,
      bodyTimeout: 120_000,
    })
    const text = await answer.body.text()
    let json: any = {}
    try {
      json = text ? JSON.parse(text) : {}
    } catch {
      json = { message: text.slice(0, 200) }
    }
    return { status: answer.statusCode, json }
  }
  /** An admin call through the proxy; a connection that fails is answered status 0. */
  const admin = (path: string, body: unknown = {}, method: "GET" | "POST" | "DELETE" = "POST") =>
    call(cluster.proxyUrl, path, body, method).catch((e: Error) => ({ status: 0, json: { message: e.message } }))

  /** The order of `cartId` and its live card-service payment, captured or not. */
  const paymentOf = async (cartId: string) => {
    const [row] = await cluster.query(
      `SELECT oc.order_id, p.id AS payment_id, p.amount, p.captured_at, p.provider_id,
              (SELECT coalesce(sum(c.amount), 0) FROM capture c WHERE c.payment_id = p.id AND c.deleted_at IS NULL) AS captured
         FROM order_cart oc
         JOIN order_payment_collection opc ON opc.order_id = oc.order_id AND opc.deleted_at IS NULL
         JOIN payment p ON p.payment_collection_id = opc.payment_collection_id AND p.deleted_at IS NULL
        WHERE oc.cart_id = $1 AND oc.deleted_at IS NULL AND p.canceled_at IS NULL
        ORDER BY p.created_at DESC LIMIT 1`,
      [cartId]
    )
    return row
      ? {
          orderId: row.order_id as string,
          paymentId: row.payment_id as string,
          amount: Number(row.amount),
          fullyCaptured: row.captured_at !== null,
          captured: Number(row.captured),
          providerId: row.provider_id as string,
        }
      : null
  }

  const location = () =>
    (locationId ??= cluster
      .query("SELECT id FROM stock_location WHERE deleted_at IS NULL ORDER BY created_at LIMIT 1")
      .then(([row]) => {
        if (!row) throw new Error("no stock location")
        return row.id as string
      })
      .catch((error) => {
        locationId = null
        throw error
      }))

  /** Runs one action's steps, each noted; the first that fails ends it. */
  const steps = (note: (line: string) => void) => {
    const step = async (name: string, path: string, body: unknown = {}, method: "GET" | "POST" | "DELETE" = "POST") => {
      const answer = await admin(path, body, method)
      if (answer.status < 200 || answer.status >= 300) {
        note(`${name} ${answer.status}: ${String(answer.json?.message ?? "").slice(0, 300)}`)
        throw new StepFailed(name, answer)
      }
      return answer.json
    }
    /**
     * A capture or refund the store answered 5xx or not at all is tried once
     * more, as an owner presses the button again: a provider that moved the
     * money the first time must not move it twice. Its statuses, "500 then 200".
     */
    const money = async (name: string, path: string, amount: number): Promise<string> => {
      const first = await admin(path, { amount })
      note(`${name} ${amount}: ${first.status}${first.status >= 400 ? ` ${String(first.json?.message ?? "").slice(0, 300)}` : ""}`)
      if (first.status !== 0 && first.status < 500) return String(first.status)
      await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_MS))
      const again = await admin(path, { amount })
      note(`${name} ${amount} again: ${again.status}${again.status >= 400 ? ` ${String(again.json?.message ?? "").slice(0, 300)}` : ""}`)
      return `${first.status} then ${again.status}`
    }
    const order = async (orderId: string) =>
      (await step("read order", `/admin/orders/${orderId}?fields=id,total,summary,*items`, {}, "GET")).order
    /** What Medusa says the shopper is owed (positive), from the order's summary. */
    const owed = async (orderId: string) => cents(-Number((await order(orderId)).summary?.pending_difference ?? 0))
    const fulfilAll = async (orderId: string) => {
      const { items } = await order(orderId)
      await step("fulfil", `/admin/orders/${orderId}/fulfillments`, {
        location_id: await location(),
        items: items.map((item: { id: string; quantity: number }) => ({ id: item.id, quantity: Number(item.quantity) })),
      })
      return items as Array<{ id: string; quantity: number; unit_price: number; variant_id: string }>
    }
    const receive = async (returnId: string, items: Array<{ id: string; quantity: number }>) => {
      await step("receive", `/admin/returns/${returnId}/receive`)
      await step("receive items", `/admin/returns/${returnId}/receive-items`, { items })
      await step("confirm receipt", `/admin/returns/${returnId}/receive/confirm`)
    }
    return { step, money, order, owed, fulfilAll, receive }
  }

  /**
   * What docs/admin.md tells the owner to do about a refund the service never
   * answered (booked as of unknown outcome, and no other refund of the
   * payment is sent meanwhile): look its reference up at the card service
   * and say whether it was made. The sandbox's records stand for the card
   * service's own dashboard, which finds a reference; the interface cannot.
   * For one payment, or (null) every card-service payment. How many answered.
   */
  const answerUnknownRefunds = async (paymentId: string | null, note: (line: string) => void): Promise<number> => {
    const rows = await cluster.query(
      `SELECT id, data FROM payment
        WHERE deleted_at IS NULL AND provider_id LIKE 'pp_card-service_%'
          AND data->'transactions' @> '[{"operation":"refund","decision":"UNKNOWN"}]'::jsonb
          ${paymentId ? "AND id = $1" : ""}`,
      paymentId ? [paymentId] : []
    )
    let answered = 0
    for (const row of rows) {
      const data = row.data as { session_id: string; transactions: Array<{ operation: string; decision: string; key?: string; amount: number | null }> }
      for (const entry of data.transactions) {
        if (entry.operation !== "refund" || entry.decision !== "UNKNOWN" || !entry.key) continue
        const reference = followOnReference(data.session_id, entry.key)
        const made = cluster.sandbox
          .transactions()
          .some((r) => r.step === "REFUND" && r.status === "successful" && r.merchantReferenceCode === reference)
        const answer = await admin(`/admin/card-service/payments/${row.id}/unknown-refunds`, { refund_id: entry.key, made })
        note(`unknown refund ${entry.amount}: the card service ${made ? "shows it" : "does not show it"}; answered ${answer.status}`)
        answered += answer.status === 200 ? 1 : 0
      }
    }
    return answered
  }

  /** `plan`'s action on `payment`: a short line saying what it came to. */
  const runAction = async (
    payment: NonNullable<Awaited<ReturnType<typeof paymentOf>>>,
    { action, draws }: OwnerPlan,
    note: (line: string) => void
  ): Promise<string> => {
    const { step, money, order, owed, fulfilAll, receive } = steps(note)
    const { orderId, paymentId, amount } = payment
    const manual = MANUAL_CAPTURE_ACTIONS.has(action)
    if (manual && (payment.captured > 0 || payment.providerId !== AUTHORIZE_ONLY_PROVIDER_ID)) return "already captured"
    if (!manual && !payment.fullyCaptured) return "no captured payment yet"
    switch (action) {
      case "cancel": {
        const answer = await admin(`/admin/orders/${orderId}/cancel`)
        return `cancel ${answer.status}`
      }
      case "refund-twice": {
        // Two full refunds sent at once: one must be refused, by Medusa or by the service.
        const answers = await Promise.all([0, 1].map(() => admin(`/admin/payments/${paymentId}/refund`, { amount })))
        return `refunds ${answers.map((a) => a.status).join(" and ")}`
      }
      case "capture-part":
      case "capture-part-then-rest": {
        // 20% to 80% of the payment, in cents.
        const part = Math.min(cents(amount - 0.01), Math.max(0.01, cents(amount * (0.2 + 0.6 * draws[0]))))
        const first = await money("capture part", `/admin/payments/${paymentId}/capture`, part)
        if (action === "capture-part" || !first.endsWith("200")) return `capture part ${first}`
        // The rest: the service allows one capture per approval, so the provider refuses it and Medusa books nothing.
        const rest = await money("capture the rest", `/admin/payments/${paymentId}/capture`, cents(amount - part))
        return `capture part ${first}, rest ${rest}`
      }
      case "edit-then-capture": {
        const { items } = await order(orderId)
        const item = items[0]
        const unitPrice = Number(item.unit_price)
        // A lower price for the first item (30% to 90% of it): the order's new total is less than the payment.
        const lower = Math.max(0.01, cents(unitPrice * (0.3 + 0.6 * draws[0])))
        await step("begin edit", "/admin/order-edits", { order_id: orderId })
        try {
          await step("edit item", `/admin/order-edits/${orderId}/items/item/${item.id}`, { quantity: Number(item.quantity), unit_price: lower })
          await step("request edit", `/admin/order-edits/${orderId}/request`)
          await step("confirm edit", `/admin/order-edits/${orderId}/confirm`)
        } catch (error) {
          // The edit is dropped, as the admin's "cancel edit" does, so the order is not left being edited.
          await admin(`/admin/order-edits/${orderId}`, {}, "DELETE").then((a) => note(`cancel edit ${a.status}`))
          throw error
        }
        const total = cents(Number((await order(orderId)).total))
        // Medusa 2.21.2 confirms an edit of an order whose collection is only
        // authorized by canceling that payment (the provider reverses the
        // approval) and opening a new collection for the new total
        // (createOrUpdateOrderPaymentCollectionWorkflow): said apart, as the
        // capture that follows is refused for it.
        const [after] = await cluster.query("SELECT canceled_at, data->>'transaction_id' AS approval FROM payment WHERE id = $1", [paymentId])
        const canceled = after?.canceled_at != null
        const reversed = cluster.sandbox
          .transactions()
          .some((t) => t.step === "REVERSAL" && t.reasonCode === "100" && t.originalTransactionId === after?.approval)
        note(
          `edited ${unitPrice} to ${lower}: order total ${total}, payment ${amount}` +
            (canceled ? `, the payment canceled by the edit (its approval reversed at the service: ${reversed ? "yes" : "no"})` : "")
        )
        if (!(total > 0 && total < amount)) return "edit did not lower the total"
        const captured = await money("capture new total", `/admin/payments/${paymentId}/capture`, total)
        return `edit 200${canceled ? " (payment canceled by it)" : ""}, capture new total ${captured}`
      }
      case "return-refund": {
        const [item] = await fulfilAll(orderId)
        const { return: started } = await step("begin return", "/admin/returns", { order_id: orderId, location_id: await location() })
        await step("return item", `/admin/returns/${started.id}/request-items`, { items: [{ id: item.id, quantity: 1 }] })
        await step("request return", `/admin/returns/${started.id}/request`)
        await receive(started.id, [{ id: item.id, quantity: 1 }])
        const due = await owed(orderId)
        note(`due to the shopper after the return: ${due}`)
        if (due <= 0) return "return 200, nothing due"
        return `return 200, refund due ${await money("refund due", `/admin/payments/${paymentId}/refund`, due)}`
      }
      case "exchange": {
        const [item] = await fulfilAll(orderId)
        const unitPrice = Number(item.unit_price)
        // Another variant, cheaper (60%: a refund is due) or dearer (the shopper owes the difference).
        const cheaper = draws[0] < 0.6
        const price = cheaper ? cents(unitPrice * (0.3 + 0.6 * draws[1])) : cents(unitPrice * (1.1 + 0.5 * draws[1]))
        const variants = await cluster.query(
          "SELECT id FROM product_variant WHERE deleted_at IS NULL AND id <> $1 ORDER BY id",
          [item.variant_id]
        )
        const variantId = variants.length ? variants[Math.floor(draws[2] * variants.length)].id : item.variant_id
        const { exchange: started } = await step("begin exchange", "/admin/exchanges", { order_id: orderId })
        await step("exchange inbound", `/admin/exchanges/${started.id}/inbound/items`, {
          location_id: await location(),
          items: [{ id: item.id, quantity: 1 }],
        })
        await step("exchange outbound", `/admin/exchanges/${started.id}/outbound/items`, {
          items: [{ variant_id: variantId, quantity: 1, unit_price: price }],
        })
        const { exchange: requested } = await step("request exchange", `/admin/exchanges/${started.id}/request`)
        await receive(requested.return_id, [{ id: item.id, quantity: 1 }])
        const due = await owed(orderId)
        note(`exchanged ${unitPrice} for ${price}: due to the shopper ${due}`)
        const kind = cheaper ? "exchange for less" : "exchange for more"
        if (due <= 0) return `${kind} 200, nothing refunded`
        return `${kind} 200, refund due ${await money("refund due", `/admin/payments/${paymentId}/refund`, due)}`
      }
    }
  }

  return {
    /** An admin call through the proxy, as the owner's browser makes it; a connection that fails is answered status 0. */
    call: admin,

    /** Payments an action is working on right now. */
    busyPayments(): Set<string> {
      return new Set(busy.keys())
    },

    /**
     * `plan`'s action on the order of `cartId`; what it came to, as a
     * short line the report counts (amounts only in the noted steps).
     */
    async act(cartId: string, plan: OwnerPlan, note: (line: string) => void = () => {}): Promise<string> {
      const payment = await paymentOf(cartId)
      if (!payment) return "no payment yet"
      busy.set(payment.paymentId, (busy.get(payment.paymentId) ?? 0) + 1)
      try {
        const outcome = await runAction(payment, plan, note)
        // A refund left unknown is looked up and answered at once, as the
        // refusal of the next refund tells the owner to.
        await answerUnknownRefunds(payment.paymentId, note)
        return outcome
      } catch (error) {
        if (error instanceof StepFailed) return `${error.step} ${error.answer.status}`
        throw error
      } finally {
        const left = (busy.get(payment.paymentId) ?? 1) - 1
        if (left) busy.set(payment.paymentId, left)
        else busy.delete(payment.paymentId)
      }
    },

    /** Every refund still of unknown outcome, looked up and answered (before the final check). */
    answerUnknownRefunds: (note: (line: string) => void) => answerUnknownRefunds(null, note),

    /** One sweep on the instance at `base`: whether it ran and how many actions it took. */
    async sweep(base: string): Promise<{ ran: boolean; actions: number; serviceDown: boolean }> {
      const answer = await call(base, "/admin/card-service/reconciliation")
      return { ran: !!answer.json.ran, actions: answer.json.actions?.length ?? 0, serviceDown: !!answer.json.serviceDown }
    },
  }
}
