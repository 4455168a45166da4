import {
  checkInvariants,
  type AttemptFacts,
  type BookedPayment,
  type CheckOptions,
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
    expect(shown).toEqual({ breaches: [], unreported: [silent.transactionId], unknownOutcomes: { payments: [], differing: [] } })
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

  it("breaches on an order that counts less or more of its payments' money than they book, once its payments are quiet", () => {
    const approval = record("AUTHORIZATION", 20)
    const capture = on(approval, "CAPTURE", 20)
    const refund = on(capture, "REFUND", 5)
    const counting = (counted: StoreOrder["counted"]) => ({ ...order("c", approval.transactionId, 20, { refunded: 5 }), counted })
    const judged = (counted: StoreOrder["counted"]) =>
      names(check([approval, capture, refund], store({ orders: [counting(counted)] }))).filter((n) => n === "order that does not count its payments' money")
    expect(judged({ captured: 20, refunded: 5 })).toEqual([])
    expect(judged(undefined)).toEqual([])
    // A refund Medusa booked on the payment whose workflow stopped before the order's transaction.
    expect(judged({ captured: 20, refunded: 0 })).toEqual(["order that does not count its payments' money"])
    expect(judged({ captured: 0, refunded: 5 })).toEqual(["order that does not count its payments' money"])
    // Two refunds at once: Medusa recorded the first for the second's amount.
    expect(judged({ captured: 20, refunded: 7 })).toEqual(["order that does not count its payments' money"])
    // A payment that moved lately is not judged during the run: the sweep records its rows once they are old enough.
    const booked: BookedPayment[] = [{ paymentId: "pay_c", transactionId: approval.transactionId, captured: 20, refunded: 5, unknownOutcome: false, changedAt: 4_000 }]
    const during = (quietBefore: number) =>
      checkInvariants([approval, capture, refund], store({ orders: [counting({ captured: 20, refunded: 0 })], bookedPayments: booked }), new Map(), new Set([approval.transactionId]), {
        settledBefore: 10_000_000,
        quietBefore,
      }).breaches.filter((b) => b.invariant === "order that does not count its payments' money")
    expect(during(100_000)).toEqual([])
    expect(during(200_000)).toEqual([expect.objectContaining({ orderId: "order_c" })])
  })

  it("breaches on an order with a credit-line change left open, once it is older than a workflow takes", () => {
    const approval = record("AUTHORIZATION", 20)
    const left = (openCreditLineSince: number | null, quietBefore: number) =>
      checkInvariants([approval], store({ orders: [{ ...order("d", approval.transactionId, 20), openCreditLineSince }] }), new Map(), new Set([approval.transactionId]), {
        settledBefore: Infinity,
        quietBefore,
      }).breaches.filter((b) => b.invariant === "order change a workflow left open")
    expect(left(null, Infinity)).toEqual([])
    expect(left(50_000, Infinity)).toEqual([expect.objectContaining({ orderId: "order_d" })])
    expect(left(50_000, 100_000)).toEqual([])
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

// Issue 42: what the return told the shopper, against what the attempt became.
describe("checkInvariants: a shopper told failed", () => {
  const TOLD = "shopper told failed, the payment made the order"
  const told = (entries: [ServiceRecord, AttemptFacts["told"], string][]) =>
    new Map(entries.map(([r, said, cartId]) => [r.merchantReferenceCode, { cartId, returned: true, told: said }]))

  it("breaches when the attempt told failed became the order's payment, or its review the order on hold", () => {
    const approval = record("AUTHORIZATION", 20)
    const review = record("AUTHORIZATION", 20, { reasonCode: "480" })
    const facts = store({ orders: [order("a", approval.transactionId, 20), { ...order("r", "t-none", 20), payments: [], hold: "open" }] })
    const result = check([approval, review], facts, told([[approval, "failed", "a"], [review, "failed", "r"]]))
    expect(result.breaches.filter((b) => b.invariant === TOLD)).toEqual([
      expect.objectContaining({ cartId: "a", transactionId: approval.transactionId, orderId: "order_a" }),
      expect.objectContaining({ cartId: "r", transactionId: review.transactionId, orderId: "order_r" }),
    ])
  })

  it("does not breach for a decline told failed beside another tab's approval, nor for an attempt told pending or paid", () => {
    const approval = record("AUTHORIZATION", 20)
    const decline = record("AUTHORIZATION", 20, { reasonCode: "203" })
    const waited = record("AUTHORIZATION", 20)
    const facts = store({ orders: [order("a", approval.transactionId, 20), order("w", waited.transactionId, 20)] })
    const attempts = told([[approval, "paid", "a"], [decline, "failed", "a"], [waited, "pending", "w"]])
    expect(names(check([approval, decline, waited], facts, attempts))).not.toContain(TOLD)
  })
})

// Issue 40: the service holds exactly what Medusa books, per payment. Made-up
// records of the service and bookings of Medusa, each way they can part.
describe("checkInvariants: the service holds what Medusa books", () => {
  const HOLDS = "payment the service holds otherwise than Medusa books"
  const booked = (approval: ServiceRecord, captured: number, refunded = 0, fields: Partial<BookedPayment> = {}): BookedPayment => ({
    paymentId: `pay_${approval.transactionId}`,
    transactionId: approval.transactionId,
    captured,
    refunded,
    unknownOutcome: false,
    changedAt: 1_000,
    ...fields,
  })
  const judge = (service: ServiceRecord[], bookedPayments: BookedPayment[], options: CheckOptions = { settledBefore: Infinity }) =>
    checkInvariants(service, store({ bookedPayments }), new Map(), new Set(service.map((r) => r.transactionId)), options)
  const holds = (result: ReturnType<typeof judge>) => result.breaches.filter((b) => b.invariant === HOLDS)

  it("finds nothing when both sides agree: a part captured, a refund, a voided refund, a whole refund of a pending capture (its void), a void then a capture again, refused requests", () => {
    const part = record("AUTHORIZATION", 17.4)
    const refunded = record("AUTHORIZATION", 17.4)
    const refundedCapture = on(refunded, "CAPTURE", 17.4)
    const voidedBack = record("AUTHORIZATION", 17.4)
    const voidedCapture = on(voidedBack, "CAPTURE", 17.4, { captureStatus: "VOIDED" })
    const again = record("AUTHORIZATION", 30)
    const onAuthorization = record("AUTHORIZATION", 20)
    const service = [
      part,
      on(part, "CAPTURE", 8.7),
      // The rest, refused by the service (one capture per approval).
      on(part, "CAPTURE", 8.7, { reasonCode: "242" }),
      refunded,
      refundedCapture,
      on(refundedCapture, "REFUND", 5.1),
      on(refundedCapture, "REFUND", 50, { reasonCode: "235" }),
      // A refund voided at the service gave nothing back: Medusa books no refund for it.
      on(refundedCapture, "REFUND", 3, { captureStatus: "VOIDED" }),
      voidedBack,
      voidedCapture,
      on(voidedCapture, "VOID", 17.4),
      on(voidedBack, "REVERSAL", 17.4),
      again,
      on(again, "CAPTURE", 30, { captureStatus: "VOIDED" }),
      on(again, "CAPTURE", 30),
      onAuthorization,
      on(onAuthorization, "CAPTURE", 20),
      // A refund may name the authorization it captured.
      on(onAuthorization, "REFUND", 20),
    ]
    const result = judge(service, [
      booked(part, 8.7),
      booked(refunded, 17.4, 5.1),
      booked(voidedBack, 17.4, 17.4),
      booked(again, 30),
      booked(onAuthorization, 20, 20),
    ])
    expect(holds(result)).toEqual([])
  })

  it("finds nothing for the owner's voids through the plugin's route, which Medusa keeps booking and the payment's data marks; breaches when either side lacks the void", () => {
    const capturedThenVoided = record("AUTHORIZATION", 17.4)
    const refundedThenVoided = record("AUTHORIZATION", 17.4)
    const refundedCapture = on(refundedThenVoided, "CAPTURE", 17.4)
    const claimedOnly = record("AUTHORIZATION", 17.4)
    const unmarked = record("AUTHORIZATION", 17.4)
    const unmarkedCapture = on(unmarked, "CAPTURE", 17.4)
    const service = [
      capturedThenVoided,
      on(capturedThenVoided, "CAPTURE", 17.4, { captureStatus: "VOIDED" }),
      refundedThenVoided,
      refundedCapture,
      on(refundedCapture, "REFUND", 5, { captureStatus: "VOIDED" }),
      // The data says the capture was voided; the service's capture stands.
      claimedOnly,
      on(claimedOnly, "CAPTURE", 17.4),
      // The refund voided at the service; the data does not mark it.
      unmarked,
      unmarkedCapture,
      on(unmarkedCapture, "REFUND", 5, { captureStatus: "VOIDED" }),
    ]
    const result = judge(service, [
      // Medusa books the capture it cannot undo; the data marks it voided.
      booked(capturedThenVoided, 17.4, 0, { voidedInData: { captures: 17.4, refunds: 0 } }),
      // Medusa books the refund it cannot undo; the data marks it voided.
      booked(refundedThenVoided, 17.4, 5, { voidedInData: { captures: 0, refunds: 5 } }),
      booked(claimedOnly, 17.4, 0, { voidedInData: { captures: 17.4, refunds: 0 } }),
      booked(unmarked, 17.4, 5),
    ])
    expect(holds(result).map((b) => b.transactionId).sort()).toEqual([unmarked.transactionId].sort())
    // The capture the data calls voided and the service does not: Medusa and the service agree on it, so no breach of this invariant.
    expect(holds(result).some((b) => b.transactionId === claimedOnly.transactionId)).toBe(false)
  })

  it("breaches when the service captured the whole approval for a part Medusa booked (f27b735's capture)", () => {
    const approval = record("AUTHORIZATION", 17.4)
    const result = judge([approval, on(approval, "CAPTURE", 17.4)], [booked(approval, 8.7)])
    expect(holds(result)).toHaveLength(1)
    expect(holds(result)[0]).toMatchObject({ transactionId: approval.transactionId })
    expect(holds(result)[0].detail).toContain("captures 8.7 and refunds 0")
    expect(holds(result)[0].detail).toContain("captures 17.4 and refunds 0")
  })

  it("breaches on each side moving money the other does not book", () => {
    const noCapture = record("AUTHORIZATION", 17.4)
    const noRefund = record("AUTHORIZATION", 17.4)
    const noRefundCapture = on(noRefund, "CAPTURE", 17.4)
    const unbooked = record("AUTHORIZATION", 17.4)
    const unbookedCapture = on(unbooked, "CAPTURE", 17.4)
    const unbookedVoid = record("AUTHORIZATION", 17.4)
    const twice = record("AUTHORIZATION", 17.4)
    // Nets that agree, totals that do not: both sides must hold each total.
    const bookedBoth = record("AUTHORIZATION", 17.4)
    const movedBoth = record("AUTHORIZATION", 17.4)
    const movedBothCapture = on(movedBoth, "CAPTURE", 17.4)
    const service = [
      noCapture,
      noRefund,
      noRefundCapture,
      unbooked,
      unbookedCapture,
      // Refunded at the service, and Medusa deleted its refund row (the provider threw).
      on(unbookedCapture, "REFUND", 4),
      unbookedVoid,
      // Voided at the service; Medusa books neither a refund nor less capture.
      on(unbookedVoid, "CAPTURE", 17.4, { captureStatus: "VOIDED" }),
      twice,
      on(twice, "CAPTURE", 8.7),
      bookedBoth,
      movedBoth,
      movedBothCapture,
      on(movedBothCapture, "REFUND", 8.7),
    ]
    const bookings = [
      booked(noCapture, 17.4),
      booked(noRefund, 17.4, 6),
      booked(unbooked, 17.4),
      booked(unbookedVoid, 17.4),
      // A second capture of the rest booked by Medusa, refused or never made at the service.
      booked(twice, 17.4),
      // A capture and its whole refund booked; the service moved nothing (and voided nothing).
      booked(bookedBoth, 17.4, 17.4),
      // The service captured the whole approval and refunded the difference; Medusa booked the part only.
      booked(movedBoth, 8.7),
    ]
    const result = judge(service, bookings)
    expect(holds(result).map((b) => b.transactionId)).toEqual([
      noCapture.transactionId,
      noRefund.transactionId,
      unbooked.transactionId,
      unbookedVoid.transactionId,
      twice.transactionId,
      bookedBoth.transactionId,
      movedBoth.transactionId,
    ])
  })

  it("sums the payments of one approval, and judges a payment that names no approval against nothing held", () => {
    const approval = record("AUTHORIZATION", 17.4)
    const service = [approval, on(approval, "CAPTURE", 17.4)]
    const halves = [booked(approval, 8.7, 0, { paymentId: "pay_1" }), booked(approval, 8.7, 0, { paymentId: "pay_2" })]
    expect(holds(judge(service, halves))).toEqual([])
    const orphan = { ...booked(approval, 5), paymentId: "pay_orphan", transactionId: null }
    expect(holds(judge(service, [...halves, orphan])).map((b) => b.detail)).toEqual([
      expect.stringContaining("pay_orphan captures 5"),
    ])
  })

  it("counts a payment with an outcome booked UNKNOWN apart during the run, and breaches on it after the final sweep", () => {
    const approval = record("AUTHORIZATION", 17.4)
    const capture = on(approval, "CAPTURE", 17.4)
    // A refund sent with no answer: Medusa books it, the service never made it.
    const bookings = [booked(approval, 17.4, 5, { unknownOutcome: true })]
    const during = judge([approval, capture], bookings, { settledBefore: 5_000, quietBefore: 5_000 })
    expect(holds(during)).toEqual([])
    expect(during.unknownOutcomes).toEqual({ payments: [bookings[0].paymentId], differing: [bookings[0].paymentId] })
    const final = judge([approval, capture], bookings)
    expect(holds(final)).toHaveLength(1)
    expect(holds(final)[0].detail).toContain("booked UNKNOWN")
    // One that agrees is counted, not differing, and no breach either time.
    const agreeing = judge([approval, capture, on(capture, "REFUND", 5)], bookings, { settledBefore: 5_000, quietBefore: 5_000 })
    expect(agreeing.unknownOutcomes).toEqual({ payments: [bookings[0].paymentId], differing: [] })
    expect(holds(judge([approval, capture, on(capture, "REFUND", 5)], bookings))).toEqual([])
  })

  it("does not judge during the run a payment that moved lately on either side or that the store owner is working on; the final check judges it", () => {
    const approval = record("AUTHORIZATION", 17.4)
    const lateRecord = record("AUTHORIZATION", 17.4)
    const busy = record("AUTHORIZATION", 17.4)
    const service = [approval, on(approval, "CAPTURE", 17.4), lateRecord, on(lateRecord, "CAPTURE", 17.4, { recordedAt: 6_000 }), busy]
    const bookings = [booked(approval, 8.7, 0, { changedAt: 6_000 }), booked(lateRecord, 8.7), booked(busy, 8.7)]
    const options = { settledBefore: 5_000, quietBefore: 5_000, busyPayments: new Set([`pay_${busy.transactionId}`]) }
    expect(holds(judge(service, bookings, options))).toEqual([])
    expect(holds(judge(service, bookings, { ...options, quietBefore: 7_000 })).map((b) => b.transactionId)).toEqual([
      approval.transactionId,
      lateRecord.transactionId,
    ])
    expect(holds(judge(service, bookings))).toHaveLength(3)
  })

  it("is not judged without Medusa's bookings", () => {
    const approval = record("AUTHORIZATION", 17.4)
    const facts = store({ orders: [order("a", approval.transactionId, 17.4, { captured: 8.7 })] })
    expect(check([approval, on(approval, "CAPTURE", 17.4)], facts).breaches).toEqual([])
  })
})

// The sweep once canceled an order the owner had only edited (its first
// payment released by the edit, taken for a stopped order cancel).
describe("checkInvariants: no order canceled that nobody canceled", () => {
  const NOBODY = "order canceled that nobody canceled"
  const released = (cartId: string) => {
    const approval = record("AUTHORIZATION", 30)
    return {
      service: [approval, on(approval, "REVERSAL", 30)],
      order: { ...order(cartId, approval.transactionId, 30, { canceled: true, captured: 0 }), canceled: true },
    }
  }
  const judge = (orders: StoreOrder[], service: ServiceRecord[], canceledOnPurpose?: Set<string>) =>
    checkInvariants(service, store({ orders }), new Map(), new Set(service.map((r) => r.transactionId)), {
      settledBefore: Infinity,
      canceledOnPurpose,
    }).breaches.filter((b) => b.invariant === NOBODY)

  it("breaches on a canceled order the owner never canceled and that was never on hold; not on the owner's cancel, a closed hold, or an open order", () => {
    const edited = released("cart_edited")
    const ownerCanceled = released("cart_owner")
    const rejected = released("cart_rejected")
    const open = released("cart_open")
    const orders = [edited.order, ownerCanceled.order, { ...rejected.order, hold: "closed" as const }, { ...open.order, canceled: false }]
    const service = [...edited.service, ...ownerCanceled.service, ...rejected.service, ...open.service]

    const breaches = judge(orders, service, new Set(["cart_owner"]))

    expect(breaches).toEqual([expect.objectContaining({ cartId: "cart_edited", orderId: "order_cart_edited" })])
  })

  it("is not judged when the caller does not say which orders were canceled on purpose", () => {
    const edited = released("cart_edited")
    expect(judge([edited.order], edited.service)).toEqual([])
  })
})
