import {
  checkInvariants,
  type AttemptFacts,
  type ServiceRecord,
  type StoreFacts,
  type StoreOrder,
} from "../../../scripts/lib/soak-invariants"

// bench:soak's invariants (issue 33), against the service's records and the
// store's: each one breached on purpose, and a clean history that breaches
// none.

let next = 0
const record = (step: string, amount: number, fields: Partial<ServiceRecord> = {}): ServiceRecord => ({
  transactionId: `t${++next}`,
  originalTransactionId: "",
  merchantReferenceCode: `ref-${next}`,
  step,
  reasonCode: "100",
  amount,
  currencyCode: "978",
  recordedAt: 1_000,
  ...fields,
})
const on = (original: ServiceRecord, step: string, amount: number, fields: Partial<ServiceRecord> = {}) =>
  record(step, amount, { originalTransactionId: original.transactionId, ...fields })

const order = (cartId: string, transactionId: string, amount: number, fields: Partial<StoreOrder["payments"][0]> = {}): StoreOrder => ({
  orderId: `order_${cartId}`,
  cartId,
  createdAt: 1_000,
  hold: "none",
  payments: [
    { paymentId: `pay_${cartId}`, transactionId, amount, currencyNumeric: "978", canceled: false, captured: amount, refunded: 0, ...fields },
  ],
})

const store = (fields: Partial<StoreFacts> = {}): StoreFacts => ({
  orders: [],
  cartsWithTwoOrders: [],
  paidCartsWithoutOrder: [],
  unknownOutcomeReferences: new Set(),
  ...fields,
})

const check = (
  service: ServiceRecord[],
  facts: StoreFacts,
  attempts = new Map<string, AttemptFacts>(),
  delivered = new Set(service.map((r) => r.transactionId))
) => checkInvariants(service, facts, attempts, delivered, { settledBefore: Infinity })

const names = (result: ReturnType<typeof check>) => result.breaches.map((b) => b.invariant)

describe("checkInvariants", () => {
  it("finds nothing in a clean history: an order captured and partly refunded, a second tab reversed, a decline, a voided capture taken again", () => {
    const paid = record("AUTHORIZATION", 20)
    const capture = on(paid, "CAPTURE", 20)
    const refund = on(capture, "REFUND", 5)
    const secondTab = record("AUTHORIZATION", 20)
    const declined = record("AUTHORIZATION", 20, { reasonCode: "203" })
    const voidedFirst = record("AUTHORIZATION", 30)
    const service = [
      paid,
      capture,
      refund,
      secondTab,
      on(secondTab, "REVERSAL", 20),
      declined,
      voidedFirst,
      on(voidedFirst, "CAPTURE", 30, { captureStatus: "VOIDED" }),
      on(voidedFirst, "CAPTURE", 30),
    ]
    const facts = store({ orders: [order("cart_1", paid.transactionId, 20, { refunded: 5 }), order("cart_2", voidedFirst.transactionId, 30)] })
    expect(check(service, facts).breaches).toEqual([])
  })

  it("breaches on a second capture, a capture beyond the approval and a refund beyond the capture", () => {
    const twice = record("AUTHORIZATION", 20)
    const over = record("AUTHORIZATION", 20)
    const refunded = record("AUTHORIZATION", 20)
    const capture = on(refunded, "CAPTURE", 10)
    const service = [
      twice,
      on(twice, "CAPTURE", 10),
      on(twice, "CAPTURE", 10),
      over,
      on(over, "CAPTURE", 20.01),
      refunded,
      capture,
      on(capture, "REFUND", 6),
      on(refunded, "REFUND", 6),
      on(refunded, "REFUND", 100, { reasonCode: "235" }),
    ]
    const facts = store({
      orders: [order("a", twice.transactionId, 20), order("b", over.transactionId, 20), order("c", refunded.transactionId, 20)],
    })
    expect(names(check(service, facts))).toEqual([
      "capture beyond its approval or a second capture",
      "capture beyond its approval or a second capture",
      "refund beyond its capture",
    ])
  })

  it("breaches on Medusa's refunds beyond its captures", () => {
    const paid = record("AUTHORIZATION", 20)
    const facts = store({ orders: [order("a", paid.transactionId, 20, { captured: 20, refunded: 25 })] })
    expect(names(check([paid, on(paid, "CAPTURE", 20)], facts))).toEqual(["refund beyond its capture"])
  })

  it("breaches on an approval with neither an order nor a reversal, a partial approval included, once it is old enough", () => {
    const left = record("AUTHORIZATION", 20, { recordedAt: 5_000 })
    const partial = record("AUTHORIZATION", 10, { reasonCode: "110", recordedAt: 5_000 })
    const service = [left, partial]
    expect(names(check(service, store()))).toEqual([
      "approval with neither an order nor a reversal",
      "approval with neither an order nor a reversal",
    ])
    expect(checkInvariants(service, store(), new Map(), new Set(), { settledBefore: 5_000 }).breaches).toEqual([])
  })

  it("takes an approval nobody reported as unreported when the store shows it as outcome unknown, else as left behind", () => {
    const silent = record("AUTHORIZATION", 20)
    const attempts = new Map([[silent.merchantReferenceCode, { cartId: "cart_x", returned: false }]])
    const shown = check([silent], store({ unknownOutcomeReferences: new Set([silent.merchantReferenceCode]) }), attempts, new Set())
    expect(shown).toEqual({ breaches: [], unreported: [silent.transactionId] })
    const hidden = check([silent], store(), attempts, new Set())
    expect(names(hidden)).toEqual(["approval with neither an order nor a reversal"])
    expect(hidden.breaches[0].detail).toContain("nobody reported it")
    // Reported (a callback was delivered, or the shopper came back): left behind whatever the store shows.
    const reported = check([silent], store({ unknownOutcomeReferences: new Set([silent.merchantReferenceCode]) }), attempts)
    expect(names(reported)).toEqual(["approval with neither an order nor a reversal"])
  })

  it("breaches on an order whose payment differs from the approval in amount, currency or kind, or that has none", () => {
    const a = record("AUTHORIZATION", 20)
    const b = record("AUTHORIZATION", 20)
    const declined = record("AUTHORIZATION", 20, { reasonCode: "203" })
    const facts = store({
      orders: [
        order("a", a.transactionId, 25),
        order("b", b.transactionId, 20, { currencyNumeric: "840" }),
        order("c", declined.transactionId, 20),
        order("d", "t-unknown", 20),
        { ...order("e", a.transactionId, 20), payments: [] },
      ],
    })
    expect(names(check([a, b, declined], facts))).toEqual([
      "order whose payment differs from the approval",
      "order whose payment differs from the approval",
      "order whose payment differs from the approval",
      "order whose payment differs from the approval",
      "order whose payment differs from the approval",
    ])
  })

  it("breaches on an order whose payment Medusa still counts on after the service reversed its approval, not on one canceled or refunded in full", () => {
    const live = record("AUTHORIZATION", 20)
    const canceled = record("AUTHORIZATION", 20)
    const refused = record("AUTHORIZATION", 20)
    // Refunded in full before the service sent the capture: the plugin voids it and reverses the approval.
    const refunded = record("AUTHORIZATION", 20)
    const voided = on(refunded, "CAPTURE", 20, { captureStatus: "VOIDED" })
    const facts = store({
      orders: [
        order("l", live.transactionId, 20),
        order("c", canceled.transactionId, 20, { canceled: true }),
        order("r", refused.transactionId, 20),
        order("f", refunded.transactionId, 20, { refunded: 20 }),
      ],
    })
    const reversals = [
      on(live, "REVERSAL", 20),
      on(canceled, "REVERSAL", 20),
      on(refused, "REVERSAL", 20, { reasonCode: "237" }),
      voided,
      on(voided, "VOID", 20),
      on(refunded, "REVERSAL", 20),
    ]
    const result = check([live, canceled, refused, refunded, ...reversals], facts)
    expect(names(result)).toEqual(["order whose payment differs from the approval"])
    expect(result.breaches[0]).toMatchObject({ orderId: "order_l", transactionId: live.transactionId })
  })

  it("takes an order on hold, or one its review closed, as having no payment yet; a young hold as not due", () => {
    const held = { ...order("h", "t-held", 20), payments: [], hold: "open" as const, createdAt: 9_000 }
    const closed = { ...order("c", "t-closed", 20), payments: [], hold: "closed" as const }
    const result = checkInvariants([], store({ orders: [held, closed] }), new Map(), new Set(), { settledBefore: 5_000 })
    expect(result.breaches).toEqual([])
  })

  it("takes a young order without a payment as still completing", () => {
    const young = { ...order("y", "t-none", 20), payments: [], createdAt: 9_000 }
    const result = checkInvariants([], store({ orders: [young] }), new Map(), new Set(), { settledBefore: 5_000 })
    expect(result.breaches).toEqual([])
    expect(names(check([], store({ orders: [young] })))).toEqual(["order whose payment differs from the approval"])
  })

  it("breaches on a cart with two orders, a paid cart without one and an order on hold not concluded", () => {
    const held = record("AUTHORIZATION", 20, { reasonCode: "480" })
    const facts = store({
      orders: [
        { ...order("h", held.transactionId, 20), payments: [], hold: "open" },
        // Rejected: canceled, no payment, nothing to conclude.
        { ...order("r", "t-rejected", 20), payments: [], hold: "closed" },
      ],
      cartsWithTwoOrders: ["cart_2"],
      paidCartsWithoutOrder: [{ cartId: "cart_3", sessionId: "payses_3" }],
    })
    expect(names(check([held], facts))).toEqual([
      "order on hold not concluded",
      "cart with more than one order",
      "paid cart without an order",
    ])
  })
})
