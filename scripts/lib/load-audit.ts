/**
 * What a load run left behind, from the sandbox's transaction records and
 * the database: the counts that must be zero, and what became of each
 * approval or order the audit found unfinished.
 */
import type { Cluster } from "./load-cluster"
import type { CheckoutResult } from "./load-shoppers"

export type Audit = {
  cardCheckouts: number
  doubleOrders: number
  doubleCaptures: number
  approvalsLeftBehind: number
  /** Each approval left behind: its transaction, reference, cart (when a shopper of the run paid it) and whether that cart has an order. */
  leftBehindDetails: string[]
  /** The transaction ids of the approvals left behind, for followLeftBehind. */
  leftBehindIds: string[]
  ordersWithoutCapture: number
  /** Their approvals, for followWithoutCapture. */
  withoutCaptureIds: string[]
  /** For the first few orders without a capture at the service: what Medusa's payment of it says. */
  withoutCaptureDetails: string[]
  undeliveredCallbacks: number
  upstream5xx: number
  /** Of upstream5xx, the answers to the service's callbacks (load-cluster.ts). */
  callback5xx: number
}

/**
 * What must be zero, from the sandbox's transaction records and the database:
 * carts with more than one order, authorizations captured more than once,
 * approvals with neither an order nor a reversal. `settleMs` lets re-sent
 * callbacks finish first.
 */
export async function audit(
  cluster: Cluster,
  results: CheckoutResult[],
  settleMs = 8000
): Promise<Audit> {
  await waitUntilCallbacksSettle(cluster, settleMs)
  const doubles = await cluster.query(
    "SELECT cart_id FROM order_cart WHERE deleted_at IS NULL GROUP BY cart_id HAVING count(*) > 1"
  )
  const ordered = await orderedCarts(cluster)
  const cartOfTransaction = cartsOfTransactions(results)
  const transactions = cluster.sandbox.transactions()
  const approvals = transactions.filter(
    (t) => t.step === "AUTHORIZATION" && t.reasonCode === "100"
  )
  const capturesOf = capturesByApproval(cluster)
  const reversed = reversedApprovals(cluster)
  // Which orders must have a capture: the card side's, when the store
  // captures automatically; never the authorize-only side's.
  const authorizeOnly = new Set(
    results.filter((r) => r.provider === "authorize" && r.transactionId).map((r) => r.transactionId!)
  )
  const captures = (transactionId: string) => cluster.autoCapture && !authorizeOnly.has(transactionId)
  let leftBehind = 0
  const leftBehindDetails: string[] = []
  const leftBehindIds: string[] = []
  let withoutCapture = 0
  const withoutCaptureIds: string[] = []
  for (const approval of approvals) {
    const cartId = cartOfTransaction.get(approval.transactionId)
    const hasOrder = cartId !== undefined && ordered.has(cartId)
    if (!hasOrder && !reversed.has(approval.transactionId)) {
      leftBehind++
      leftBehindIds.push(approval.transactionId)
      leftBehindDetails.push(
        `approval ${approval.transactionId} (reference ${approval.merchantReferenceCode}, ` +
          (cartId ? `cart ${cartId} without an order` : "paid by no shopper of this run") +
          ")"
      )
    }
    if (hasOrder && !capturesOf.get(approval.transactionId) && captures(approval.transactionId)) {
      withoutCapture++
      withoutCaptureIds.push(approval.transactionId)
    }
  }
  const undelivered = undeliveredCallbacks(cluster)
  return {
    cardCheckouts: approvals.length,
    doubleOrders: doubles.length,
    doubleCaptures: [...capturesOf.values()].filter((n) => n > 1).length,
    approvalsLeftBehind: leftBehind,
    leftBehindDetails,
    leftBehindIds,
    ordersWithoutCapture: withoutCapture,
    withoutCaptureIds,
    withoutCaptureDetails: await paymentStates(cluster, withoutCaptureIds.slice(0, 10)),
    undeliveredCallbacks: undelivered,
    upstream5xx: cluster.counters.upstream5xx,
    callback5xx: cluster.counters.callback5xx,
  }
}

/** The carts that are an order. */
async function orderedCarts(cluster: Cluster): Promise<Set<string>> {
  const rows = await cluster.query("SELECT cart_id FROM order_cart WHERE deleted_at IS NULL")
  return new Set(rows.map((row) => row.cart_id))
}

/** The service's successful captures, counted by the authorization each captured. */
function capturesByApproval(cluster: Cluster): Map<string, number> {
  const capturesOf = new Map<string, number>()
  for (const t of cluster.sandbox.transactions()) {
    if (t.step === "CAPTURE" && t.reasonCode === "100") {
      capturesOf.set(t.originalTransactionId, (capturesOf.get(t.originalTransactionId) ?? 0) + 1)
    }
  }
  return capturesOf
}

/** The authorizations the service reversed. */
function reversedApprovals(cluster: Cluster): Set<string> {
  return new Set(
    cluster.sandbox
      .transactions()
      .filter((t) => t.step === "REVERSAL" && t.reasonCode === "100")
      .map((t) => t.originalTransactionId)
  )
}

/** Which shopper's cart each transaction of the run paid for. */
function cartsOfTransactions(results: CheckoutResult[]): Map<string, string> {
  return new Map(results.filter((r) => r.transactionId).map((r) => [r.transactionId!, r.cartId!] as const))
}

/**
 * Medusa's payment of each approval: whether it is captured in Medusa
 * (captured_at, its capture rows) and the last entry of the payment's log
 * (operation and decision: UNKNOWN is a capture with no answer, left to the
 * sweep). No card data is in either.
 */
async function paymentStates(cluster: Cluster, transactionIds: string[]): Promise<string[]> {
  if (!transactionIds.length) return []
  const rows = await cluster.query(
    `SELECT p.data->>'transaction_id' AS transaction_id, p.captured_at, p.canceled_at,
            (SELECT count(*)::int FROM capture c WHERE c.payment_id = p.id AND c.deleted_at IS NULL) AS captures,
            p.data->'transactions'->-1->>'operation' AS last_operation,
            p.data->'transactions'->-1->>'decision' AS last_decision
       FROM payment p WHERE p.deleted_at IS NULL AND p.data->>'transaction_id' = ANY($1)`,
    [transactionIds]
  )
  const byId = new Map(rows.map((row) => [row.transaction_id, row]))
  return transactionIds.map((id) => {
    const row = byId.get(id)
    if (!row) return `order without a capture: approval ${id}, no Medusa payment names it`
    return (
      `order without a capture: approval ${id}; Medusa's payment: ${row.captures} capture(s), ` +
      `captured_at ${row.captured_at ? "set" : "null"}, canceled_at ${row.canceled_at ? "set" : "null"}, ` +
      `last log entry ${row.last_operation ?? "-"} ${row.last_decision ?? "-"}`
    )
  })
}

/**
 * What became of each approval the audit found left behind: waits (up to
 * `waitMs`) until it has an order or a reversal and says when, and whether a
 * callback delivery was answered 2xx in between (else the sweep or the
 * browser settled it), with the approval's callback history: copy.attempt,
 * the status Medusa answered (or the error) and when, from its first
 * delivery.
 */
export async function followLeftBehind(
  cluster: Cluster,
  results: CheckoutResult[],
  ids: string[],
  waitMs = 90_000
): Promise<string[]> {
  if (!ids.length) return []
  const since = Date.now()
  const cartOf = cartsOfTransactions(results)
  const pending = new Set(ids)
  const lines: string[] = []
  while (pending.size) {
    const reversed = reversedApprovals(cluster)
    const ordered = await orderedCarts(cluster)
    for (const id of [...pending]) {
      const cartId = cartOf.get(id)
      const outcome = reversed.has(id) ? "reversed" : cartId && ordered.has(cartId) ? "ordered" : null
      if (!outcome) continue
      pending.delete(id)
      const answered = cluster.sandbox
        .callbacks()
        .some((d) => d.transactionId === id && d.ok && d.at >= since)
      lines.push(
        `follow-up: approval ${id} ${outcome} within ${Math.ceil((Date.now() - since) / 1000)} s of the audit, ` +
          (answered ? "after a callback delivery answered 2xx" : "with no callback delivered since the audit (the sweep)") +
          `; its callbacks: ${callbackHistory(cluster, id)}`
      )
    }
    if (!pending.size || Date.now() - since > waitMs) break
    await new Promise((resolve) => setTimeout(resolve, 2500))
  }
  for (const id of pending) {
    lines.push(
      `follow-up: approval ${id} still without an order or a reversal ${Math.round(waitMs / 1000)} s after the audit; ` +
        `its callbacks: ${callbackHistory(cluster, id)}`
    )
  }
  return lines
}

/**
 * What became of each order the audit found without a capture (an instance
 * killed inside Medusa's cart completion leaves its order without a
 * payment): waits (up to `waitMs`, past Medusa's 2-minute cart lock and a
 * sweep) until Medusa has a payment naming the approval and the service a
 * capture of it, and says when; else says what is still missing.
 */
export async function followWithoutCapture(cluster: Cluster, ids: string[], waitMs = 240_000): Promise<string[]> {
  if (!ids.length) return []
  const since = Date.now()
  const pending = new Set(ids)
  const lines: string[] = []
  const state = async (id: string) => {
    const captured = (capturesByApproval(cluster).get(id) ?? 0) > 0
    const [row] = await cluster.query(
      `SELECT p.id, p.captured_at FROM payment p WHERE p.deleted_at IS NULL AND p.data->>'transaction_id' = $1`,
      [id]
    )
    return { captured, payment: row ? (row.captured_at ? "captured" : "not captured") : "none" }
  }
  for (;;) {
    for (const id of [...pending]) {
      const now = await state(id)
      if (!now.captured || now.payment !== "captured") continue
      pending.delete(id)
      lines.push(
        `follow-up: the order of approval ${id} has its payment (Medusa: captured; the service: one capture) ` +
          `within ${Math.ceil((Date.now() - since) / 1000)} s of the audit`
      )
    }
    if (!pending.size || Date.now() - since > waitMs) break
    await new Promise((resolve) => setTimeout(resolve, 5000))
  }
  for (const id of pending) {
    const now = await state(id)
    lines.push(
      `follow-up: the order of approval ${id} still has no captured payment ${Math.round(waitMs / 1000)} s after the audit ` +
        `(Medusa's payment: ${now.payment}; a capture at the service: ${now.captured ? "yes" : "no"})`
    )
  }
  return lines
}

function callbackHistory(cluster: Cluster, transactionId: string): string {
  const deliveries = cluster.sandbox.callbacks().filter((d) => d.transactionId === transactionId)
  if (!deliveries.length) return "none"
  const first = deliveries[0].at
  return deliveries
    .map(
      (d) =>
        `${d.copy}.${d.attempt} ${d.dropped ? "dropped" : (d.status ?? d.error ?? "no answer")} ` +
        `at +${((d.at - first) / 1000).toFixed(1)} s` +
        (d.ms !== undefined ? ` (${(d.ms / 1000).toFixed(1)} s)` : "")
    )
    .join(", ")
}

/** Callback copies whose every attempt failed (the service gave up on them). */
function undeliveredCallbacks(cluster: Cluster): number {
  const byCopy = new Map<string, boolean>()
  for (const d of cluster.sandbox.callbacks()) {
    if (d.dropped) continue
    const key = `${d.transactionId}#${d.copy}`
    byCopy.set(key, (byCopy.get(key) ?? false) || d.ok)
  }
  return [...byCopy.values()].filter((ok) => !ok).length
}

async function waitUntilCallbacksSettle(cluster: Cluster, settleMs: number) {
  // Re-deliveries are spaced by the retry interval; wait until none is due.
  const deadline = Date.now() + settleMs
  let last = -1
  while (Date.now() < deadline) {
    const count = cluster.sandbox.callbacks().length
    if (count === last) break
    last = count
    await new Promise((resolve) => setTimeout(resolve, 2500))
  }
}
