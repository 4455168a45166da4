import { MedusaError } from "@medusajs/framework/utils"
import { settlePayment, type SettleHint } from "../../src/checkout/settle-payment"
import { REVIEW_EVENTS, settleReview } from "../../src/checkout/review-verdict"
import type { CardServiceSessionData } from "../../src/providers/card-service/session-data"
import type CardServiceProviderService from "../../src/providers/card-service/service"
import { reasonText } from "../../src/providers/card-service/status-mapping"
import { fakeMedusa, type FakeMedusa } from "../helpers/fake-medusa"
import {
  CARDS,
  followOns,
  newSessionId,
  payInBrowser,
  providerOnSandbox,
  startSession,
  type ProviderEnv,
} from "../helpers/provider-sandbox"

jest.mock("@medusajs/medusa/core-flows", () => require("../helpers/fake-medusa").fakeCoreFlows)

/**
 * Orders on hold for a review (src/checkout/review-verdict.ts), on the real
 * in-process sandbox and the fake Medusa container: what the store owner and
 * the shopper would notice of each verdict (the order canceled or paid, the
 * session closed with its reason, the reversal the service received, the
 * events a store subscribes to, the notes Needs attention and the review
 * panel read) and how often the sweep asks about an order that waits.
 * integration-tests/http/orders-on-hold.spec.ts tells the same stories on
 * Medusa and PostgreSQL; this ring is fast enough for mutation testing.
 */

const HOUR = 60 * 60 * 1000
const MINUTE = 60 * 1000

let env: ProviderEnv
/** Provider per review time, made once: each has its own client and pool. */
const providers = new Map<number, CardServiceProviderService>()

beforeAll(async () => {
  env = await providerOnSandbox()
})
afterAll(async () => {
  await env.close()
})

function providerFor(reviewTimeoutMs: number): CardServiceProviderService {
  if (!providers.has(reviewTimeoutMs)) {
    providers.set(reviewTimeoutMs, env.provider({ reviewTimeoutMs, anonymousCallRate: 10_000 }))
  }
  return providers.get(reviewTimeoutMs)!
}

type Held = {
  medusa: FakeMedusa
  provider: CardServiceProviderService
  sessionId: string
  cartId: string
  orderId: string
  transactionId: string
  /** When the order was placed; its review deadline is this plus the review time. */
  placedAt: number
  deadline: number
  settle: (hint?: Partial<SettleHint>) => ReturnType<typeof settlePayment>
  /** The sweep's look at the order on hold, at this time. */
  sweepAt: (at: number) => ReturnType<typeof settlePayment>
  session: () => ReturnType<FakeMedusa["payments"]["session"]>
  notes: () => Record<string, any>
  order: () => { status: string }
  reviewEvents: () => { name: string; data: unknown }[]
  reversals: () => { status: string; reasonCode: string }[]
}

/** A shopper pays with the review card: the order is placed on hold (480), no verdict yet. */
async function orderOnHold(reviewTimeoutMs = HOUR): Promise<Held> {
  const provider = providerFor(reviewTimeoutMs)
  const medusa = fakeMedusa()
  const providerId = medusa.addProvider(provider)
  const sessionId = newSessionId()
  const data = await startSession(provider, { amount: 30, currency_code: "eur" }, sessionId)
  const { cartId } = medusa.addCart({ providerId, sessionId, data: data as unknown as Record<string, unknown> })
  const transactionId = await payInBrowser(env.sandbox, provider, data, CARDS.review)
  const placed = await settlePayment(medusa.container as never, sessionId, { transactionId, source: "callback" })
  if (placed.kind !== "order" || !placed.onHold) throw new Error(`the order was not placed on hold: ${JSON.stringify(placed)}`)
  const orderId = placed.orderId
  const placedAt = medusa.orders.orders.get(orderId)!.created_at.getTime()
  const settle = (hint: Partial<SettleHint> = {}) =>
    settlePayment(medusa.container as never, sessionId, { transactionId, source: "callback", ...hint })
  return {
    medusa,
    provider,
    sessionId,
    cartId,
    orderId,
    transactionId,
    placedAt,
    deadline: placedAt + reviewTimeoutMs,
    settle,
    sweepAt: (at) => settlePayment(medusa.container as never, sessionId, { source: "sweep", at: new Date(at) }),
    session: () => medusa.payments.session(sessionId),
    notes: () => (medusa.payments.session(sessionId).metadata?.card_service ?? {}) as Record<string, any>,
    order: () => medusa.orders.orders.get(orderId)!,
    reviewEvents: () => medusa.events.named("card-service.review."),
    reversals: () => followOns(env.sandbox, "REVERSAL", transactionId) as never,
  }
}

const eventOf = (h: Held, name: string, reasonCode: string, orderCanceled?: boolean) => ({
  name,
  data: {
    order_id: h.orderId,
    payment_session_id: h.sessionId,
    reason_code: reasonCode,
    ...(orderCanceled === undefined ? {} : { order_canceled: orderCanceled }),
  },
})

/** The money is taken at the service before any reversal, so a reversal is refused (243). */
async function captureAtService(h: Held): Promise<void> {
  const record = env.sandbox.transaction(h.transactionId)!
  await h.provider.client.capture({
    merchantReferenceCode: "captured-outside-medusa",
    currency: record.currencyCode,
    amount: record.amount,
    email: "owner@example.com",
    originalTransactionId: h.transactionId,
  })
}

/** The minute after the review's deadline. */
const late = (h: Held) => h.deadline + MINUTE

describe("a verdict that comes in time", () => {
  it("authorizes the order's payment when the review approves, once", async () => {
    const h = await orderOnHold()
    await env.sandbox.concludeReview(h.transactionId, "approve")
    const at = new Date(h.placedAt + 5 * MINUTE)

    const outcome = await h.settle({ at })

    expect(outcome).toEqual({ kind: "order", orderId: h.orderId, cartId: h.cartId, review: "approved" })
    expect(h.session().status).toBe("authorized")
    expect(h.session().authorized_at).toBeTruthy()
    expect(h.order().status).toBe("pending")
    expect(h.notes().reconcile).toEqual({
      status: "review_closed",
      review: "approved",
      by: "callback",
      at: at.toISOString(),
      message: `the review approved the payment of order ${h.orderId}; it is authorized`,
    })
    expect(h.reviewEvents()).toEqual([eventOf(h, REVIEW_EVENTS.approved, "100")])
    expect(h.reversals()).toEqual([])
    expect(h.medusa.orders.canceled).toEqual([])

    // A second copy of the verdict changes nothing more.
    await h.settle()
    expect(h.reviewEvents()).toHaveLength(1)
    // One at the cart's completion (placed on hold), one for the approval.
    expect(h.medusa.payments.authorizations).toBe(2)
  })

  it("cancels the order, releasing its stock, and closes the session with 481 when the review rejects", async () => {
    const h = await orderOnHold()
    await env.sandbox.concludeReview(h.transactionId, "reject")
    const at = new Date(h.placedAt + 5 * MINUTE)

    const outcome = await h.settle({ at })

    expect(outcome).toEqual({ kind: "review_closed", orderId: h.orderId, cartId: h.cartId, verdict: "rejected" })
    expect(h.order().status).toBe("canceled")
    expect(h.medusa.orders.canceled).toEqual([h.orderId])
    expect(h.session().status).toBe("canceled")
    expect(h.session().data).toMatchObject({
      state: "canceled",
      transaction_id: h.transactionId,
      failure: { code: "481", message: `the service declined the payment: ${reasonText("481")}` },
    })
    expect(h.notes().reconcile).toEqual({
      status: "review_closed",
      review: "rejected",
      by: "callback",
      at: at.toISOString(),
      message: `the review did not approve the payment (481): order ${h.orderId} was canceled and its stock released`,
    })
    expect(h.reviewEvents()).toEqual([eventOf(h, REVIEW_EVENTS.rejected, "481", true)])
    // Nothing was held, so nothing is reversed.
    expect(h.reversals()).toEqual([])
  })

  it("reverses a review's approval for another amount and cancels the order on hold", async () => {
    const h = await orderOnHold()
    await env.sandbox.concludeReview(h.transactionId, "approve", 100)
    const at = new Date(h.placedAt + 5 * MINUTE)

    const outcome = await h.settle({ at })

    expect(outcome).toEqual({ kind: "review_closed", orderId: h.orderId, cartId: h.cartId, verdict: "rejected" })
    expect(h.reversals()).toEqual([expect.objectContaining({ status: "successful" })])
    expect(h.order().status).toBe("canceled")
    expect(h.session().status).toBe("canceled")
    expect(h.session().data.failure).toEqual({ code: "mismatch", message: "the approved amount differs from the cart total" })
    // The session's log, which the order widget shows, has the reversal.
    expect(h.session().data.transactions).toEqual(
      expect.arrayContaining([expect.objectContaining({ operation: "reversal", decision: "ACCEPT" })])
    )
    expect(h.notes().reconcile).toEqual({
      status: "review_closed",
      review: "rejected",
      by: "callback",
      at: at.toISOString(),
      message: `the review did not approve the payment (mismatch): order ${h.orderId} was canceled and its stock released`,
    })
    expect(h.reviewEvents()).toEqual([eventOf(h, REVIEW_EVENTS.rejected, "mismatch", true)])
  })

  it("shows an approval for another amount whose reversal was refused (243) as not released, and cancels the order", async () => {
    const h = await orderOnHold()
    await env.sandbox.concludeReview(h.transactionId, "approve", 100)
    await captureAtService(h)
    const dataBefore = h.session().data
    const at = new Date(h.placedAt + 5 * MINUTE)

    const outcome = await h.settle({ at })

    expect(outcome).toEqual({ kind: "review_closed", orderId: h.orderId, cartId: h.cartId, verdict: "not_released" })
    expect(h.reversals()).toEqual([expect.objectContaining({ reasonCode: "243" })])
    expect(h.order().status).toBe("canceled")
    expect(h.session().status).toBe("canceled")
    expect(h.session().data).toEqual({
      ...dataBefore,
      state: "canceled",
      failure: { code: "mismatch", message: "the approved amount differs from the cart total" },
    })
    const note = h.notes().reconcile
    expect(note).toMatchObject({
      status: "not_released",
      review: "not_released",
      at: at.toISOString(),
      references: [h.transactionId],
    })
    expect(note.message).toContain(
      `the review approved the payment of order ${h.orderId} for another amount or currency (the approved amount differs from the cart total): approval ${h.transactionId} was not released`
    )
    expect(h.reviewEvents()).toEqual([
      eventOf(h, REVIEW_EVENTS.approvalNotReleased, "100"),
      eventOf(h, REVIEW_EVENTS.rejected, "mismatch", true),
    ])
  })
})

describe("an order on hold while no verdict comes", () => {
  it("stays on hold until its deadline, and the sweep's look changes nothing but when it looks next", async () => {
    const h = await orderOnHold()
    const at = h.placedAt + 10 * MINUTE

    expect(await h.sweepAt(at)).toEqual({ kind: "order", orderId: h.orderId, cartId: h.cartId, onHold: true })

    expect(h.order().status).toBe("pending")
    expect(h.session().status).toBe("pending_authorization")
    expect(h.notes()).toEqual({ review_look: { looks: 1, next_at: new Date(at + MINUTE).toISOString() } })
    expect(h.reviewEvents()).toEqual([])
  })

  it("is not put off by a verdict's callback or the browser: only the sweep's look is", async () => {
    const h = await orderOnHold()
    expect(await h.settle({ at: new Date(h.placedAt + MINUTE) })).toMatchObject({ onHold: true })
    expect(await h.settle({ at: new Date(late(h)) })).toMatchObject({ kind: "review_closed", verdict: "expired" })
    const notes = h.notes()
    expect(await h.settle({ at: new Date(late(h) + MINUTE) })).toMatchObject({ unchanged: true })
    expect(h.notes()).toEqual(notes)
    expect(notes.review_look).toBeUndefined()
  })

  it.each([
    // A quarter of an hour's review time: 15 minutes at most.
    ["an hour", HOUR, [1, 2, 4, 8, 15, 15]],
    // A quarter of ten hours is longer than an hour: an hour at most.
    ["ten hours", 10 * HOUR, [1, 2, 4, 8, 16, 32, 60, 60]],
    // A quarter of two minutes is shorter than the first wait: a minute each time.
    ["two minutes", 2 * MINUTE, [1]],
  ])("puts the sweep's next look off 1, 2, 4 ... minutes, at most an hour or a quarter of the review time (%s)", async (_name, reviewTimeoutMs, waits) => {
    const h = await orderOnHold(reviewTimeoutMs)
    let at = h.placedAt
    for (const [i, minutes] of waits.entries()) {
      await h.sweepAt(at)
      expect(h.notes().review_look).toEqual({ looks: i + 1, next_at: new Date(at + minutes * MINUTE).toISOString() })
      at = new Date(h.notes().review_look.next_at).getTime()
    }
  })

  it("is canceled at its deadline to the millisecond, not a look later", async () => {
    const h = await orderOnHold()
    expect(await h.sweepAt(h.deadline - 1)).toMatchObject({ onHold: true })
    expect(await h.sweepAt(h.deadline)).toMatchObject({ kind: "review_closed", verdict: "expired" })
    expect(h.order().status).toBe("canceled")
  })

  it("never puts the next look past the review's deadline", async () => {
    const h = await orderOnHold()
    const at = h.deadline - 20_000
    await h.sweepAt(at)
    expect(h.notes().review_look).toEqual({ looks: 1, next_at: new Date(h.deadline).toISOString() })
  })

  it("keeps an order on hold whose transaction the service does not know (404), until its deadline", async () => {
    const h = await orderOnHold()
    const data = { ...h.session().data, transaction_id: "7000000000000000000000" } as unknown as CardServiceSessionData
    const review = {
      session: h.session() as never,
      provider: h.provider,
      data,
      cartId: h.cartId,
      orderId: h.orderId,
      source: "callback" as const,
    }
    expect(await settleReview(h.medusa.container as never, { ...review, now: new Date(h.placedAt + MINUTE) })).toEqual({
      kind: "order",
      orderId: h.orderId,
      cartId: h.cartId,
      onHold: true,
    })
    expect(await settleReview(h.medusa.container as never, { ...review, now: new Date(late(h)) })).toMatchObject({
      kind: "review_closed",
      verdict: "expired",
    })
    expect(h.order().status).toBe("canceled")
  })

  it("changes nothing when the service cannot say (503): the verdict is settled again later", async () => {
    const h = await orderOnHold()
    await env.sandbox.concludeReview(h.transactionId, "reject")
    env.sandbox.injectFault({ type: "status", status: 503, count: 20, path: "/payment/retrieve" })
    try {
      await expect(h.settle()).rejects.toThrow()
    } finally {
      env.sandbox.clearFaults()
    }
    expect(h.order().status).toBe("pending")
    expect(h.session().status).toBe("pending_authorization")
    expect(h.reviewEvents()).toEqual([])
  })

  it("fails loudly for an order that is not found, and changes nothing", async () => {
    const h = await orderOnHold()
    await expect(
      settleReview(h.medusa.container as never, {
        session: h.session() as never,
        provider: h.provider,
        data: h.session().data as unknown as CardServiceSessionData,
        cartId: h.cartId,
        orderId: "order_gone",
        source: "callback",
      })
    ).rejects.toThrow("order order_gone of a payment under review was not found")
    expect(h.reviewEvents()).toEqual([])
  })
})

describe("a review that outlives its time", () => {
  it("cancels the order once at its deadline, and later looks act, note and count nothing", async () => {
    const h = await orderOnHold()
    const at = late(h)

    const outcome = await h.sweepAt(at)

    expect(outcome).toEqual({ kind: "review_closed", orderId: h.orderId, cartId: h.cartId, verdict: "expired" })
    expect(h.order().status).toBe("canceled")
    // Still watched: a verdict may come yet.
    expect(h.session().status).toBe("pending_authorization")
    const expired = {
      status: "review_closed",
      review: "expired",
      by: "sweep",
      at: new Date(at).toISOString(),
      message: `no verdict on the review within the time allowed: order ${h.orderId} was canceled and its stock released; an approval that still comes is reversed`,
    }
    expect(h.notes().reconcile).toEqual(expired)
    expect(h.reviewEvents()).toEqual([eventOf(h, REVIEW_EVENTS.expired, "480", true)])

    // The next looks: put off (past the deadline, so by the wait alone), nothing else.
    const next = at + MINUTE
    expect(await h.sweepAt(next)).toEqual({
      kind: "review_closed",
      orderId: h.orderId,
      cartId: h.cartId,
      verdict: "expired",
      unchanged: true,
    })
    expect(h.notes()).toEqual({ reconcile: expired, review_look: { looks: 1, next_at: new Date(next + MINUTE).toISOString() } })
    await h.sweepAt(next + MINUTE)
    expect(h.notes().review_look).toEqual({ looks: 2, next_at: new Date(next + 3 * MINUTE).toISOString() })
    expect(h.medusa.orders.canceled).toEqual([h.orderId])
    expect(h.reviewEvents()).toHaveLength(1)
    expect(h.session().status).toBe("pending_authorization")
  })

  it("reverses an approval that comes after, and logs the reversal on the session", async () => {
    const h = await orderOnHold()
    await h.sweepAt(late(h))
    await env.sandbox.concludeReview(h.transactionId, "approve")
    const at = new Date(late(h) + HOUR)

    const outcome = await h.settle({ at })

    expect(outcome).toEqual({ kind: "review_closed", orderId: h.orderId, cartId: h.cartId, verdict: "reversed" })
    expect(h.reversals()).toEqual([expect.objectContaining({ status: "successful" })])
    expect(h.order().status).toBe("canceled")
    expect(h.medusa.orders.canceled).toEqual([h.orderId])
    expect(h.session().status).toBe("canceled")
    expect(h.session().data).toMatchObject({
      state: "canceled",
      failure: { code: "review_expired", message: "approved after the order was canceled; the approval was reversed" },
    })
    // Issue 39: the verdict wrote the data read before the reversal.
    expect(h.session().data.transactions).toEqual(
      expect.arrayContaining([expect.objectContaining({ operation: "reversal", decision: "ACCEPT" })])
    )
    expect(h.notes().reconcile).toEqual({
      status: "review_closed",
      review: "reversed",
      by: "callback",
      at: at.toISOString(),
      message: `the review approved the payment after order ${h.orderId} was canceled for want of a verdict; the approval was reversed`,
    })
    expect(h.reviewEvents()).toEqual([
      eventOf(h, REVIEW_EVENTS.expired, "480", true),
      eventOf(h, REVIEW_EVENTS.approvalReversed, "100"),
    ])
    // Only the cart's completion's, which placed the order on hold.
    expect(h.medusa.payments.authorizations).toBe(1)
  })

  it("notes a late approval whose reversal was refused (243) as not released, and never sends it again", async () => {
    const h = await orderOnHold()
    await h.sweepAt(late(h))
    await env.sandbox.concludeReview(h.transactionId, "approve")
    await captureAtService(h)
    const dataBefore = h.session().data
    const at = new Date(late(h) + HOUR)

    const outcome = await h.sweepAt(at.getTime())

    expect(outcome).toEqual({ kind: "review_closed", orderId: h.orderId, cartId: h.cartId, verdict: "not_released" })
    expect(h.reversals()).toEqual([expect.objectContaining({ reasonCode: "243" })])
    expect(h.session().status).toBe("canceled")
    expect(h.session().data).toEqual({ ...dataBefore, state: "canceled", failure: { code: "not_released", message: h.notes().reconcile.message } })
    const note = h.notes().reconcile
    expect(note).toMatchObject({ status: "not_released", review: "not_released", at: at.toISOString(), references: [h.transactionId] })
    expect(note.message).toContain(
      `the review approved the payment after order ${h.orderId} was canceled for want of a verdict: approval ${h.transactionId} was not released`
    )
    expect(note.message).not.toMatch(/the approval was reversed/)
    expect(h.reviewEvents()).toEqual([
      eventOf(h, REVIEW_EVENTS.expired, "480", true),
      eventOf(h, REVIEW_EVENTS.approvalNotReleased, "100"),
    ])

    // The session is closed: a later look sends nothing.
    await h.sweepAt(at.getTime() + HOUR)
    expect(h.reversals()).toHaveLength(1)
    expect(h.reviewEvents()).toHaveLength(2)
  })

  it("changes nothing when the reversal of a late approval gets no answer (503): it is tried again later", async () => {
    const h = await orderOnHold()
    await h.sweepAt(late(h))
    await env.sandbox.concludeReview(h.transactionId, "approve")
    env.sandbox.injectFault({ type: "status", status: 503, count: 20, path: "/reverse" })
    try {
      await expect(h.settle({ at: new Date(late(h) + HOUR) })).rejects.toThrow()
    } finally {
      env.sandbox.clearFaults()
    }
    expect(h.session().status).toBe("pending_authorization")
    expect(h.notes().reconcile).toMatchObject({ review: "expired" })
    expect(h.reviewEvents()).toEqual([eventOf(h, REVIEW_EVENTS.expired, "480", true)])

    // Answered again: reversed, as on the first try.
    expect(await h.settle({ at: new Date(late(h) + 2 * HOUR) })).toMatchObject({ verdict: "reversed" })
  })

  it.each([
    ["a rejection", "reject" as const, undefined, "481"],
    ["an approval for another amount", "approve" as const, 100, "mismatch"],
  ])("closes the session on %s that comes after, with no second cancel and no event", async (_name, verdict, amount, code) => {
    const h = await orderOnHold()
    await h.sweepAt(late(h))
    const expired = h.notes().reconcile
    await env.sandbox.concludeReview(h.transactionId, verdict, amount)

    const outcome = await h.settle({ at: new Date(late(h) + HOUR) })

    expect(outcome).toEqual({ kind: "review_closed", orderId: h.orderId, cartId: h.cartId, verdict: "rejected" })
    expect(h.session().status).toBe("canceled")
    expect(h.session().data.failure).toMatchObject({ code })
    expect(h.medusa.orders.canceled).toEqual([h.orderId])
    expect(h.notes().reconcile).toEqual(expired)
    expect(h.reviewEvents()).toEqual([eventOf(h, REVIEW_EVENTS.expired, "480", true)])
    expect(h.reversals()).toHaveLength(amount === undefined ? 0 : 1)
  })
})

describe("an order Medusa will not cancel", () => {
  const fulfilled = (h: Held) => {
    h.medusa.orders.orders.get(h.orderId)!.fulfillments.push({ canceled_at: null })
  }
  const notCanceled = (h: Held, what: string, why: string) =>
    `${what}, but order ${h.orderId} could not be canceled (${why}). No money is held for it: recover the goods or collect the payment another way, then cancel or archive the order.`

  it("leaves an order fulfilled while on hold to the store owner when the review rejects it", async () => {
    const h = await orderOnHold()
    fulfilled(h)
    await env.sandbox.concludeReview(h.transactionId, "reject")
    const at = new Date(h.placedAt + MINUTE)

    const outcome = await h.settle({ at })

    expect(outcome).toEqual({ kind: "review_closed", orderId: h.orderId, cartId: h.cartId, verdict: "rejected" })
    expect(h.order().status).toBe("pending")
    expect(h.session().status).toBe("canceled")
    expect(h.notes().reconcile).toEqual({
      status: "hold_not_canceled",
      review: "not_canceled",
      by: "callback",
      at: at.toISOString(),
      message: notCanceled(h, "the review did not approve the payment (481)", "All fulfillments must be canceled before canceling an order"),
    })
    expect(h.reviewEvents()).toEqual([eventOf(h, REVIEW_EVENTS.rejected, "481", false)])
  })

  it.each([
    ["a dropped database connection", new Error("Connection terminated unexpectedly")],
    ["a lock not had in time", new Error("Timed-out acquiring lock: order_1")],
    ["an unexpected state", new MedusaError(MedusaError.Types.UNEXPECTED_STATE, "something moved")],
  ])("does not leave a rejected review's order to the store owner over %s: it is canceled when settled again", async (_, failure) => {
    const h = await orderOnHold()
    await h.sweepAt(h.placedAt + MINUTE)
    expect(h.notes().review_look).toBeDefined()
    await env.sandbox.concludeReview(h.transactionId, "reject")
    h.medusa.orders.cancelFailures.push(failure)

    await expect(h.settle()).rejects.toThrow(failure.message)

    expect(h.order().status).toBe("pending")
    expect(h.session().status).toBe("pending_authorization")
    expect(h.notes().reconcile).toBeUndefined()
    // The sweep's next look is due now, not put off.
    expect(h.notes().review_look).toBeUndefined()
    expect(h.reviewEvents()).toEqual([])

    expect(await h.settle()).toEqual({ kind: "review_closed", orderId: h.orderId, cartId: h.cartId, verdict: "rejected" })
    expect(h.order().status).toBe("canceled")
    expect(h.notes().reconcile).toMatchObject({ status: "review_closed", review: "rejected" })
    expect(h.reviewEvents()).toEqual([eventOf(h, REVIEW_EVENTS.rejected, "481", true)])
  })

  it("leaves it to the store owner at the deadline, once", async () => {
    const h = await orderOnHold()
    fulfilled(h)
    const at = late(h)

    expect(await h.sweepAt(at)).toMatchObject({ kind: "review_closed", verdict: "expired" })
    const note = {
      status: "hold_not_canceled",
      review: "not_canceled",
      by: "sweep",
      at: new Date(at).toISOString(),
      message: notCanceled(h, "no verdict on the review came in time", "All fulfillments must be canceled before canceling an order"),
    }
    expect(h.notes().reconcile).toEqual(note)
    expect(h.reviewEvents()).toEqual([eventOf(h, REVIEW_EVENTS.expired, "480", false)])

    // The order is still open, but the store owner has it: nothing more is tried.
    expect(await h.sweepAt(at + MINUTE)).toMatchObject({ verdict: "expired", unchanged: true })
    expect(h.notes().reconcile).toEqual(note)
    expect(h.reviewEvents()).toHaveLength(1)
  })

  it("leaves the store owner's own order change alone: an order being edited is not canceled", async () => {
    const h = await orderOnHold()
    const edit = h.medusa.orders.createOrderChange({ order_id: h.orderId, change_type: "edit", created_at: new Date(Date.now() - HOUR) })
    await env.sandbox.concludeReview(h.transactionId, "reject")

    await h.settle()

    expect(h.order().status).toBe("pending")
    expect(edit.status).toBe("pending")
    expect(h.notes().reconcile).toMatchObject({
      review: "not_canceled",
      message: expect.stringContaining(`(Order (${h.orderId}) already has an existing active order change)`),
    })
    // A subscriber must not tell the shopper the order was canceled.
    expect(h.reviewEvents()).toEqual([eventOf(h, REVIEW_EVENTS.rejected, "481", false)])
  })
})

describe("a cancel that died and left its credit-line change behind (bench:soak)", () => {
  const leftBehind = (h: Held, ageMs: number, status: "pending" | "requested" = "pending") => {
    const change = h.medusa.orders.createOrderChange({
      order_id: h.orderId,
      change_type: "credit_line",
      created_at: new Date(Date.now() - ageMs),
    })
    change.status = status
    return change
  }

  it.each(["pending", "requested"] as const)("withdraws a %s one older than a workflow takes, and cancels the order", async (status) => {
    const h = await orderOnHold()
    const dead = leftBehind(h, MINUTE, status)
    await env.sandbox.concludeReview(h.transactionId, "reject")

    expect(await h.settle()).toMatchObject({ kind: "review_closed", verdict: "rejected" })

    expect(dead.status).toBe("canceled")
    expect(h.order().status).toBe("canceled")
    expect(h.notes().reconcile).toMatchObject({ status: "review_closed", review: "rejected" })
    expect(h.reviewEvents()).toEqual([eventOf(h, REVIEW_EVENTS.rejected, "481", true)])
  })

  it("leaves one made a moment ago, which may be a workflow running now: the verdict is settled again later", async () => {
    const h = await orderOnHold()
    const young = leftBehind(h, 5_000)
    await env.sandbox.concludeReview(h.transactionId, "reject")

    await expect(h.settle()).rejects.toThrow(
      `order ${h.orderId} has a credit-line change being made now; its cancel is tried again later`
    )

    expect(young.status).toBe("pending")
    expect(h.order().status).toBe("pending")
    expect(h.session().status).toBe("pending_authorization")
    expect(h.reviewEvents()).toEqual([])
  })

  it("takes one exactly as old as a workflow may take for a dead one", async () => {
    const h = await orderOnHold()
    await env.sandbox.concludeReview(h.transactionId, "reject")
    const frozen = Date.now()
    const dead = h.medusa.orders.createOrderChange({
      order_id: h.orderId,
      change_type: "credit_line",
      created_at: new Date(frozen - 10_000),
    })
    // The cutoff is read from the clock: held still while the verdict settles.
    const clock = jest.spyOn(Date, "now").mockReturnValue(frozen)
    try {
      await h.settle()
    } finally {
      clock.mockRestore()
    }
    expect(dead.status).toBe("canceled")
    expect(h.order().status).toBe("canceled")
  })

  it("withdraws a dead one and still leaves a fulfilled order to the store owner", async () => {
    const h = await orderOnHold()
    h.medusa.orders.orders.get(h.orderId)!.fulfillments.push({ canceled_at: null })
    const dead = leftBehind(h, MINUTE)
    await env.sandbox.concludeReview(h.transactionId, "reject")

    await h.settle()

    expect(dead.status).toBe("canceled")
    expect(h.order().status).toBe("pending")
    expect(h.notes().reconcile).toMatchObject({
      status: "hold_not_canceled",
      message: expect.stringContaining("could not be canceled (All fulfillments must be canceled before canceling an order)"),
    })
  })
})

describe("a record that is not this session's", () => {
  it("cancels the order and reverses nothing of another session's approval", async () => {
    const other = await orderOnHold()
    await env.sandbox.concludeReview(other.transactionId, "approve")
    const h = await orderOnHold()
    const data = { ...h.session().data, transaction_id: other.transactionId } as unknown as CardServiceSessionData

    const outcome = await settleReview(h.medusa.container as never, {
      session: h.session() as never,
      provider: h.provider,
      data,
      cartId: h.cartId,
      orderId: h.orderId,
      source: "callback",
    })

    expect(outcome).toEqual({ kind: "review_closed", orderId: h.orderId, cartId: h.cartId, verdict: "rejected" })
    expect(h.order().status).toBe("canceled")
    expect(h.session().data.failure).toEqual({
      code: "foreign_transaction",
      message: "the transaction was not made for this payment session",
    })
    expect(other.reversals()).toEqual([])
    expect(h.reviewEvents()).toEqual([eventOf(h, REVIEW_EVENTS.rejected, "foreign_transaction", true)])
  })
})
