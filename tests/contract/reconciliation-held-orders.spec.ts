import { settlePayment, type SettleOutcome } from "../../src/checkout/settle-payment"
import { ordersOnHoldSupported } from "../../src/providers/card-service/orders-on-hold"
import { LOOKBACK_MS } from "../../src/reconciliation/gone-sessions"
import { listHeldSessions, sweepHeldOrder } from "../../src/reconciliation/held-orders"
import {
  insertSession,
  pgContainer,
  usePaymentDatabase,
  type PgDatabase,
  type SessionRow,
} from "../helpers/pg-container"

jest.mock("../../src/checkout/settle-payment", () => ({ settlePayment: jest.fn() }))
jest.mock("../../src/providers/card-service/orders-on-hold", () => ({ ordersOnHoldSupported: jest.fn(() => true) }))

jest.setTimeout(60_000)

/**
 * The sweep's pass over orders on hold (held-orders.ts): which sessions it
 * reads (SQL over Medusa's payment_session rows and their review_look note,
 * on a real PostgreSQL), and what it tells the store owner about each
 * verdict settlePayment reached. The verdicts themselves are
 * review-verdict.ts's (tests/contract/review-verdict.spec.ts); here
 * settlePayment is a stand-in that answers each outcome.
 */

const PROVIDER = "pp_card-service_card-service"
const HOUR = 60 * 60 * 1000
const REVIEW_TIMEOUT_MS = 72 * HOUR
const NOW = new Date("2026-11-20T12:00:00.000Z")
const provider = { options: { reviewTimeoutMs: REVIEW_TIMEOUT_MS } } as never
/** The oldest creation time still looked at: the review's time and a week beyond it. */
const OLDEST = new Date(NOW.getTime() - REVIEW_TIMEOUT_MS - LOOKBACK_MS)
const ms = (n: number) => new Date(NOW.getTime() + n)

describe("the batch of orders on hold (listHeldSessions)", () => {
  let db: PgDatabase
  usePaymentDatabase((started) => (db = started))
  beforeEach(() => {
    jest.mocked(ordersOnHoldSupported).mockReturnValue(true)
  })

  /** A session on hold created an hour ago, its next look due (none set). */
  const held = (id: string, row: Partial<SessionRow> = {}) =>
    insertSession(db, { id, status: "pending_authorization", created_at: ms(-HOUR), ...row })
  const lookAt = (nextAt: Date) => ({ card_service: { review_look: { looks: 1, next_at: nextAt.toISOString() } } })

  async function batch(take = 100): Promise<string[]> {
    const { container } = pgContainer(db)
    const sessions = await listHeldSessions(container, provider, PROVIDER, NOW, take)
    return sessions.map((s) => s.id).sort()
  }

  it("takes this provider's sessions on hold and nothing else", async () => {
    await held("ps_held")
    await held("ps_other_provider", { provider_id: "pp_card-service_other" })
    await held("ps_deleted", { deleted_at: ms(-1000) })
    for (const status of ["pending", "authorized", "canceled", "error", "requires_more"]) {
      await held(`ps_${status}`, { status })
    }
    expect(await batch()).toEqual(["ps_held"])
  })

  it("looks back over the review's time and a week beyond it, to the millisecond", async () => {
    await held("ps_oldest", { created_at: OLDEST })
    await held("ps_too_old", { created_at: ms(OLDEST.getTime() - NOW.getTime() - 1) })
    expect(await batch()).toEqual(["ps_oldest"])
  })

  it("takes a session whose next look is due now or earlier, or was never put off, and not one put off past now", async () => {
    await held("ps_never_looked")
    await held("ps_due_now", { metadata: lookAt(NOW) })
    await held("ps_due_before", { metadata: lookAt(ms(-1)) })
    await held("ps_later", { metadata: lookAt(ms(1)) })
    await held("ps_other_notes", { metadata: { card_service: { attempts: [] } } })
    expect(await batch()).toEqual(["ps_due_before", "ps_due_now", "ps_never_looked", "ps_other_notes"])
  })

  it("takes the least recently changed first, so sessions put off go behind a newer order on hold (issue 39)", async () => {
    // Created in the opposite order: the batch goes by updated_at, not created_at.
    await held("ps_changed_last", { created_at: ms(-3 * HOUR), updated_at: ms(-1 * 60_000) })
    await held("ps_changed_first", { created_at: ms(-1 * HOUR), updated_at: ms(-50 * 60_000) })
    await held("ps_changed_between", { created_at: ms(-2 * HOUR), updated_at: ms(-30 * 60_000) })
    expect(await batch(2)).toEqual(["ps_changed_between", "ps_changed_first"])
    expect(await batch(1)).toEqual(["ps_changed_first"])
  })

  it("reads no session rows when none is due", async () => {
    await held("ps_later", { metadata: lookAt(ms(HOUR)) })
    const { container } = pgContainer(db)
    const payments = (container as { resolve: (key: string) => { listPaymentSessions: unknown } }).resolve("payment")
    const list = jest.spyOn(payments as { listPaymentSessions: () => Promise<unknown[]> }, "listPaymentSessions")
    expect(await listHeldSessions(container, provider, PROVIDER, NOW, 100)).toStrictEqual([])
    expect(list).not.toHaveBeenCalled()
  })

  it("takes none on a Medusa that cannot place an order on hold", async () => {
    await held("ps_held")
    jest.mocked(ordersOnHoldSupported).mockReturnValue(false)
    expect(await listHeldSessions(pgContainer(db).container, provider, PROVIDER, NOW, 100)).toStrictEqual([])
  })
})

describe("what a look at an order on hold tells the store owner (sweepHeldOrder)", () => {
  const container = {} as never
  const answer = (outcome: SettleOutcome) => jest.mocked(settlePayment).mockResolvedValueOnce(outcome)
  const look = () => sweepHeldOrder(container, "ps_1", NOW)
  const closed = (verdict: "rejected" | "expired" | "reversed" | "not_released", unchanged?: true): SettleOutcome => ({
    kind: "review_closed",
    orderId: "order_1",
    cartId: "cart_1",
    verdict,
    ...(unchanged ? { unchanged } : {}),
  })

  beforeEach(() => jest.mocked(settlePayment).mockReset())

  it("asks through the callback's own path, as the sweep, at the pass's time", async () => {
    answer({ kind: "order", orderId: "order_1", cartId: "cart_1", onHold: true })
    expect(await look()).toBeNull()
    expect(settlePayment).toHaveBeenCalledWith(container, "ps_1", { source: "sweep", at: NOW })
  })

  it("says the review approved and the order's payment is authorized, as review_closed: the order existed already (issue 41)", async () => {
    answer({ kind: "order", orderId: "order_1", cartId: "cart_1", review: "approved" })
    expect(await look()).toEqual({
      session_id: "ps_1",
      status: "review_closed",
      message: "order order_1: the review approved the payment; its payment is authorized",
    })
  })

  it("says nothing of an order that is not concluded by this look", async () => {
    answer({ kind: "order", orderId: "order_1", cartId: "cart_1" })
    expect(await look()).toBeNull()
    answer({ kind: "pending", cartId: "cart_1" })
    expect(await look()).toBeNull()
    answer({ kind: "failed", cartId: "cart_1", failure: { code: "declined" } as never })
    expect(await look()).toBeNull()
  })

  it.each([
    ["rejected", "the review rejected the payment; the order was canceled and its stock released"],
    ["expired", "no verdict on the review in time; the order was canceled and its stock released"],
    ["reversed", "the review approved the payment after the order was canceled; the approval was reversed"],
  ] as const)("says what the review did to the order when it was %s", async (verdict, what) => {
    answer(closed(verdict))
    expect(await look()).toEqual({ session_id: "ps_1", status: "review_closed", message: `order order_1: ${what}` })
  })

  it("sends a refused reversal of a late approval to Needs attention", async () => {
    answer(closed("not_released"))
    expect(await look()).toEqual({
      session_id: "ps_1",
      status: "not_released",
      message:
        "order order_1: the review approved a payment the order cannot take, and the card service refused to reverse it; see Needs attention",
    })
  })

  it.each(["rejected", "expired", "reversed", "not_released"] as const)(
    "says nothing again of a review closed (%s) on an earlier pass",
    async (verdict) => {
      answer(closed(verdict, true))
      expect(await look()).toBeNull()
    }
  )
})
