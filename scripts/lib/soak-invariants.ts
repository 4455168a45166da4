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
}

export type StoreFacts = {
  orders: StoreOrder[]
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
}

export type InvariantName =
  | "capture beyond its approval or a second capture"
  | "refund beyond its capture"
  | "approval with neither an order nor a reversal"
  | "paid cart without an order"
  | "order whose payment differs from the approval"
  | "cart with more than one order"
  | "order on hold not concluded"

export const INVARIANTS: readonly InvariantName[] = [
  "capture beyond its approval or a second capture",
  "refund beyond its capture",
  "approval with neither an order nor a reversal",
  "paid cart without an order",
  "order whose payment differs from the approval",
  "cart with more than one order",
  "order on hold not concluded",
]

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
  { settledBefore }: CheckOptions
): { breaches: Breach[]; unreported: string[] } {
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
    if (attempt && !attempt.returned && !deliveredTransactions.has(id)) {
      unreported.push(id)
      if (store.unknownOutcomeReferences.has(approval.merchantReferenceCode)) continue
    }
    breaches.push({
      invariant: "approval with neither an order nor a reversal",
      transactionId: id,
      cartId: attempt?.cartId,
      detail:
        `approved ${approval.amount} ${approval.currencyCode}, reference ${approval.merchantReferenceCode}` +
        (attempt && !attempt.returned && !deliveredTransactions.has(id)
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
    if (order.hold === "open" && order.createdAt < settledBefore) {
      breaches.push({
        invariant: "order on hold not concluded",
        orderId: order.orderId,
        cartId: order.cartId,
        detail: "its payment session still waits for the review's verdict",
      })
    }
  }
  for (const cartId of store.cartsWithTwoOrders) {
    breaches.push({ invariant: "cart with more than one order", cartId, detail: "two or more orders for one cart" })
  }
  for (const { cartId, sessionId } of store.paidCartsWithoutOrder) {
    breaches.push({ invariant: "paid cart without an order", cartId, detail: `session ${sessionId} authorized in Medusa, no order` })
  }
  return { breaches, unreported }
}
