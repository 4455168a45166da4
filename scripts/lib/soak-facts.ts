/**
 * The facts the soak's invariants are checked on (soak-invariants.ts), read
 * from the sandbox's records and the store's database, and a breached
 * payment's whole history: the service's records of its session's attempts
 * and their follow-ons, every callback delivery, the store's rows and what
 * the shopper did, with the faults in force meanwhile.
 */
import { toNumericCurrency } from "../../src/lib/iso-codes"
import type { Cluster } from "./load-cluster"
import type { Forgery } from "./soak-adversary"
import type { AppliedFault } from "./soak-faults"
import { effectWindow } from "./soak-faults"
import { LOOK_SPREAD_MS, type AttemptFacts, type BookedPayment, type Breach, type ExpiredReview, type ServiceRecord, type StoreFacts, type StoreOrder } from "./soak-invariants"
import type { SoakCheckout } from "./soak-shoppers"
import type { ReviewTiming } from "./soak-time"

export function serviceRecords(cluster: Cluster): ServiceRecord[] {
  return cluster.sandbox.transactions().map((t) => ({
    transactionId: t.transactionId,
    originalTransactionId: t.originalTransactionId,
    merchantReferenceCode: t.merchantReferenceCode,
    step: t.step,
    reasonCode: t.reasonCode,
    amount: t.amount,
    currencyCode: t.currencyCode,
    captureStatus: t.captureStatus,
    recordedAt: cluster.sandbox.recordedAt(t.transactionId) ?? 0,
  }))
}

/** Transactions at least one callback delivery of which the store answered 2xx. */
export function deliveredTransactions(cluster: Cluster): Set<string> {
  return new Set(cluster.sandbox.callbacks().filter((d) => d.ok).map((d) => d.transactionId))
}

/**
 * Transactions at least one callback delivery of which a Medusa instance
 * answered, whatever the status (the proxy's own 502, an instance that died
 * with it in flight, excluded): the store heard of the result.
 */
export function answeredTransactions(cluster: Cluster): Set<string> {
  return new Set(
    cluster.sandbox
      .callbacks()
      .filter((d) => d.status !== undefined && d.status !== 502)
      .map((d) => d.transactionId)
  )
}

/**
 * The rows added to card_service_event during the run, by "kind name" (a
 * call answered 404 apart, as "call retrieve 404": only a made-up id gets one),
 * counted every few seconds in windows of created_at: under compressed time
 * the table keeps rows only minutes (CARD_SERVICE_ACTIVITY_KEEP_MS), so a
 * count at the end would miss the pruned ones. A window closes 5 s before
 * the database's now, after the instances' buffers (one write a second) have
 * written what belongs to it.
 */
export class EventTableCount {
  readonly rows: Record<string, number> = {}
  private from = new Date(0).toISOString()

  async sample(cluster: Cluster): Promise<void> {
    const [{ upto }] = await cluster.query("SELECT (now() - interval '5 seconds') AS upto")
    const until = new Date(upto).toISOString()
    const counted = await cluster.query(
      `SELECT kind || ' ' || name || CASE WHEN kind = 'call' AND http_status = 404 THEN ' 404' ELSE '' END AS key, count(*)::int AS n
         FROM card_service_event WHERE created_at >= $1 AND created_at < $2 GROUP BY 1`,
      [this.from, until]
    )
    for (const row of counted) this.rows[row.key] = (this.rows[row.key] ?? 0) + row.n
    this.from = until
  }

  total(): number {
    return Object.values(this.rows).reduce((sum, n) => sum + n, 0)
  }
}

/** A forged request is answered by a retrieve of what it names within this long (a replay names a real transaction). */
const FORGED_ECHO_MS = 5_000

/**
 * Orders on hold canceled for want of a verdict: the order of a review's
 * session, canceled before the review's verdict went out (ReviewClock),
 * with the service's retrieves of its transaction after the cancel (the
 * sandbox's tally, less those a forged request to its session explains)
 * and whether the session's note says a later cancel failed.
 */
export async function expiredReviews(
  cluster: Cluster,
  reviews: Map<string, ReviewTiming>,
  forged: Map<string, Forgery[]>,
  now = Date.now()
): Promise<ExpiredReview[]> {
  if (!reviews.size) return []
  const rows = await cluster.query(
    `SELECT ps.id AS session_id, ps.data->>'transaction_id' AS transaction_id,
            ps.metadata->'card_service'->'reconcile'->>'review' AS review,
            o.id AS order_id, oc.cart_id, o.canceled_at
       FROM payment_session ps
       JOIN cart_payment_collection cpc ON cpc.payment_collection_id = ps.payment_collection_id AND cpc.deleted_at IS NULL
       JOIN order_cart oc ON oc.cart_id = cpc.cart_id AND oc.deleted_at IS NULL
       JOIN "order" o ON o.id = oc.order_id
      WHERE o.status = 'canceled' AND o.canceled_at IS NOT NULL AND ps.data->>'transaction_id' = ANY($1)`,
    [[...reviews.keys()]]
  )
  const expired: ExpiredReview[] = []
  for (const row of rows) {
    const timing = reviews.get(row.transaction_id)!
    const canceledAt = new Date(row.canceled_at).getTime()
    const verdictAt = timing.concluded ? timing.verdictAt : null
    if (verdictAt !== null && verdictAt <= canceledAt) continue
    const echoes = (forged.get(row.session_id) ?? []).map((f) => f.at)
    const retrievesAfter = cluster.sandbox
      .retrievesOf(row.transaction_id)
      .filter((at) => at > canceledAt && at < (verdictAt ?? now))
      .filter((at) => !echoes.some((sent) => at >= sent && at - sent <= FORGED_ECHO_MS))
      // A retrieve retried (5xx, timeout) is one look.
      .filter((at, index, all) => index === 0 || at - all[index - 1] > LOOK_SPREAD_MS).length
    expired.push({
      transactionId: row.transaction_id,
      sessionId: row.session_id,
      orderId: row.order_id,
      cartId: row.cart_id,
      canceledAt,
      verdictAt,
      retrievesAfter,
      canceledAgain: row.review === "not_canceled",
    })
  }
  return expired
}

export function attemptFacts(checkouts: SoakCheckout[]): Map<string, AttemptFacts> {
  const facts = new Map<string, AttemptFacts>()
  for (const checkout of checkouts) {
    for (const attempt of checkout.attempts) {
      if (checkout.cartId) facts.set(attempt.reference, { cartId: checkout.cartId, returned: attempt.returned, told: attempt.told })
    }
  }
  return facts
}

/** The store's side, read from the database; sessions last changed at or after `settledBefore` are not judged. */
export async function storeFacts(cluster: Cluster, settledBefore: number): Promise<StoreFacts> {
  const before = new Date(Number.isFinite(settledBefore) ? settledBefore : Date.UTC(9999, 11, 31)).toISOString()
  const rows = await cluster.query(
    `SELECT oc.order_id, oc.cart_id, p.id AS payment_id, p.data->>'transaction_id' AS transaction_id,
            p.amount, p.currency_code, p.canceled_at, o.created_at, o.status AS order_status,
            (SELECT array_agg(ps.status::text) FROM cart_payment_collection cpc
               JOIN payment_session ps ON ps.payment_collection_id = cpc.payment_collection_id AND ps.deleted_at IS NULL
              WHERE cpc.cart_id = oc.cart_id AND cpc.deleted_at IS NULL) AS session_statuses,
            (SELECT coalesce(sum(c.amount), 0) FROM capture c WHERE c.payment_id = p.id AND c.deleted_at IS NULL) AS captured,
            (SELECT coalesce(sum(r.amount), 0) FROM refund r WHERE r.payment_id = p.id AND r.deleted_at IS NULL) AS refunded,
            (SELECT coalesce(sum(t.amount) FILTER (WHERE t.reference = 'capture'), 0) FROM order_transaction t
              WHERE t.order_id = oc.order_id AND t.deleted_at IS NULL) AS counted_captured,
            (SELECT coalesce(-sum(t.amount) FILTER (WHERE t.reference = 'refund'), 0) FROM order_transaction t
              WHERE t.order_id = oc.order_id AND t.deleted_at IS NULL) AS counted_refunded,
            (SELECT min(ch.created_at) FROM order_change ch
              WHERE ch.order_id = oc.order_id AND ch.deleted_at IS NULL AND ch.change_type = 'credit_line'
                AND ch.status IN ('pending', 'requested')) AS open_credit_line_since
       FROM order_cart oc
       JOIN "order" o ON o.id = oc.order_id
       LEFT JOIN order_payment_collection opc ON opc.order_id = oc.order_id AND opc.deleted_at IS NULL
       LEFT JOIN payment p ON p.payment_collection_id = opc.payment_collection_id AND p.deleted_at IS NULL
      WHERE oc.deleted_at IS NULL`
  )
  const orders = new Map<string, StoreOrder>()
  for (const row of rows) {
    const order = orders.get(row.order_id) ?? {
      orderId: row.order_id,
      cartId: row.cart_id,
      payments: [] as StoreOrder["payments"],
      hold: holdOf(row.session_statuses ?? [], row.order_status),
      canceled: row.order_status === "canceled",
      createdAt: new Date(row.created_at).getTime(),
      counted: { captured: Number(row.counted_captured), refunded: Number(row.counted_refunded) },
      openCreditLineSince: row.open_credit_line_since ? new Date(row.open_credit_line_since).getTime() : null,
    }
    if (row.payment_id) {
      order.payments.push({
        paymentId: row.payment_id,
        transactionId: row.transaction_id,
        amount: Number(row.amount),
        currencyNumeric: toNumericCurrency(row.currency_code),
        canceled: row.canceled_at !== null,
        captured: Number(row.captured),
        refunded: Number(row.refunded),
      })
    }
    orders.set(row.order_id, order)
  }
  const twice = await cluster.query(
    "SELECT cart_id FROM order_cart WHERE deleted_at IS NULL GROUP BY cart_id HAVING count(*) > 1"
  )
  const paidWithout = await cluster.query(
    `SELECT cpc.cart_id, ps.id AS session_id
       FROM payment_session ps
       JOIN cart_payment_collection cpc ON cpc.payment_collection_id = ps.payment_collection_id AND cpc.deleted_at IS NULL
      WHERE ps.deleted_at IS NULL AND ps.status IN ('authorized', 'captured') AND ps.updated_at < $1
        AND NOT EXISTS (SELECT 1 FROM order_cart oc JOIN "order" o ON o.id = oc.order_id
                         WHERE oc.cart_id = cpc.cart_id AND oc.deleted_at IS NULL)`,
    [before]
  )
  const booked = await bookedPayments(cluster)
  const unknown = await cluster.query(
    `SELECT jsonb_array_elements_text(metadata->'card_service'->'reconcile'->'references') AS reference
       FROM payment_session
      WHERE metadata->'card_service'->'reconcile'->>'status' = 'outcome_unknown'`
  )
  return {
    // Every order, however new: an approval old enough to judge may have got its order a moment ago.
    orders: [...orders.values()],
    cartsWithTwoOrders: twice.map((r) => r.cart_id),
    paidCartsWithoutOrder: paidWithout.map((r) => ({ cartId: r.cart_id, sessionId: r.session_id })),
    unknownOutcomeReferences: new Set(unknown.map((r) => r.reference)),
    bookedPayments: booked,
  }
}

/**
 * Every card-service payment not deleted, with the sums of its capture and
 * refund rows that are not deleted (what Medusa books), whether its data
 * books an outcome as UNKNOWN, and when it last changed (issue 40).
 */
export async function bookedPayments(cluster: Cluster): Promise<BookedPayment[]> {
  const rows = await cluster.query(
    `SELECT p.id, p.data->>'transaction_id' AS transaction_id,
            (SELECT coalesce(sum(c.amount), 0) FROM capture c WHERE c.payment_id = p.id AND c.deleted_at IS NULL) AS captured,
            (SELECT coalesce(sum(r.amount), 0) FROM refund r WHERE r.payment_id = p.id AND r.deleted_at IS NULL) AS refunded,
            greatest(p.updated_at,
                     (SELECT max(c.created_at) FROM capture c WHERE c.payment_id = p.id),
                     (SELECT max(r.created_at) FROM refund r WHERE r.payment_id = p.id)) AS changed_at,
            coalesce(p.data->'transactions' @> '[{"decision": "UNKNOWN"}]'::jsonb, false) AS unknown_outcome,
            (SELECT coalesce(sum((t->>'amount')::numeric) FILTER (WHERE t->>'operation' = 'capture'), 0)
               FROM jsonb_array_elements(CASE WHEN jsonb_typeof(p.data->'transactions') = 'array' THEN p.data->'transactions' ELSE '[]'::jsonb END) t
              WHERE t->>'voided' = 'true') AS voided_captures,
            (SELECT coalesce(sum((t->>'amount')::numeric) FILTER (WHERE t->>'operation' = 'refund'), 0)
               FROM jsonb_array_elements(CASE WHEN jsonb_typeof(p.data->'transactions') = 'array' THEN p.data->'transactions' ELSE '[]'::jsonb END) t
              WHERE t->>'voided' = 'true') AS voided_refunds
       FROM payment p
      WHERE p.deleted_at IS NULL AND p.provider_id LIKE 'pp\\_card-service\\_%'`
  )
  return rows.map((row) => ({
    paymentId: row.id,
    transactionId: row.transaction_id,
    captured: Number(row.captured),
    refunded: Number(row.refunded),
    unknownOutcome: row.unknown_outcome === true,
    changedAt: new Date(row.changed_at).getTime(),
    voidedInData: { captures: Number(row.voided_captures), refunds: Number(row.voided_refunds) },
  }))
}

/**
 * An order on hold waits with its session in pending_authorization (issue
 * 31); a rejection cancels the order and the session, and no verdict in
 * time cancels the order and leaves the session waiting.
 */
function holdOf(sessionStatuses: string[], orderStatus: string): StoreOrder["hold"] {
  const canceled = orderStatus === "canceled"
  if (sessionStatuses.includes("pending_authorization")) return canceled ? "closed" : "open"
  return canceled && sessionStatuses.includes("canceled") && !sessionStatuses.some((s) => s === "authorized" || s === "captured")
    ? "closed"
    : "none"
}

/** The session part of an attempt's reference (merchant-reference.ts: `<session ulid>.<nonce>.<mac>`). */
const sessionPart = (reference: string) => reference.split(".")[0]

/**
 * Everything known of the payment a breach is about, as lines: its
 * session's attempts at the service with their follow-ons, the callback
 * deliveries, the shopper's checkout, the store's session, payment and
 * order rows, and the faults in force during the checkout. No card data:
 * the sandbox keeps none, the rows are ids, states and amounts.
 */
export async function historyOf(
  cluster: Cluster,
  breach: Pick<Breach, "cartId" | "transactionId"> & { title: string },
  checkouts: SoakCheckout[],
  faults: AppliedFault[],
  forgeries: Forgery[] = []
): Promise<string[]> {
  const records = serviceRecords(cluster)
  const byId = new Map(records.map((r) => [r.transactionId, r]))
  const checkout = checkouts.find(
    (c) =>
      (breach.cartId && c.cartId === breach.cartId) ||
      (breach.transactionId && c.attempts.some((a) => a.reference === byId.get(breach.transactionId!)?.merchantReferenceCode))
  )
  const cartId = breach.cartId ?? checkout?.cartId
  const sessions = new Set(
    [...(checkout?.attempts ?? []).map((a) => a.reference), byId.get(breach.transactionId ?? "")?.merchantReferenceCode ?? ""]
      .filter(Boolean)
      .map(sessionPart)
  )
  const attempts = records.filter((r) => r.step === "AUTHORIZATION" && sessions.has(sessionPart(r.merchantReferenceCode)))
  const rootOf = (r: ServiceRecord): string => {
    const original = byId.get(r.originalTransactionId)
    return original ? rootOf(original) : r.transactionId
  }
  const related = records.filter((r) => attempts.some((a) => rootOf(r) === a.transactionId))
  const t0 = Math.min(...related.map((r) => r.recordedAt), checkout?.startedAt ?? Infinity)
  const at = (ms: number) => `+${((ms - t0) / 1000).toFixed(1)} s`
  const lines = [breach.title]
  for (const r of related.sort((a, b) => a.recordedAt - b.recordedAt)) {
    lines.push(
      `  service ${at(r.recordedAt)}: ${r.step} ${r.reasonCode} ${r.amount} ${r.currencyCode}${r.captureStatus ? ` ${r.captureStatus}` : ""} ` +
        `id ${r.transactionId}${r.originalTransactionId ? ` of ${r.originalTransactionId}` : ""} ref ${r.merchantReferenceCode}`
    )
  }
  for (const d of cluster.sandbox.callbacks().filter((d) => related.some((r) => r.transactionId === d.transactionId))) {
    lines.push(
      `  callback ${at(d.at)}: ${d.transactionId} copy ${d.copy}.${d.attempt} ` +
        `${d.dropped ? "dropped" : (d.status ?? d.error ?? "no answer")}${d.ms !== undefined ? ` in ${d.ms} ms` : ""}`
    )
  }
  for (const a of attempts) {
    const times = cluster.sandbox.retrievesOf(a.transactionId)
    if (times.length) {
      lines.push(
        `  service retrieves of ${a.transactionId}: ${times.length}, at ${times.slice(0, 30).map(at).join(", ")}${times.length > 30 ? ", ..." : ""}`
      )
    }
  }
  for (const f of forgeries.filter((f) => sessions.has(f.sessionId.slice("payses_".length)))) {
    lines.push(
      `  forged ${at(f.at)}: ${f.kind}${f.burst ? " (burst)" : ""} to ${f.sessionId}${f.transactionId ? ` naming ${f.transactionId}` : ""}, answered ${f.status}`
    )
  }
  if (checkout) {
    lines.push(
      `  shopper: ${checkout.scenario}, ${checkout.outcome} (expected ${checkout.expected}), ` +
        `attempts ${checkout.attempts.map((a) => `${a.reference}${a.returned ? " returned" : " not returned"}`).join(", ")}` +
        `${checkout.startedAt ? `, from ${at(checkout.startedAt)}` : ""}${checkout.endedAt ? ` to ${at(checkout.endedAt)}` : ""}` +
        `${checkout.error ? `, error: ${checkout.error}` : ""}`
    )
    if (checkout.owner) {
      lines.push(
        `  store owner: ${checkout.owner.action}${checkout.owner.at ? ` at ${at(checkout.owner.at)}` : ""}: ${checkout.owner.outcome ?? "under way"}` +
          (checkout.owner.steps?.length ? ` (${checkout.owner.steps.join("; ")})` : "")
      )
    }
  }
  if (cartId) {
    const rows = await cluster.query(
      `SELECT ps.id, ps.status, ps.authorized_at, ps.deleted_at, ps.data->>'transaction_id' AS transaction_id,
              ps.data->>'state' AS state, ps.metadata->'card_service' AS notes
         FROM payment_session ps
         JOIN cart_payment_collection cpc ON cpc.payment_collection_id = ps.payment_collection_id
        WHERE cpc.cart_id = $1 ORDER BY ps.created_at`,
      [cartId]
    )
    for (const s of rows) {
      lines.push(
        `  store session ${s.id}: ${s.status}${s.deleted_at ? " (deleted)" : ""}, authorized ${s.authorized_at ? "yes" : "no"}, ` +
          `transaction ${s.transaction_id ?? "-"}, state ${s.state ?? "-"}, notes ${JSON.stringify(s.notes ?? {})}`
      )
    }
    const payments = await cluster.query(
      `SELECT oc.order_id, p.id, p.amount, p.currency_code, p.captured_at, p.canceled_at, p.provider_id, p.data->'transactions' AS log,
              (SELECT json_agg(c.amount ORDER BY c.created_at) FROM capture c WHERE c.payment_id = p.id AND c.deleted_at IS NULL) AS captures,
              (SELECT json_agg(r.amount ORDER BY r.created_at) FROM refund r WHERE r.payment_id = p.id AND r.deleted_at IS NULL) AS refunds
         FROM order_cart oc
         LEFT JOIN order_payment_collection opc ON opc.order_id = oc.order_id
         LEFT JOIN payment p ON p.payment_collection_id = opc.payment_collection_id
        WHERE oc.cart_id = $1`,
      [cartId]
    )
    if (!payments.length) lines.push(`  store: cart ${cartId} has no order`)
    for (const p of payments) {
      lines.push(
        `  store order ${p.order_id}: payment ${p.id ?? "none"} ${p.amount ?? ""} ${p.currency_code ?? ""}, ` +
          `captured ${p.captured_at ? "yes" : "no"}, canceled ${p.canceled_at ? "yes" : "no"}` +
          (p.id ? `, provider ${p.provider_id}, captures booked ${JSON.stringify(p.captures ?? [])}, refunds booked ${JSON.stringify(p.refunds ?? [])}` : "") +
          `, log ${JSON.stringify(p.log ?? [])}`
      )
    }
  }
  const from = checkout?.startedAt ?? t0
  const to = checkout?.endedAt ?? Math.max(...related.map((r) => r.recordedAt), from)
  for (const fault of faults.filter((f) => {
    const w = effectWindow(f)
    return w.start <= to && w.end >= from
  })) {
    lines.push(`  fault in force: ${fault.kind} from ${at(fault.startedAt)} to ${at(fault.endedAt)} ${JSON.stringify(fault.params)}`)
  }
  return lines
}
