/**
 * What must hold of money after any run, checked against the service's
 * records (the sandbox) and the store's database (issue 33). Pure: the soak
 * gathers the facts (soak-facts.ts) and prints each breach with the
 * payment's history.
 */

/** A transaction record of the service (section 2.1), as far as the checks need it. */
export type ServiceRecord = {
  transactionId: string
  originalTransactionId: string
  merchantReferenceCode: string
  step: string
  reasonCode: string
  amount: number
  currencyCode: string
  captureStatus?: string
  /** When the service recorded it (ms since the epoch). */
  recordedAt: number
}

/** A Medusa payment of an order. */
export type OrderPayment = {
  paymentId: string
  /** The card-service transaction its data names; null for another provider's payment. */
  transactionId: string | null
  amount: number
  /** ISO 4217 numeric, as the service gives it (Medusa's "eur" is "978"). */
  currencyNumeric: string
  canceled: boolean
  /** Sum of Medusa's refunds and captures of it. */
  refunded: number
  captured: number
}

export type StoreOrder = {
  orderId: string
  cartId: string
  /**
   * When the order was made (ms since the epoch): Medusa's completion makes
   * the order first and records its payment at its very end, so a young
   * order without a payment may still be completing.
   */
  createdAt: number
  payments: OrderPayment[]
  /**
   * Orders on hold (issue 31: a payment under review, 480): "open" while its
   * session waits for the verdict (pending_authorization) and the order is
   * not canceled; "closed" once a rejection (or no verdict in time) canceled
   * it, which leaves it without a payment; "none" for every other order.
   */
  hold: "none" | "open" | "closed"
  /** Medusa's order status is canceled. */
  canceled?: boolean
  /**
   * What the order counts of its payments' money: the sums of its order
   * transactions of reference "capture", and of "refund" as given back
   * (positive). Left out, "order that does not count its payments' money" is
   * not judged.
   */
  counted?: { captured: number; refunded: number }
  /**
   * When the oldest credit-line order change of the order still open was
   * made (ms since the epoch); null for none. Medusa's workflows confirm
   * theirs within a moment; one left open refuses every later change of the
   * order. Left out, not judged.
   */
  openCreditLineSince?: number | null
}

/**
 * A card-service payment as Medusa books it (issue 40): the sums of its rows
 * in the payment module's capture and refund tables that are not deleted.
 */
export type BookedPayment = {
  paymentId: string
  /** The approval its data names (payment.data.transaction_id); null when it names none. */
  transactionId: string | null
  captured: number
  refunded: number
  /** payment.data.transactions holds an entry whose decision is UNKNOWN: a capture or refund sent with no answer. */
  unknownOutcome: boolean
  /** The payment's latest change in Medusa (ms since the epoch): its row, its newest capture or refund. */
  changedAt: number
  /**
   * What payment.data's log marks voided (major units): captures and refunds
   * the owner voided through the plugin's void route, which Medusa keeps
   * booking (it cannot undo a capture or a refund), and a capture the
   * provider voided for a whole refund (Medusa books that refund).
   */
  voidedInData?: { captures: number; refunds: number }
}

export type StoreFacts = {
  orders: StoreOrder[]
  /**
   * Every card-service payment not deleted, with what Medusa books for it;
   * left out, the invariant "the service holds what Medusa books" is not judged.
   */
  bookedPayments?: BookedPayment[]
  /** Carts with more than one order. */
  cartsWithTwoOrders: string[]
  /** Carts whose payment session Medusa authorized or captured and that have no order. */
  paidCartsWithoutOrder: Array<{ cartId: string; sessionId: string }>
  /** merchantReferenceCodes the sweep shows the store owner as "outcome unknown". */
  unknownOutcomeReferences: Set<string>
}

/** What the harness knows of each payment attempt it posted, by merchantReferenceCode. */
export type AttemptFacts = {
  cartId: string
  /** Whether the shopper's browser came back to the store with the result. */
  returned: boolean
  /** What the return route told the shopper of this attempt (its status=), when it came back. */
  told?: "paid" | "failed" | "pending"
}

export type InvariantName =
  | "capture beyond its approval or a second capture"
  | "refund beyond its capture"
  | "approval with neither an order nor a reversal"
  | "paid cart without an order"
  | "order whose payment differs from the approval"
  | "cart with more than one order"
  | "order on hold not concluded"
  | "approval stranded by forged input"
  | "expired review acted on again"
  | "event table grown by forged traffic"
  | "payment the service holds otherwise than Medusa books"
  | "order canceled that nobody canceled"
  | "order that does not count its payments' money"
  | "order change a workflow left open"
  | "shopper told failed, the payment made the order"

export const INVARIANTS: readonly InvariantName[] = [
  "capture beyond its approval or a second capture",
  "refund beyond its capture",
  "approval with neither an order nor a reversal",
  "paid cart without an order",
  "order whose payment differs from the approval",
  "cart with more than one order",
  "order on hold not concluded",
  "approval stranded by forged input",
  "expired review acted on again",
  "event table grown by forged traffic",
  "payment the service holds otherwise than Medusa books",
  "order canceled that nobody canceled",
  "order that does not count its payments' money",
  "order change a workflow left open",
  "shopper told failed, the payment made the order",
]

/**
 * An order on hold canceled for want of a verdict (issue 39), with what
 * happened to it afterwards.
 */
export type ExpiredReview = {
  transactionId: string
  sessionId: string
  orderId: string
  cartId: string
  /** When the order was canceled (ms since the epoch). */
  canceledAt: number
  /** When the review's verdict went out; null while it has not. */
  verdictAt: number | null
  /**
   * Retrieves of the transaction after the cancel and before the verdict
   * (or now), less those a few seconds after a forged request to its session
   * (the adversary's replays and returns are answered by a retrieve too):
   * the sweep asking again about a state it has settled.
   */
  retrievesAfter: number
  /** The session's note says a later cancel of the already canceled order failed (a false Needs-attention entry). */
  canceledAgain: boolean
}

/** The card_service_event rows added during the run, against what explains them. */
export type EventTableFacts = {
  /** Rows added, by "kind name". */
  rows: Record<string, number>
  checkouts: number
  forgeries: number
  /** Forged callbacks an instance answered (each may write a callback row). */
  forgedCallbacksAnswered: number
  /** Retrieves of transactions the service never issued (made-up ids). */
  unknownRetrieves: number
  /** Orders on hold closed (canceled); each is closed by the sweep at most twice (expired, then its late verdict). */
  closedHolds: number
  /** Minutes the run has lasted. */
  minutes: number
}

/** What the checks of issue 39 need; a part left out is not judged. */
export type AdversaryFacts = {
  /** Sessions that received forged traffic: forged requests by session id. */
  forgedSessions: Map<string, number>
  /** Transactions at least one callback delivery of which an instance answered, whatever its status: the store heard of them. */
  answeredTransactions: Set<string>
  expiredReviews?: ExpiredReview[]
  eventTable?: EventTableFacts
  /** The sweep's period under compressed time. */
  sweepEveryMs?: number
  /** When the facts were gathered (ms since the epoch). */
  gatheredAt: number
}

/**
 * An expired review's looks after its cancel (retrieves within
 * LOOK_SPREAD_MS of each other are one look: the client retries a retrieve
 * the service answered 5xx or not at all): the look that finds its late
 * verdict, and one spare (a look racing an instance's death), plus one a
 * minute, the shortest gap of the sweep's schedule for an order on hold
 * (review-verdict.ts, putOffNextLook). A sweep that asks on every pass (issue
 * 39's second finding; a pass every 15 s under --compress-time) exceeds it
 * within a minute or two.
 */
export const EXPIRED_RETRIEVES_SPARE = 2
export const EXPIRED_LOOK_EVERY_MS = 60_000
export const LOOK_SPREAD_MS = 5_000

/**
 * Rows a checkout may add to card_service_event. A checkout of the soak's
 * mix writes about 3 (its result, its share of the sampled calls and of the
 * minute's tallies: trial runs of 27 November, 60 checkouts); 20 leaves
 * room for retries under faults and for the sweep, and is what an event
 * table growing with something else than checkouts soon passes. Forged
 * traffic at the default rate, a request for every four checkouts, would
 * not pass it even at a row each: FORGED_ROWS_PER_MINUTE bounds that part.
 */
export const ROWS_PER_CHECKOUT_MAX = 20

/**
 * Rows only forged traffic writes (a refused callback, a retrieve of a
 * made-up id answered 404) may add, whatever its count: on each of two
 * instances a tally row a minute for refused callbacks and 5 sampled call
 * rows a minute, and ten spare. A row per forged request, as on b22a589
 * (issue 39's fourth finding), exceeds it within minutes at the adversary's
 * default rate.
 */
export const FORGED_ROWS_PER_MINUTE = 12
export const FORGED_ROWS_SPARE = 10

export type Breach = {
  invariant: InvariantName
  /** What the breach is about: a transaction, a cart or an order. */
  transactionId?: string
  cartId?: string
  orderId?: string
  detail: string
}

/** Amounts are major units as numbers; a difference below this is rounding. */
const EPSILON = 1e-6

const isApproval = (r: ServiceRecord) => r.step === "AUTHORIZATION" && (r.reasonCode === "100" || r.reasonCode === "110")
const accepted = (r: ServiceRecord) => r.reasonCode === "100"
const live = (r: ServiceRecord) => r.captureStatus !== "VOIDED"

export type CheckOptions = {
  /**
   * Only approvals and carts older than this moment (ms since the epoch) are
   * judged for being left behind; capture and refund bounds hold at every
   * moment. The final check after the sweep passes Infinity.
   */
  settledBefore: number
  /**
   * Payments whose last movement (Medusa's booking or the service's record)
   * is at or after this moment are not judged for "the service holds what
   * Medusa books": Medusa writes its capture or refund row before it asks the
   * provider, and the provider's call may still be under way. Defaults to
   * settledBefore.
   */
  quietBefore?: number
  /** Payments an action of the store owner is working on right now: not judged for it either. */
  busyPayments?: ReadonlySet<string>
  /**
   * Carts whose order the store owner set out to cancel. Given, every other
   * canceled order that was never on hold (a rejected review and one with no
   * verdict in time are canceled by the plugin on purpose) is a breach: the
   * sweep once took the first payment an order edit released for a stopped
   * order cancel and canceled the edited order. Left out, not judged.
   */
  canceledOnPurpose?: ReadonlySet<string>
}

/**
 * What the service holds for one payment against what Medusa books for it
 * (payments sharing one approval summed together).
 */
export type HoldingComparison = {
  paymentIds: string[]
  transactionId: string | null
  currencyCode: string
  /** Medusa: captures and refunds, rows not deleted; and what its payments' data logs mark voided. */
  booked: { captured: number; refunded: number; voidedCaptures: number; voidedRefunds: number }
  /**
   * The service: its accepted CAPTURE records of the approval that are not
   * voided, its accepted REFUND records of those captures that are not
   * voided, and its voided captures (money taken and given back by a void,
   * which Medusa books as a refund of the whole capture, or which the owner
   * voided through the plugin's route) and voided refunds.
   */
  held: { captured: number; refunded: number; voidedCaptures: number; voidedRefunds: number }
}

/**
 * Every breach of the soak's invariants. Approvals nobody reported (every
 * callback lost and the shopper never came back: the interface has no
 * search by reference) are not left behind when the store shows them as
 * "outcome unknown" (docs/reconciliation.md); `unreported` lists them.
 */
export function checkInvariants(
  service: ServiceRecord[],
  store: StoreFacts,
  attempts: Map<string, AttemptFacts>,
  deliveredTransactions: Set<string>,
  { settledBefore, quietBefore = settledBefore, busyPayments = new Set(), canceledOnPurpose }: CheckOptions,
  adversary?: AdversaryFacts
): { breaches: Breach[]; unreported: string[]; unknownOutcomes: UnknownOutcomes } {
  const breaches: Breach[] = []
  const byId = new Map(service.map((r) => [r.transactionId, r]))
  const approvalOf = (r: ServiceRecord): ServiceRecord | undefined => {
    const original = byId.get(r.originalTransactionId)
    if (!original) return undefined
    return original.step === "AUTHORIZATION" ? original : approvalOf(original)
  }
  const approvals = service.filter(isApproval)
  const captures = new Map<string, ServiceRecord[]>()
  const refunds = new Map<string, ServiceRecord[]>()
  const reversed = new Set<string>()
  for (const r of service) {
    if (!accepted(r)) continue
    const approval = approvalOf(r)
    if (!approval) continue
    const into = r.step === "CAPTURE" ? captures : r.step === "REFUND" ? refunds : null
    if (into && live(r)) into.set(approval.transactionId, [...(into.get(approval.transactionId) ?? []), r])
    if (r.step === "REVERSAL") reversed.add(approval.transactionId)
  }
  const sum = (records: ServiceRecord[] | undefined) => (records ?? []).reduce((total, r) => total + r.amount, 0)

  for (const approval of approvals) {
    const id = approval.transactionId
    const captured = captures.get(id) ?? []
    if (captured.length > 1 || sum(captured) > approval.amount + EPSILON) {
      breaches.push({
        invariant: "capture beyond its approval or a second capture",
        transactionId: id,
        detail: `approved ${approval.amount} ${approval.currencyCode}; captures ${captured.map((c) => c.amount).join(", ")}`,
      })
    }
    if (sum(refunds.get(id)) > sum(captured) + EPSILON) {
      breaches.push({
        invariant: "refund beyond its capture",
        transactionId: id,
        detail: `captured ${sum(captured)}, refunded ${sum(refunds.get(id))} (${approval.currencyCode})`,
      })
    }
  }

  const paidBy = new Map<string, StoreOrder>()
  for (const order of store.orders) {
    for (const payment of order.payments) if (payment.transactionId) paidBy.set(payment.transactionId, order)
  }
  const unreported: string[] = []
  for (const approval of approvals) {
    const id = approval.transactionId
    if (approval.recordedAt >= settledBefore || paidBy.has(id) || reversed.has(id)) continue
    const attempt = attempts.get(approval.merchantReferenceCode)
    const forged = adversary?.forgedSessions.get(sessionOfReference(approval.merchantReferenceCode)) ?? 0
    // A forged session's result the store heard of (a delivery it answered,
    // even 5xx) was reported: "outcome unknown" is then what forged input
    // made of it, not an excuse.
    const heard = deliveredTransactions.has(id) || (forged > 0 && adversary!.answeredTransactions.has(id))
    if (attempt && !attempt.returned && !heard) {
      unreported.push(id)
      if (store.unknownOutcomeReferences.has(approval.merchantReferenceCode)) continue
    }
    breaches.push({
      invariant: forged > 0 ? "approval stranded by forged input" : "approval with neither an order nor a reversal",
      transactionId: id,
      cartId: attempt?.cartId,
      detail:
        `approved ${approval.amount} ${approval.currencyCode}, reference ${approval.merchantReferenceCode}` +
        (forged > 0 ? `; its session received ${forged} forged requests` : "") +
        (attempt && !attempt.returned && !heard
          ? "; nobody reported it (no callback delivered, the shopper never came back) and the store does not show it as outcome unknown"
          : ""),
    })
  }

  for (const order of store.orders) {
    if (!order.payments.length && order.hold === "none" && order.createdAt < settledBefore) {
      breaches.push({
        invariant: "order whose payment differs from the approval",
        orderId: order.orderId,
        cartId: order.cartId,
        detail: "the order has no payment",
      })
    }
    for (const payment of order.payments) {
      if (payment.refunded > payment.captured + EPSILON) {
        breaches.push({
          invariant: "refund beyond its capture",
          orderId: order.orderId,
          transactionId: payment.transactionId ?? undefined,
          detail: `Medusa's payment ${payment.paymentId}: captured ${payment.captured}, refunded ${payment.refunded}`,
        })
      }
      if (!payment.transactionId) continue
      const approval = byId.get(payment.transactionId)
      const differs =
        !approval ||
        !isApproval(approval) ||
        Math.abs(approval.amount - payment.amount) > EPSILON ||
        approval.currencyCode !== payment.currencyNumeric
      // An approval the service reversed holds no money: an order whose
      // payment Medusa still counts on it would ship unpaid (the payment's
      // capture would be refused). Canceled payments were reversed on purpose,
      // and so were payments refunded in full before the service sent their
      // capture (the plugin voids the capture and reverses the approval); a
      // young order's cancel may be between its reversal and Medusa's mark.
      const returned = payment.captured > 0 && payment.refunded >= payment.captured - EPSILON
      if (!differs && !payment.canceled && !returned && reversed.has(payment.transactionId) && order.createdAt < settledBefore) {
        breaches.push({
          invariant: "order whose payment differs from the approval",
          orderId: order.orderId,
          cartId: order.cartId,
          transactionId: payment.transactionId,
          detail: `payment ${payment.amount} ${payment.currencyNumeric} not canceled; the service reversed its approval`,
        })
      }
      if (differs) {
        breaches.push({
          invariant: "order whose payment differs from the approval",
          orderId: order.orderId,
          cartId: order.cartId,
          transactionId: payment.transactionId,
          detail: approval
            ? `payment ${payment.amount} ${payment.currencyNumeric}; the service's record: ${approval.step} ${approval.reasonCode}, ${approval.amount} ${approval.currencyCode}`
            : `payment ${payment.amount} ${payment.currencyNumeric}; the service has no such transaction`,
        })
      }
    }
    const uncounted = uncountedMoney(order, store.bookedPayments, quietBefore, busyPayments)
    if (uncounted) {
      breaches.push({ invariant: "order that does not count its payments' money", orderId: order.orderId, cartId: order.cartId, detail: uncounted })
    }
    if (order.openCreditLineSince != null && order.openCreditLineSince < quietBefore - RECORD_SLACK_MS) {
      breaches.push({
        invariant: "order change a workflow left open",
        orderId: order.orderId,
        cartId: order.cartId,
        detail: `a credit-line change made at ${new Date(order.openCreditLineSince).toISOString()} is still open: Medusa refuses every other change of the order`,
      })
    }
    if (order.hold === "open" && order.createdAt < settledBefore) {
      breaches.push({
        invariant: "order on hold not concluded",
        orderId: order.orderId,
        cartId: order.cartId,
        detail: "its payment session still waits for the review's verdict",
      })
    }
  }
  // "Failed" sends a shopper to pay again: the attempt it was said of must
  // not become the order (issue 42: a review whose completion failed for a
  // moment was told failed, 480, while the sweep later placed its order).
  for (const [reference, attempt] of attempts) {
    if (attempt.told !== "failed") continue
    const approval = service.find(
      (r) => r.step === "AUTHORIZATION" && r.merchantReferenceCode === reference && (isApproval(r) || r.reasonCode === "480")
    )
    const order = approval && store.orders.find((o) => o.cartId === attempt.cartId)
    if (!approval || !order) continue
    const madeIt =
      order.payments.some((p) => p.transactionId === approval.transactionId) || (approval.reasonCode === "480" && order.hold !== "none")
    if (madeIt) {
      breaches.push({
        invariant: "shopper told failed, the payment made the order",
        orderId: order.orderId,
        cartId: attempt.cartId,
        transactionId: approval.transactionId,
        detail: `the return said status=failed for reference ${reference}; its ${approval.reasonCode} is the payment of order ${order.orderId}${order.hold !== "none" ? " (on hold)" : ""}`,
      })
    }
  }
  for (const cartId of store.cartsWithTwoOrders) {
    breaches.push({ invariant: "cart with more than one order", cartId, detail: "two or more orders for one cart" })
  }
  for (const { cartId, sessionId } of store.paidCartsWithoutOrder) {
    breaches.push({ invariant: "paid cart without an order", cartId, detail: `session ${sessionId} authorized in Medusa, no order` })
  }
  if (canceledOnPurpose) {
    for (const order of store.orders) {
      if (!order.canceled || order.hold !== "none" || canceledOnPurpose.has(order.cartId)) continue
      breaches.push({
        invariant: "order canceled that nobody canceled",
        orderId: order.orderId,
        cartId: order.cartId,
        detail: `order ${order.orderId} is canceled; the store owner never canceled it and it was never on hold`,
      })
    }
  }
  if (adversary) breaches.push(...expiredReviewBreaches(adversary), ...eventTableBreaches(adversary))
  const held = heldAsBooked(service, approvalOf, store.bookedPayments, { final: !Number.isFinite(settledBefore), quietBefore, busyPayments })
  breaches.push(...held.breaches)
  return { breaches, unreported, unknownOutcomes: held.unknownOutcomes }
}

/**
 * The order's transactions against its payments' capture and refund rows
 * (Medusa's capture and refund workflows book the payment, then record it on
 * the order in a later step: an instance that died in between left the
 * payment booked and the order showing less paid or refunded). Judged once
 * every payment of the order is quiet (its last movement before
 * `quietBefore`, and RECORD_SLACK_MS more: the sweep records such a row
 * once it is as old as quietBefore asks, on its next pass; no owner's action
 * on it under way); a description of the difference, or null.
 */
const RECORD_SLACK_MS = 120_000
function uncountedMoney(
  order: StoreOrder,
  booked: BookedPayment[] | undefined,
  quietBefore: number,
  busyPayments: ReadonlySet<string>
): string | null {
  if (!order.counted) return null
  const changedAt = new Map((booked ?? []).map((p) => [p.paymentId, p.changedAt]))
  const quiet = quietBefore - RECORD_SLACK_MS
  if (order.payments.some((p) => busyPayments.has(p.paymentId) || (changedAt.get(p.paymentId) ?? order.createdAt) >= quiet)) return null
  const captured = order.payments.reduce((total, p) => total + p.captured, 0)
  const refunded = order.payments.reduce((total, p) => total + p.refunded, 0)
  const { counted } = order
  if (Math.abs(counted.captured - captured) <= EPSILON && Math.abs(counted.refunded - refunded) <= EPSILON) return null
  return `its payments book captured ${captured}, refunded ${refunded}; the order counts captured ${counted.captured}, refunded ${counted.refunded}`
}

/**
 * Payments with a capture or refund of unknown outcome (payment.data's
 * decision "UNKNOWN"): counted apart, not as breaches, until the final sweep,
 * which settles lost captures; after it they are judged like any other.
 */
export type UnknownOutcomes = {
  /** Card-service payments whose data books an outcome as UNKNOWN. */
  payments: string[]
  /** Of them, those whose totals differ from the service's (breaches after the final sweep). */
  differing: string[]
}

/**
 * Issue 40's invariant, "the service holds exactly what Medusa books, per
 * payment": for each card-service payment, Medusa's captures and refunds
 * (rows not deleted) against the service's records of its approval. With no
 * capture voided, both totals must be equal. A capture the service voided
 * (the provider's whole refund of a capture still pending, section 2.4)
 * is money taken and given back: Medusa books it as a capture and a refund
 * of the whole of it, so Medusa's captures may exceed the service's live
 * ones, and its refunds the service's, by the same amount, at most the
 * voided captures' sum.
 */
function heldAsBooked(
  service: ServiceRecord[],
  approvalOf: (r: ServiceRecord) => ServiceRecord | undefined,
  booked: BookedPayment[] | undefined,
  { final, quietBefore, busyPayments }: { final: boolean; quietBefore: number; busyPayments: ReadonlySet<string> }
): { breaches: Breach[]; unknownOutcomes: UnknownOutcomes } {
  const unknownOutcomes: UnknownOutcomes = { payments: [], differing: [] }
  if (!booked) return { breaches: [], unknownOutcomes }
  const breaches: Breach[] = []
  const byApproval = new Map<string, ServiceRecord[]>()
  for (const r of service) {
    if (r.step === "AUTHORIZATION") continue
    const approval = approvalOf(r)
    if (approval) byApproval.set(approval.transactionId, [...(byApproval.get(approval.transactionId) ?? []), r])
  }
  const approvals = new Map(service.filter((r) => r.step === "AUTHORIZATION").map((r) => [r.transactionId, r]))
  // Payments of one approval are one holding at the service (a payment whose data names no approval stands alone).
  const groups = new Map<string, BookedPayment[]>()
  for (const payment of booked) {
    const key = payment.transactionId ?? `payment:${payment.paymentId}`
    groups.set(key, [...(groups.get(key) ?? []), payment])
  }
  for (const [, payments] of groups) {
    const transactionId = payments[0].transactionId
    const records = transactionId ? (byApproval.get(transactionId) ?? []) : []
    const comparison = compareHolding(payments, transactionId, records, approvals.get(transactionId ?? "")?.currencyCode ?? "")
    const movedAt = Math.max(...payments.map((p) => p.changedAt), ...records.map((r) => r.recordedAt))
    if (!final && (movedAt >= quietBefore || payments.some((p) => busyPayments.has(p.paymentId)))) continue
    const differs = holdingDiffers(comparison)
    if (payments.some((p) => p.unknownOutcome)) {
      unknownOutcomes.payments.push(...payments.map((p) => p.paymentId))
      if (differs) unknownOutcomes.differing.push(...payments.map((p) => p.paymentId))
      if (!final) continue
    }
    if (!differs) continue
    const { booked: b, held: h } = comparison
    breaches.push({
      invariant: "payment the service holds otherwise than Medusa books",
      transactionId: transactionId ?? undefined,
      detail:
        `Medusa books for ${comparison.paymentIds.join(", ")} captures ${round(b.captured)} and refunds ${round(b.refunded)}; ` +
        `the service holds for ${transactionId ?? "no approval"} captures ${round(h.captured)} and refunds ${round(h.refunded)}` +
        (h.voidedCaptures ? `, and voided captures of ${round(h.voidedCaptures)}` : "") +
        (comparison.currencyCode ? ` (${comparison.currencyCode})` : "") +
        (payments.some((p) => p.unknownOutcome) ? "; an outcome is booked UNKNOWN and the final sweep did not settle it" : ""),
    })
  }
  return { breaches, unknownOutcomes }
}

/** The service's totals for one approval against Medusa's bookings of its payments. */
export function compareHolding(
  payments: BookedPayment[],
  transactionId: string | null,
  records: ServiceRecord[],
  currencyCode = ""
): HoldingComparison {
  const done = records.filter(accepted)
  const sum = (rs: ServiceRecord[]) => rs.reduce((total, r) => total + r.amount, 0)
  const captures = done.filter((r) => r.step === "CAPTURE")
  return {
    paymentIds: payments.map((p) => p.paymentId),
    transactionId,
    currencyCode,
    booked: {
      captured: payments.reduce((total, p) => total + p.captured, 0),
      refunded: payments.reduce((total, p) => total + p.refunded, 0),
      voidedCaptures: payments.reduce((total, p) => total + (p.voidedInData?.captures ?? 0), 0),
      voidedRefunds: payments.reduce((total, p) => total + (p.voidedInData?.refunds ?? 0), 0),
    },
    held: {
      captured: sum(captures.filter(live)),
      refunded: sum(done.filter((r) => r.step === "REFUND" && live(r))),
      voidedCaptures: sum(captures.filter((r) => !live(r))),
      voidedRefunds: sum(done.filter((r) => r.step === "REFUND" && !live(r))),
    },
  }
}

/**
 * Whether Medusa's bookings differ from what the service holds: equal
 * totals, or Medusa ahead on captures by an amount the service's voided
 * captures cover, and ahead on refunds by the same amount (a whole refund
 * the provider made as a void) but for what the owner voided through the
 * plugin's route: a voided capture Medusa books with no refund, a voided
 * refund Medusa still books. Only voids both the service and the payment's
 * data record count (compareHolding).
 */
export function holdingDiffers({ booked, held }: HoldingComparison): boolean {
  const givenBack = booked.captured - held.captured
  const refundsVoidedByOwner = Math.min(booked.voidedRefunds, held.voidedRefunds)
  // Of the captures given back, what Medusa books no refund for: voided by the owner's route.
  const capturesVoidedByOwner = givenBack - (booked.refunded - refundsVoidedByOwner - held.refunded)
  return (
    givenBack < -EPSILON ||
    givenBack > held.voidedCaptures + EPSILON ||
    capturesVoidedByOwner < -EPSILON ||
    capturesVoidedByOwner > Math.min(booked.voidedCaptures, held.voidedCaptures) + EPSILON
  )
}

/** Major units without float noise, for a breach's detail. */
const round = (amount: number) => Number(amount.toFixed(6))

/** The session id a payment attempt's reference names (merchant-reference.ts: `<session ULID>.<nonce>.<mac>`). */
export const sessionOfReference = (reference: string) => `payses_${reference.split(".")[0]}`

/**
 * No expired state acted on again: an order canceled for want of a verdict
 * is not canceled again, and the sweep does not keep asking the service
 * about it (EXPIRED_RETRIEVES_SPARE, EXPIRED_LOOK_EVERY_MS).
 */
function expiredReviewBreaches({ expiredReviews = [], sweepEveryMs, gatheredAt }: AdversaryFacts): Breach[] {
  const breaches: Breach[] = []
  for (const review of expiredReviews) {
    const about = { transactionId: review.transactionId, cartId: review.cartId, orderId: review.orderId }
    if (review.canceledAgain) {
      breaches.push({
        invariant: "expired review acted on again",
        ...about,
        detail: `order ${review.orderId}, canceled for want of a verdict, was canceled again (the session's note says the cancel failed)`,
      })
    }
    if (!sweepEveryMs) continue
    const until = review.verdictAt ?? gatheredAt
    const passes = Math.max(0, Math.floor((until - review.canceledAt) / sweepEveryMs))
    const allowed = EXPIRED_RETRIEVES_SPARE + Math.floor((until - review.canceledAt) / EXPIRED_LOOK_EVERY_MS)
    if (review.retrievesAfter > allowed) {
      breaches.push({
        invariant: "expired review acted on again",
        ...about,
        detail:
          `the service was asked ${review.retrievesAfter} times (looks) about it after its order was canceled for want of a verdict, ` +
          `in ${passes} sweep passes ${review.verdictAt ? "until its verdict came" : "so far"} (at most ${allowed})`,
      })
    }
  }
  return breaches
}

/**
 * The event table grows with checkouts, not with forged traffic: rows per
 * checkout below ROWS_PER_CHECKOUT_MAX, rows only forged traffic writes
 * (refused callbacks, retrieves answered 404) below a bound that grows with
 * time, not with the forged count, and the sweep's "review_closed" rows no more than two per
 * closed order on hold.
 */
function eventTableBreaches({ eventTable: t }: AdversaryFacts): Breach[] {
  if (!t || !t.checkouts) return []
  const breaches: Breach[] = []
  const total = Object.values(t.rows).reduce((sum, n) => sum + n, 0)
  const forgedRows = (t.rows["callback refused"] ?? 0) + (t.rows["call retrieve 404"] ?? 0)
  const allowedForged = FORGED_ROWS_SPARE + Math.floor(FORGED_ROWS_PER_MINUTE * t.minutes)
  if (total / t.checkouts > ROWS_PER_CHECKOUT_MAX) {
    breaches.push({
      invariant: "event table grown by forged traffic",
      detail: `${total} rows for ${t.checkouts} checkouts and ${t.forgeries} forged requests: ${(total / t.checkouts).toFixed(1)} a checkout (at most ${ROWS_PER_CHECKOUT_MAX})`,
    })
  }
  if (t.forgeries > 0 && forgedRows > allowedForged) {
    breaches.push({
      invariant: "event table grown by forged traffic",
      detail:
        `${forgedRows} rows only forged traffic writes (refused callbacks ${t.rows["callback refused"] ?? 0}, retrieves answered 404 ${t.rows["call retrieve 404"] ?? 0}) ` +
        `from ${t.forgeries} forged requests (${t.forgedCallbacksAnswered} callbacks answered, ${t.unknownRetrieves} retrieves of made-up ids) in ${t.minutes.toFixed(1)} min (at most ${allowedForged})`,
    })
  }
  const reviewClosed = t.rows["sweep review_closed"] ?? 0
  if (reviewClosed > 2 * t.closedHolds + EXPIRED_RETRIEVES_SPARE) {
    breaches.push({
      invariant: "expired review acted on again",
      detail: `the sweep closed reviews ${reviewClosed} times (rows "sweep review_closed") for ${t.closedHolds} closed orders on hold (at most ${2 * t.closedHolds + EXPIRED_RETRIEVES_SPARE})`,
    })
  }
  return breaches
}
