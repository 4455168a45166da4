import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { cartOfSession } from "../../src/checkout/cart-of-session"
import { COMPLETION_LOCK_MS, OrderPaymentPending } from "../../src/checkout/order-payment"
import { cardServiceProvider } from "../../src/checkout/provider-lookup"
import { settlePayment, type SettleOutcome } from "../../src/checkout/settle-payment"
import { CardServiceError } from "../../src/lib/card-service-error"
import { notReleasedNote } from "../../src/payment-notes/not-released"
import { ApprovalNotReleased } from "../../src/providers/card-service/approval-reversal"
import { LOOKBACK_MS, sweepGoneSessions } from "../../src/reconciliation/gone-sessions"
import { listHeldSessions, sweepHeldOrder } from "../../src/reconciliation/held-orders"
import { listInterruptedCancels } from "../../src/reconciliation/interrupted-cancels"
import { listDeadCreditLines, listUnrecordedOnOrders } from "../../src/reconciliation/order-records"
import {
  followPayment,
  listCapturesToFollow,
  listUnloggedFollowOns,
  settleUnloggedFollowOns,
  listOrphanedFollowOns,
} from "../../src/reconciliation/payment-followups"
import { sweepCardServicePayments } from "../../src/reconciliation/sweep"
import { sessionsToSweep } from "../../src/reconciliation/sweep-candidates"
import { recordingLogger, type RecordingLogger } from "../helpers/pg-container"

jest.mock("../../src/checkout/settle-payment", () => ({
  ...jest.requireActual("../../src/checkout/settle-payment"),
  settlePayment: jest.fn(),
}))
jest.mock("../../src/checkout/cart-of-session", () => ({ cartOfSession: jest.fn() }))
jest.mock("../../src/checkout/provider-lookup", () => ({
  ...jest.requireActual("../../src/checkout/provider-lookup"),
  cardServiceProvider: jest.fn(),
}))
jest.mock("../../src/reconciliation/sweep-candidates", () => ({ sessionsToSweep: jest.fn() }))
jest.mock("../../src/reconciliation/held-orders", () => ({ listHeldSessions: jest.fn(), sweepHeldOrder: jest.fn() }))
jest.mock("../../src/reconciliation/interrupted-cancels", () => ({ listInterruptedCancels: jest.fn(), finishInterruptedCancel: jest.fn() }))
jest.mock("../../src/reconciliation/order-records", () => ({
  listUnrecordedOnOrders: jest.fn(),
  recordOnOrder: jest.fn(),
  listDeadCreditLines: jest.fn(),
  finishDeadCreditLine: jest.fn(),
}))
jest.mock("../../src/reconciliation/gone-sessions", () => ({
  LOOKBACK_MS: jest.requireActual("../../src/reconciliation/gone-sessions").LOOKBACK_MS,
  sweepGoneSessions: jest.fn(),
}))
jest.mock("../../src/reconciliation/payment-followups", () => ({
  listCapturesToFollow: jest.fn(),
  followPayment: jest.fn(),
  listUnloggedFollowOns: jest.fn(),
  settleUnloggedFollowOns: jest.fn(),
  listOrphanedFollowOns: jest.fn(),
  bookOrphanedFollowOns: jest.fn(),
}))

/**
 * One sweep pass (sweep.ts): which providers and batches it goes through,
 * when it stops for an outage, and what it decides for each open session of
 * the session pass: which transaction it settles, what it notes for the store
 * owner, which hints it drops as answered, when it leaves a session for the
 * next pass. The batches' SQL (reconciliation-sweep-candidates.spec.ts,
 * reconciliation-held-orders.spec.ts, reconciliation-gone-sessions.spec.ts)
 * and settlePayment itself (settlement.spec.ts) are stand-ins here; the
 * session notes are written for real, over an in-memory payment module.
 */

const CARD = "pp_card-service_card-service"
const NOW = new Date("2026-11-20T12:00:00.000Z")
const MINUTE = 60_000
const GRACE_MS = 15 * MINUTE
const ms = (n: number) => new Date(NOW.getTime() + n)

type Session = {
  id: string
  status: string
  data: Record<string, unknown>
  metadata: Record<string, unknown> | null
  updated_at: Date
  authorized_at?: Date | null
  payment_collection_id: string
}

type Provider = { options: { reconcile: boolean; reconcileGraceMs: number }; verifySession: jest.Mock }

let sessions: Map<string, Session>
let providers: { id: string }[]
let provider: Provider
let logger: RecordingLogger
let listSessions: jest.Mock
let container: never

beforeEach(() => {
  jest.resetAllMocks()
  sessions = new Map()
  providers = [{ id: CARD }]
  provider = {
    options: { reconcile: true, reconcileGraceMs: GRACE_MS },
    verifySession: jest.fn((data: Record<string, unknown>) => data),
  }
  logger = recordingLogger()
  listSessions = jest.fn(async (filter: { id: string | string[] }) =>
    (Array.isArray(filter.id) ? filter.id : [filter.id]).flatMap((id) =>
      sessions.has(id) ? [structuredClone(sessions.get(id)!)] : []
    )
  )
  const registry: Record<string, unknown> = {
    [ContainerRegistrationKeys.LOGGER]: logger,
    [Modules.LOCKING]: { execute: async <T>(_key: string, job: () => Promise<T>) => await job() },
    [Modules.PAYMENT]: {
      listPaymentProviders: jest.fn(async ({ is_enabled }: { is_enabled: boolean }) => (is_enabled ? providers : [])),
      listPaymentSessions: listSessions,
      paymentSessionService_: {
        update: async ({ id, metadata }: { id: string; metadata: Record<string, unknown> }) => {
          sessions.get(id)!.metadata = metadata
        },
      },
    },
  }
  container = { resolve: (key: string) => registry[key] } as never
  jest.mocked(cardServiceProvider).mockImplementation(() => provider as never)
  jest.mocked(sessionsToSweep).mockResolvedValue([])
  jest.mocked(listHeldSessions).mockResolvedValue([])
  jest.mocked(listCapturesToFollow).mockResolvedValue([])
  jest.mocked(listUnloggedFollowOns).mockResolvedValue([])
  jest.mocked(listOrphanedFollowOns).mockResolvedValue([])
  jest.mocked(listInterruptedCancels).mockResolvedValue([])
  jest.mocked(listUnrecordedOnOrders).mockResolvedValue([])
  jest.mocked(listDeadCreditLines).mockResolvedValue([])
  jest.mocked(sweepGoneSessions).mockResolvedValue([])
  jest.mocked(cartOfSession).mockResolvedValue({ cartId: "cart_1", orderId: null, email: null, locale: null })
})

/** An open session of the session pass, with these notes and data. */
function openSession(id: string, { data = {}, notes = {}, ...rest }: { data?: Record<string, unknown>; notes?: Record<string, unknown> } & Partial<Session> = {}): Session {
  const session: Session = {
    id,
    status: "pending",
    data: { state: "pending", transaction_id: null, failure: null, ...data },
    metadata: { other: "kept", card_service: notes },
    updated_at: ms(-60 * MINUTE),
    payment_collection_id: "pay_col_1",
    ...rest,
  }
  sessions.set(id, session)
  jest.mocked(sessionsToSweep).mockResolvedValue([...sessions.keys()])
  return session
}
const notesOf = (id: string) => (sessions.get(id)!.metadata as { card_service: Record<string, any> }).card_service
const hint = (transaction_id: string, at = ms(-10 * MINUTE)) => ({ transaction_id, source: "callback", received_at: at.toISOString() })
const sweep = (options: { batchSize?: number } = {}) => sweepCardServicePayments(container, { now: NOW, ...options })
const settles = (...outcomes: Array<SettleOutcome | Error>) => {
  for (const outcome of outcomes) {
    if (outcome instanceof Error) jest.mocked(settlePayment).mockRejectedValueOnce(outcome)
    else jest.mocked(settlePayment).mockResolvedValueOnce(outcome)
  }
}
const settledWith = () => jest.mocked(settlePayment).mock.calls.map(([, id, hint]) => [id, hint])
const order = (extra: Partial<Extract<SettleOutcome, { kind: "order" }>> = {}): SettleOutcome => ({
  kind: "order",
  orderId: "order_1",
  cartId: "cart_1",
  ...extra,
})
const serviceDown = () =>
  new CardServiceError({ category: "service_error", operation: "retrieve", retrySafe: true, detail: "service down" })

describe("the providers and batches a pass goes through", () => {
  it("asks for each enabled card-service provider's batches with the lookback, grace period and batch size", async () => {
    providers = [{ id: "pp_system_default" }, { id: CARD }]
    await sweep({ batchSize: 7 })
    expect(cardServiceProvider).toHaveBeenCalledTimes(1)
    expect(cardServiceProvider).toHaveBeenCalledWith(container, CARD)
    expect(sessionsToSweep).toHaveBeenCalledWith(container, {
      providerId: CARD,
      since: new Date(NOW.getTime() - LOOKBACK_MS),
      graceEndedAt: new Date(NOW.getTime() - GRACE_MS),
      take: 7,
    })
    expect(listCapturesToFollow).toHaveBeenCalledWith(container, CARD, NOW, 7)
    expect(listHeldSessions).toHaveBeenCalledWith(container, provider, CARD, NOW, 7)
    expect(sweepGoneSessions).toHaveBeenCalledWith(container, NOW, 7)
  })

  it("takes batches of 100 by default, at the time it runs", async () => {
    const before = Date.now()
    await sweepCardServicePayments(container)
    const after = Date.now()
    const [, { take, since }] = jest.mocked(sessionsToSweep).mock.calls[0]
    expect(take).toBe(100)
    expect(since.getTime()).toBeGreaterThanOrEqual(before - LOOKBACK_MS)
    expect(since.getTime()).toBeLessThanOrEqual(after - LOOKBACK_MS)
    expect(jest.mocked(listCapturesToFollow).mock.calls[0][3]).toBe(100)
    expect(jest.mocked(listHeldSessions).mock.calls[0][4]).toBe(100)
    expect(jest.mocked(sweepGoneSessions).mock.calls[0][2]).toBe(100)
  })

  it("passes over a card-service provider whose reconciliation is off, but still the collections' hints", async () => {
    provider.options.reconcile = false
    expect(await sweep()).toEqual({ examined: 0, actions: [], serviceDown: false })
    expect(sessionsToSweep).not.toHaveBeenCalled()
    expect(sweepGoneSessions).toHaveBeenCalled()
  })

  it("does nothing without a card-service provider", async () => {
    providers = [{ id: "pp_system_default" }]
    expect(await sweep()).toEqual({ examined: 0, actions: [], serviceDown: false })
    expect(sweepGoneSessions).not.toHaveBeenCalled()
  })

  it("reads no session rows when no session is a candidate", async () => {
    await sweep()
    expect(listSessions).not.toHaveBeenCalled()
  })

  it("reads the candidates oldest first, all of them", async () => {
    openSession("payses_a")
    openSession("payses_b")
    await sweep()
    expect(listSessions).toHaveBeenCalledWith({ id: ["payses_a", "payses_b"] }, { take: 2, order: { created_at: "ASC" } })
  })

  it("goes through orders on hold first, then open sessions, then captures, then the collections' hints, and logs each action", async () => {
    const done: string[] = []
    jest.mocked(listHeldSessions).mockResolvedValue([{ id: "payses_held" }] as never)
    jest.mocked(sweepHeldOrder).mockImplementation(async (_c, id) => {
      done.push(id)
      return { session_id: id, status: "review_closed", message: "held done" }
    })
    openSession("payses_open", { notes: { hints: [hint("tx_1")] } })
    jest.mocked(settlePayment).mockImplementation(async (_c, id) => {
      done.push(id)
      return order()
    })
    jest.mocked(listCapturesToFollow).mockResolvedValue([{ id: "pay_1" }] as never)
    jest.mocked(followPayment).mockImplementation(async (_c, payment) => {
      done.push(payment.id)
      return [{ payment_id: payment.id, status: "capture_pending", message: "pending" }]
    })
    jest.mocked(sweepGoneSessions).mockImplementation(async () => {
      done.push("gone")
      return [{ session_id: "payses_gone", status: "released", message: "gone done" }]
    })
    const result = await sweep()
    expect(done).toEqual(["payses_held", "payses_open", "pay_1", "gone"])
    expect(sweepHeldOrder).toHaveBeenCalledWith(container, "payses_held", NOW)
    expect(followPayment).toHaveBeenCalledWith(container, { id: "pay_1" }, NOW)
    expect(result.examined).toBe(3)
    expect(result.serviceDown).toBe(false)
    expect(result.actions.map((a) => a.status)).toEqual(["review_closed", "order_created", "capture_pending", "released"])
    expect(logger.lines.map((l) => `${l.level} ${l.message}`)).toEqual([
      "info card-service reconcile: payses_…s?held review_closed: held done",
      "info card-service reconcile: payses_…s?open order_created: verified the reported result and completed the cart as order order_1",
      "info card-service reconcile: pay_1 capture_pending: pending",
      "info card-service reconcile: payses_…s?gone released: gone done",
    ])
  })

  it("settles a capture or refund whose instance died before Medusa wrote its answer, and follows that payment from the next sweep", async () => {
    const unlogged = { payment: { id: "pay_1" }, captures: [{ id: "capt_1" }], refunds: [] }
    jest.mocked(listUnloggedFollowOns).mockResolvedValue([unlogged] as never)
    jest.mocked(settleUnloggedFollowOns).mockResolvedValue([{ payment_id: "pay_1", status: "follow_on_recovered", message: "settled" }])
    jest.mocked(listCapturesToFollow).mockResolvedValue([{ id: "pay_1" }, { id: "pay_2" }] as never)
    jest.mocked(followPayment).mockResolvedValue([])
    const result = await sweep()
    expect(listUnloggedFollowOns).toHaveBeenCalledWith(container, CARD, NOW)
    expect(settleUnloggedFollowOns).toHaveBeenCalledWith(container, unlogged, NOW)
    expect(jest.mocked(followPayment).mock.calls.map((call) => (call[1] as { id: string }).id)).toEqual(["pay_2"])
    expect(result).toEqual({ examined: 2, actions: [{ payment_id: "pay_1", status: "follow_on_recovered", message: "settled" }], serviceDown: false })
  })

  it("counts an order on hold that needed nothing, and says nothing of it", async () => {
    jest.mocked(listHeldSessions).mockResolvedValue([{ id: "payses_held" }] as never)
    jest.mocked(sweepHeldOrder).mockResolvedValue(null)
    expect(await sweep()).toEqual({ examined: 1, actions: [], serviceDown: false })
  })

  it("stops at the first sign of an outage and says so, leaving the rest of the batch", async () => {
    jest.mocked(listHeldSessions).mockResolvedValue([{ id: "payses_held" }] as never)
    jest.mocked(sweepHeldOrder).mockRejectedValue(serviceDown())
    jest.mocked(listCapturesToFollow).mockResolvedValue([{ id: "pay_1" }] as never)
    expect(await sweep()).toEqual({ examined: 1, actions: [], serviceDown: true })
    expect(followPayment).not.toHaveBeenCalled()
    expect(sweepGoneSessions).not.toHaveBeenCalled()
    expect(logger.lines).toEqual([
      { level: "warn", message: expect.stringMatching(/^card-service reconcile: the service is unavailable \(.*service down.*\); stopping this sweep$/) },
    ])
  })

  it("logs one item's failure without its session id and goes on to the next", async () => {
    jest.mocked(listHeldSessions).mockResolvedValue([{ id: "payses_held123456" }] as never)
    jest.mocked(sweepHeldOrder).mockRejectedValue(new Error("payses_held123456 broke"))
    jest.mocked(listCapturesToFollow).mockResolvedValue([{ id: "pay_1" }] as never)
    jest.mocked(followPayment).mockResolvedValue([])
    expect(await sweep()).toEqual({ examined: 2, actions: [], serviceDown: false })
    expect(followPayment).toHaveBeenCalled()
    expect(logger.lines).toEqual([
      { level: "error", message: "card-service reconcile: payses_…123456 could not be checked: payses_…123456 broke" },
    ])
  })

  it("says the service is down when the collections' pass meets the outage", async () => {
    jest.mocked(sweepGoneSessions).mockRejectedValue(serviceDown())
    expect(await sweep()).toEqual({ examined: 0, actions: [], serviceDown: true })
    expect(logger.lines).toEqual([
      { level: "warn", message: expect.stringMatching(/^card-service reconcile: the service is unavailable \(.*service down.*\); stopping this sweep$/) },
    ])
  })

  it("lets any other failure of the collections' pass out", async () => {
    const failure = new Error("the database went away")
    jest.mocked(sweepGoneSessions).mockRejectedValue(failure)
    await expect(sweep()).rejects.toBe(failure)
  })
})

describe("an open session whose cart is an order", () => {
  beforeEach(() => {
    jest.mocked(cartOfSession).mockResolvedValue({ cartId: "cart_1", orderId: "order_1", email: null, locale: null })
  })
  const attached = { transaction_id: "tx_1", state: "authorized" }

  it("records the payment an order lacks once the completion's lock has lapsed, and says so", async () => {
    openSession("payses_1", { data: attached, updated_at: ms(-COMPLETION_LOCK_MS) })
    settles(order({ paymentRecorded: true }))
    const { actions } = await sweep()
    expect(settledWith()).toEqual([["payses_1", { source: "sweep" }]])
    expect(actions).toEqual([
      {
        session_id: "payses_1",
        status: "order_created",
        message: "order order_1 had no payment (its completion stopped before recording it); recorded transaction tx_1 as its payment",
      },
    ])
  })

  it("says nothing when the order had its payment after all", async () => {
    openSession("payses_1", { data: attached, updated_at: ms(-COMPLETION_LOCK_MS) })
    settles(order())
    expect((await sweep()).actions).toStrictEqual([])
  })

  it("leaves it while a completion may still hold the cart", async () => {
    openSession("payses_1", { data: attached, updated_at: ms(-COMPLETION_LOCK_MS + 1) })
    expect((await sweep()).actions).toStrictEqual([])
    expect(settlePayment).not.toHaveBeenCalled()
  })

  it("leaves an order whose payment is authorized, or whose transaction failed", async () => {
    openSession("payses_1", { data: attached, authorized_at: ms(-60 * MINUTE) })
    openSession("payses_2", { data: { transaction_id: "tx_2", state: "failed" } })
    expect((await sweep()).actions).toStrictEqual([])
    expect(settlePayment).not.toHaveBeenCalled()
  })

  it("tries again next pass when the cart is still locked", async () => {
    openSession("payses_1", { data: attached })
    settles(new OrderPaymentPending("cart_1"))
    expect(await sweep()).toEqual({ examined: 1, actions: [], serviceDown: false })
    expect(logger.lines).toStrictEqual([])
  })

  it("lets any other failure out to the pass, which logs it", async () => {
    openSession("payses_1", { data: attached })
    settles(new Error("boom"))
    expect((await sweep()).actions).toStrictEqual([])
    expect(logger.lines.map((l) => l.level)).toEqual(["error"])
  })
})

describe("an open session with results reported but never verified (hints)", () => {
  it("settles each hint, oldest first, and notes what it found, dropping the hint it answered", async () => {
    openSession("payses_1", { notes: { hints: [hint("tx_declined"), hint("tx_approved")] } })
    settles({ kind: "failed", cartId: "cart_1", failure: { code: "declined" } as never }, order())
    const { actions } = await sweep()
    expect(settledWith()).toEqual([
      ["payses_1", { transactionId: "tx_declined", source: "sweep" }],
      ["payses_1", { transactionId: "tx_approved", source: "sweep" }],
    ])
    expect(actions).toEqual([
      { session_id: "payses_1", status: "failed", message: "the payment did not go through: declined" },
      { session_id: "payses_1", status: "order_created", message: "verified the reported result and completed the cart as order order_1" },
    ])
    expect(sessions.get("payses_1")!.metadata).toEqual({
      other: "kept",
      card_service: { reconcile: { status: "order_created", at: NOW.toISOString(), message: actions[1].message } },
    })
  })

  it("leaves the hint attached to the session to the attached-transaction path", async () => {
    openSession("payses_1", { data: { transaction_id: "tx_1", state: "failed" }, notes: { hints: [hint("tx_1")] } })
    expect((await sweep()).actions).toStrictEqual([])
    expect(settlePayment).not.toHaveBeenCalled()
  })

  it("once a hint made the order, drops a later one that was no approval of it, with nothing to tell", async () => {
    openSession("payses_1", { notes: { hints: [hint("tx_1"), hint("tx_2")] } })
    settles(order(), order())
    const { actions } = await sweep()
    expect(actions.map((a) => a.status)).toEqual(["order_created"])
    expect(notesOf("payses_1")).toEqual({ reconcile: expect.objectContaining({ status: "order_created" }) })
  })

  it("once a hint made the order, keeps a later hint whose result is still pending", async () => {
    openSession("payses_1", { notes: { hints: [hint("tx_1"), hint("tx_2")] } })
    settles(order(), { kind: "pending", cartId: "cart_1" })
    expect((await sweep()).actions.map((a) => a.status)).toEqual(["order_created"])
    expect(notesOf("payses_1").hints).toEqual([hint("tx_2")])
  })

  it("once a hint made the order, says a second approval was reversed", async () => {
    openSession("payses_1", { notes: { hints: [hint("tx_1"), hint("tx_2")] } })
    settles(order(), order({ secondPaymentReleased: true }))
    const { actions } = await sweep()
    expect(actions).toEqual([
      expect.objectContaining({ status: "order_created" }),
      {
        session_id: "payses_1",
        status: "released",
        message: "order order_1 keeps its payment; a second approval tx_2, reported while it could not be verified, was reversed",
      },
    ])
    expect(notesOf("payses_1")).toEqual({ reconcile: { status: "released", at: NOW.toISOString(), message: actions[1].message } })
  })

  it("does not count a hint's order as made when it only released a second approval", async () => {
    openSession("payses_1", { notes: { hints: [hint("tx_1"), hint("tx_2")] } })
    settles({ kind: "released", cartId: "cart_1" } as never, order())
    const { actions } = await sweep()
    expect(actions.map((a) => a.status)).toEqual(["released", "order_created"])
  })

  it("a hint's order made on its own (not an earlier hint's) and a later decline both get their notes", async () => {
    openSession("payses_1", { notes: { hints: [hint("tx_1"), hint("tx_2")] } })
    settles({ kind: "failed", cartId: "cart_1", failure: { code: "declined" } as never }, order({ secondPaymentReleased: false }))
    const { actions } = await sweep()
    expect(actions.map((a) => a.status)).toEqual(["failed", "order_created"])
  })

  it("notes a released outcome for the store owner", async () => {
    const [status, message] = ["released", "the cart changed after payment; the approval was reversed"]
    openSession("payses_1", { notes: { hints: [hint("tx_1")], attempts: [] } })
    settles({ kind: "released", cartId: "cart_1" } as unknown as SettleOutcome)
    expect((await sweep()).actions).toEqual([{ session_id: "payses_1", status, message }])
    expect(notesOf("payses_1")).toEqual({ attempts: [], reconcile: { status, at: NOW.toISOString(), message } })
  })

  it("drops a reported result that was no payment of the session (ignored) with no note and no action: a forged report is no failed payment (issue 41)", async () => {
    openSession("payses_1", { notes: { hints: [hint("tx_1")], attempts: [] } })
    settles({ kind: "ignored", cartId: "cart_1", reason: "not this session's" } as unknown as SettleOutcome)
    expect((await sweep()).actions).toStrictEqual([])
    expect(notesOf("payses_1")).toEqual({ attempts: [] })
  })

  it.each([
    ["pending", { kind: "pending", cartId: "cart_1" }],
    ["on hold", { kind: "review_closed", orderId: "order_1", cartId: "cart_1", verdict: "expired" }],
  ])("keeps the hint and notes nothing while the result is %s", async (_name, outcome) => {
    openSession("payses_1", { notes: { hints: [hint("tx_1")] } })
    settles(outcome as SettleOutcome)
    expect((await sweep()).actions).toStrictEqual([])
    expect(notesOf("payses_1")).toEqual({ hints: [hint("tx_1")] })
    expect(logger.lines).toStrictEqual([])
  })

  it("notes a refused reversal (243) once, drops the hint, and never asks again", async () => {
    openSession("payses_1", { notes: { hints: [hint("tx_1")] } })
    settles(new ApprovalNotReleased("tx_1", "243"))
    const expected = notReleasedNote({ transactionId: "tx_1", reasonCode: "243" }, "an approval of this session", NOW)
    expect((await sweep()).actions).toEqual([{ session_id: "payses_1", status: "not_released", message: expected.message }])
    expect(notesOf("payses_1")).toEqual({ reconcile: expected })
  })

  it("lets any other failure out to the pass, which logs it and keeps the hint", async () => {
    openSession("payses_1", { notes: { hints: [hint("tx_1")] } })
    settles(new Error("boom"))
    expect((await sweep()).actions).toStrictEqual([])
    expect(logger.lines.map((l) => l.level)).toEqual(["error"])
    expect(notesOf("payses_1")).toEqual({ hints: [hint("tx_1")] })
  })
})

describe("an open session with a transaction attached and no order", () => {
  it.each([
    ["an approval", { transaction_id: "tx_1", state: "authorized" }],
    ["a result under review (480) whose order was never placed on hold", { transaction_id: "tx_1", state: "pending", failure: { code: "480", message: "review" } }],
    ["a transaction with no state yet", { transaction_id: "tx_1", state: "pending" }],
  ])("completes the cart for %s through settlePayment, with no hint", async (_name, data) => {
    openSession("payses_1", { data })
    settles(order())
    expect((await sweep()).actions.map((a) => a.status)).toEqual(["order_created"])
    expect(settledWith()).toEqual([["payses_1", { source: "sweep" }]])
  })

  it.each([
    ["a declined transaction", { transaction_id: "tx_1", state: "failed" }],
    ["a failure noted", { transaction_id: "tx_1", state: "authorized", failure: { code: "mismatch", message: "m" } }],
    ["a failure under review that is no longer pending", { transaction_id: "tx_1", state: "authorized", failure: { code: "480", message: "m" } }],
  ])("leaves %s", async (_name, data) => {
    openSession("payses_1", { data })
    expect((await sweep()).actions).toStrictEqual([])
    expect(settlePayment).not.toHaveBeenCalled()
  })

  it("says nothing while the attached transaction's result is still pending", async () => {
    openSession("payses_1", { data: { transaction_id: "tx_1", state: "authorized" } })
    settles({ kind: "pending", cartId: "cart_1" })
    expect(await sweep()).toEqual({ examined: 1, actions: [], serviceDown: false })
    expect(notesOf("payses_1")).toEqual({})
  })

  it("leaves an approval whose reversal the service refused (the store owner decides)", async () => {
    openSession("payses_1", { data: { transaction_id: "tx_1", state: "authorized" }, notes: { reconcile: { status: "not_released" } } })
    expect((await sweep()).actions).toStrictEqual([])
    expect(settlePayment).not.toHaveBeenCalled()
  })

  it("goes on after another note", async () => {
    openSession("payses_1", { data: { transaction_id: "tx_1", state: "authorized" }, notes: { reconcile: { status: "failed" } } })
    settles(order())
    expect((await sweep()).actions.map((a) => a.status)).toEqual(["order_created"])
  })

  it("notes a refused reversal on the way", async () => {
    openSession("payses_1", { data: { transaction_id: "tx_1", state: "authorized" } })
    settles(new ApprovalNotReleased("tx_1", "238"))
    expect((await sweep()).actions.map((a) => a.status)).toEqual(["not_released"])
    expect(notesOf("payses_1").reconcile).toEqual(notReleasedNote({ transactionId: "tx_1", reasonCode: "238" }, "an approval of this session", NOW))
  })
})

describe("an open session with payment attempts and no result", () => {
  const attempt = (reference: string, at: Date) => ({ reference, at: at.toISOString() })

  it("shows the attempts as outcome unknown once the last one is past the grace period", async () => {
    openSession("payses_1", { notes: { attempts: [attempt("ref_1", ms(-60 * MINUTE)), attempt("ref_2", ms(-GRACE_MS))] } })
    const note = {
      status: "outcome_unknown",
      at: NOW.toISOString(),
      message: "no result reported for 2 payment attempt(s); look the references up at the card service",
      references: ["ref_1", "ref_2"],
    }
    expect((await sweep()).actions).toEqual([{ session_id: "payses_1", status: note.status, message: note.message }])
    expect(notesOf("payses_1")).toEqual({ attempts: [attempt("ref_1", ms(-60 * MINUTE)), attempt("ref_2", ms(-GRACE_MS))], reconcile: note })
    expect(settlePayment).not.toHaveBeenCalled()
  })

  it("shows them for a session whose data does not verify (no transaction can be trusted)", async () => {
    openSession("payses_1", { data: { transaction_id: "tx_forged", state: "authorized" }, notes: { attempts: [attempt("ref_1", ms(-60 * MINUTE))] } })
    provider.verifySession.mockReturnValue(null)
    expect((await sweep()).actions.map((a) => a.status)).toEqual(["outcome_unknown"])
    expect(provider.verifySession).toHaveBeenCalledWith(expect.objectContaining({ transaction_id: "tx_forged" }), "payses_1")
    expect(settlePayment).not.toHaveBeenCalled()
    expect(logger.lines.map((l) => l.level)).toEqual(["info"])
  })

  it("waits while the last attempt is inside the grace period", async () => {
    openSession("payses_1", { notes: { attempts: [attempt("ref_1", ms(-60 * MINUTE)), attempt("ref_2", ms(-GRACE_MS + 1))] } })
    expect((await sweep()).actions).toStrictEqual([])
  })

  it("says it once", async () => {
    openSession("payses_1", { notes: { attempts: [attempt("ref_1", ms(-60 * MINUTE))], reconcile: { status: "outcome_unknown" } } })
    expect((await sweep()).actions).toStrictEqual([])
  })

  it("says it after another note", async () => {
    openSession("payses_1", { notes: { attempts: [attempt("ref_1", ms(-60 * MINUTE))], reconcile: { status: "failed" } } })
    expect((await sweep()).actions.map((a) => a.status)).toEqual(["outcome_unknown"])
  })

  it("says nothing of a session with no attempts, or a hint, or a transaction", async () => {
    openSession("payses_none", { notes: {} })
    openSession("payses_tx", { data: { transaction_id: "tx_1", state: "failed" }, notes: { attempts: [attempt("ref_1", ms(-60 * MINUTE))] } })
    expect((await sweep()).actions).toStrictEqual([])
    expect(logger.lines).toStrictEqual([])
  })

  it("leaves the note another writer put there between the read and the write", async () => {
    openSession("payses_1", { notes: { attempts: [attempt("ref_1", ms(-60 * MINUTE))] } })
    const original = listSessions.getMockImplementation()!
    // The read for the note (after the pass read the session) finds it already noted.
    listSessions.mockImplementation(async (filter: { id: string | string[] }, config?: unknown) => {
      const rows = await original(filter, config)
      if (!Array.isArray(filter.id)) rows[0].metadata.card_service.reconcile = { status: "outcome_unknown", at: "earlier" }
      return rows
    })
    await sweep()
    expect(notesOf("payses_1").reconcile).toBeUndefined()
  })
})
