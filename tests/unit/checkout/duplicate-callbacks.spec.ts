import {
  mayAcknowledgeUnsettled,
  needsNote,
  sweepSettlesHints,
} from "../../../src/checkout/callback-settlement"
import { settledOrder } from "../../../src/checkout/settled-check"
import type { CardServiceSessionData } from "../../../src/providers/card-service/session-data"

describe("a duplicate callback answered without settling", () => {
  const all = { hintNoted: true, heldByAnotherDelivery: true, sweepOn: true }

  it("is answered at once only when its hint is noted, another delivery settles it and the sweep is on", () => {
    expect(mayAcknowledgeUnsettled(all)).toBe(true)
    for (const missing of Object.keys(all)) {
      expect(mayAcknowledgeUnsettled({ ...all, [missing]: false })).toBe(false)
    }
  })

  describe("the sweep settles noted hints", () => {
    const before = process.env.CARD_SERVICE_RECONCILE_SCHEDULE
    afterEach(() => {
      process.env.CARD_SERVICE_RECONCILE_SCHEDULE = before
    })

    it.each([
      ["* * * * *", true, true],
      ["off", true, false],
      ["* * * * *", false, false],
      ["not a schedule", true, false],
    ])("schedule %j, provider reconcile %j: %j", (schedule, reconcile, expected) => {
      process.env.CARD_SERVICE_RECONCILE_SCHEDULE = schedule
      expect(sweepSettlesHints({ options: { reconcile } } as never)).toBe(expected)
    })
  })
})

describe("a session already settled, from what was read", () => {
  const data = { transaction_id: "tx-1" } as CardServiceSessionData
  const cart = { cartId: "cart_1", orderId: "order_1" }
  const authorized = { authorized_at: new Date() }

  it("is the order when the hint names the settled transaction, or none", () => {
    const order = { kind: "order", orderId: "order_1", cartId: "cart_1" }
    expect(settledOrder(data, cart, { transactionId: "tx-1", source: "callback" }, authorized)).toEqual(order)
    expect(settledOrder(data, cart, { source: "return" }, authorized)).toEqual(order)
  })

  it("is left to the locked path for another transaction (a second tab's approval), no order, or no settled transaction", () => {
    expect(settledOrder(data, cart, { transactionId: "tx-2", source: "callback" }, authorized)).toBeNull()
    expect(settledOrder(data, { cartId: "cart_1", orderId: null }, { source: "return" }, authorized)).toBeNull()
    expect(settledOrder({ transaction_id: null } as never, cart, { source: "return" }, authorized)).toBeNull()
    expect(settledOrder(null, cart, { source: "return" }, authorized)).toBeNull()
  })

  it("is left to the locked path for an order whose session Medusa never authorized (its completion died)", () => {
    expect(settledOrder(data, cart, { transactionId: "tx-1", source: "callback" }, { authorized_at: null })).toBeNull()
    expect(settledOrder(data, cart, { source: "return" }, {})).toBeNull()
  })
})

describe("the settling callback's hint note", () => {
  it.each([
    [{ kind: "order", orderId: "order_1", cartId: "cart_1" }, false],
    [{ kind: "released", providerId: "pp_card-service_card-service" }, false],
    [{ kind: "unknown_session" }, false],
    [{ kind: "pending", cartId: "cart_1" }, true],
    [{ kind: "failed", cartId: "cart_1", failure: { code: "203", message: "declined" } }, true],
    // Checked with the service already and found to be no payment of this
    // session (issue 39: forged callbacks filled the notes this way).
    [{ kind: "ignored", cartId: "cart_1", reason: "foreign" }, false],
    [{ kind: "review_closed", orderId: "order_1", cartId: "cart_1", verdict: "rejected" }, false],
  ])("after %j is needed: %j", (outcome, expected) => {
    expect(needsNote(outcome as never)).toBe(expected)
  })
})
