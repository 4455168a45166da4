/**
 * The money operations of the crash-point harness (issue 42), each as what
 * it needs before it starts (prepare, never trapped), the operation itself
 * (act: the part in which the points lie), what the world does after a
 * crash (recover: the browser comes back or not, the store owner presses
 * the button again or not), and whether it has come to an end the money
 * agrees with (done).
 */
import { request } from "undici"
import { AUTHORIZE_ONLY_PROVIDER_ID, CARD_PROVIDER_ID, type Cluster } from "./load-cluster"
import { postPayForm, storeClient, toldByReturn, type TestCard } from "./load-shoppers"
import type { storeOwner } from "./soak-admin"
import { locksInRedis } from "./crash-traps"

export const OPERATIONS = [
  "authorize-by-callback",
  "authorize-by-return",
  "capture",
  "refund",
  "void",
  "reverse",
  "owner-void",
  "order-edit",
  "review-approved",
  "review-rejected",
] as const
export type OperationName = (typeof OPERATIONS)[number]

/** What one run works on; filled in by prepare and act. */
export type Subject = {
  cartId: string
  sessionId: string
  reference?: string
  /** The approval (the payment's transaction). */
  transactionId?: string
  orderId?: string
  paymentId?: string
  amount?: number
  /** Where the service sent the shopper's browser (the return route), not followed yet. */
  returnLocation?: string
  /** When the act began (ms since the epoch). */
  actedAt?: number
  /** The payment's capture at the service (owner-void). */
  captureId?: string
  /** The admin call the operation made, to make again as the owner would. */
  adminCall?: { path: string; body: unknown }
  /** How the act's own requests were answered. */
  answers: string[]
  /** What the return route last told the shopper of this attempt (its status=). */
  told?: "paid" | "failed" | "pending"
  /** The checkout before the trap did not become an order by itself: what the store held, and how the sweep finished it. */
  checkoutStall?: string
}

/** The return route's answer to the browser: its status (0: none) and where it sent the browser. */
export type Returned = { status: number; location?: string }

/**
 * The drawn timing of one run: when the browser comes back after the
 * crash (null: never; the storefront's poll or the service's callback
 * must do), when the owner presses the button again (null: never), how
 * long a killed instance stays down.
 */
export type Timing = { returnAfterMs: number | null; ownerRetryAfterMs: number | null; downMs: number }

export type OperationContext = {
  cluster: Cluster
  shop: ReturnType<typeof storeClient>
  owner: ReturnType<typeof storeOwner>
}

export type Operation = {
  name: OperationName
  /** One line for the table: what the operation is. */
  what: string
  prepare(ctx: OperationContext): Promise<Subject>
  act(ctx: OperationContext, subject: Subject): Promise<void>
  recover(ctx: OperationContext, subject: Subject, timing: Timing): Promise<void>
  /** The operation's end, as the store and the service both record it; null while it has none. */
  done(ctx: OperationContext, subject: Subject): Promise<string | null>
}

const card = (number: string): TestCard => ({ number, cardType: "VISA" })
const FRICTIONLESS = card("4000000000001000")
/** Marked for review (480), concluded approved and rejected (481): docs/sandbox.md, "Test cards". */
const REVIEW_APPROVED = card("4000000000004806")
const REVIEW_REJECTED = card("4000000000004830")

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The browser at the return route: its status (0 when the connection failed) and where it was sent. */
async function comeBackTo(location: string): Promise<Returned> {
  const back = await request(location, { method: "GET", headers: { "sec-fetch-mode": "navigate" } }).catch(() => null)
  await back?.body.dump()
  const onwards = back?.headers.location
  return { status: back?.statusCode ?? 0, location: typeof onwards === "string" ? onwards : undefined }
}

/** The browser at the return route for the subject's attempt: the route's status (0: none); what it told the shopper is kept. */
async function comeBack(subject: Subject, location: string): Promise<number> {
  const returned = await comeBackTo(location)
  subject.told = toldBy(returned) ?? subject.told
  return returned.status
}

/** What the return route told the shopper: the status= of where it sent the browser. */
function toldBy(returned: Returned): Subject["told"] {
  return returned.location ? toldByReturn(returned.location) : undefined
}

/** The session's pay form posted with `with_`; where the service sends the browser is kept, not followed. */
async function payWith(ctx: OperationContext, with_: TestCard, subject: Subject) {
  const posted = await postPayForm(await ctx.shop.formOf(subject.sessionId), with_)
  if (posted.status !== 303) throw new Error(`the service answered the form ${posted.status}`)
  subject.returnLocation = posted.location
  const query = new URL(posted.location).searchParams
  subject.transactionId = query.get("transactionId") ?? undefined
  subject.reference = query.get("merchantReferenceCode") ?? undefined
  subject.answers.push(`form ${posted.status}`)
}

/** The order of a cart and its newest card-service payment (canceled or not). */
async function orderOf(cluster: Cluster, cartId: string) {
  const [row] = await cluster.query(
    `SELECT oc.order_id, o.status AS order_status, p.id AS payment_id, p.amount, p.canceled_at,
            p.data->>'transaction_id' AS transaction_id,
            (SELECT array_agg(ps.status::text) FROM payment_session ps WHERE ps.payment_collection_id = opc.payment_collection_id AND ps.deleted_at IS NULL) AS sessions
       FROM order_cart oc
       JOIN "order" o ON o.id = oc.order_id
       LEFT JOIN order_payment_collection opc ON opc.order_id = oc.order_id AND opc.deleted_at IS NULL
       LEFT JOIN payment p ON p.payment_collection_id = opc.payment_collection_id AND p.deleted_at IS NULL
      WHERE oc.cart_id = $1 AND oc.deleted_at IS NULL
      ORDER BY p.created_at DESC NULLS LAST LIMIT 1`,
    [cartId]
  )
  return row
    ? {
        orderId: row.order_id as string,
        orderStatus: row.order_status as string,
        paymentId: (row.payment_id as string | null) ?? undefined,
        amount: row.amount === null ? undefined : Number(row.amount),
        canceled: row.canceled_at !== null,
        transactionId: row.transaction_id as string | null,
        sessions: (row.sessions as string[] | null) ?? [],
      }
    : null
}

/** How long a checkout before the trap has to become an order by its callback and the return alone. */
const CHECKOUT_MS = 60_000
/** Then how long the sweep, run as the store's schedule would run it, has to finish it. */
const SWEPT_CHECKOUT_MS = 120_000
/** Between the harness's sweeps (as after a crash, bench-crash-points.ts). */
const CHECKOUT_SWEEP_EVERY_MS = 5_000

/**
 * A whole checkout to an order, outside any trap: the state an
 * after-checkout operation starts from.
 *
 * A store runs its sweep every minute, and the plugin counts on it: a
 * callback copy that finds another copy being settled is acknowledged once
 * its result is noted for the sweep (callback-settlement.ts). The harness
 * schedules no sweep of the store's own and, before this, swept only after a
 * crash, so a checkout that the callback and the return did not finish
 * waited for a sweep that never came. Twice in some 13,000 runs a checkout
 * here made no order in two minutes; neither time could the store be read
 * before its lane was gone, so whether the sweep would have finished it is
 * not known. Now it gets the sweep as a store would, and what the store held
 * when it stalled stays with the run (subject.checkoutStall): the stall is
 * counted and shown, not hidden. A checkout the sweep cannot finish either
 * is a breach, with what the store held at both moments.
 */
async function checkedOut(ctx: OperationContext, providerId: string, with_: TestCard = FRICTIONLESS): Promise<Subject> {
  const ready = await ctx.shop.cartReadyToPay(providerId)
  const subject: Subject = { ...ready, answers: [] }
  await payWith(ctx, with_, subject)
  const returned = await comeBackTo(subject.returnLocation!)
  subject.told = toldBy(returned)
  const ordered = async () => {
    const order = await orderOf(ctx.cluster, subject.cartId)
    if (order?.paymentId || (order && with_ !== FRICTIONLESS)) {
      Object.assign(subject, { orderId: order.orderId, paymentId: order.paymentId, amount: order.amount })
      return true
    }
    return false
  }
  let stalled = ""
  const waited = await orderedOrSwept({
    ordered,
    onStall: async () => void (stalled = await checkoutEvidence(ctx.cluster, subject, returned)),
    sweep: async () => {
      const up = ctx.cluster.instances.find((i) => i.up)
      if (up) await ctx.owner.sweep(up.url).catch(() => undefined)
    },
  })
  if (waited.kind === "ordered") return subject
  if (waited.kind === "swept") {
    subject.checkoutStall =
      `no order ${CHECKOUT_MS / 1000} s after the return (${stalled}); ` +
      `the sweep made it ${(waited.afterMs / 1000).toFixed(1)} s later (${waited.sweeps} sweep(s))`
    return subject
  }
  throw new Error(
    `no order for cart ${subject.cartId} ${CHECKOUT_MS / 1000} s after the return (${stalled}), ` +
      `nor after ${SWEPT_CHECKOUT_MS / 1000} s of sweeps (${waited.sweeps}): ${await checkoutEvidence(ctx.cluster, subject, returned)}`
  )
}

/**
 * Waits for `ordered()` for `checkoutMs`; then tells `onStall` and runs
 * `sweep` every `everyMs` for `sweptMs` more, while still waiting.
 */
export async function orderedOrSwept({
  ordered,
  onStall,
  sweep,
  checkoutMs = CHECKOUT_MS,
  sweptMs = SWEPT_CHECKOUT_MS,
  everyMs = CHECKOUT_SWEEP_EVERY_MS,
  pollMs = 250,
}: {
  ordered: () => Promise<boolean>
  onStall: () => Promise<void>
  sweep: () => Promise<void>
  checkoutMs?: number
  sweptMs?: number
  everyMs?: number
  pollMs?: number
}): Promise<{ kind: "ordered" } | { kind: "swept"; afterMs: number; sweeps: number } | { kind: "not"; sweeps: number }> {
  for (const until = Date.now() + checkoutMs; Date.now() < until; await sleep(pollMs)) {
    if (await ordered()) return { kind: "ordered" }
  }
  await onStall()
  const sweptFrom = Date.now()
  let sweeps = 0
  for (let next = sweptFrom; Date.now() < sweptFrom + sweptMs; await sleep(pollMs)) {
    if (Date.now() >= next) {
      next = Date.now() + everyMs
      sweeps++
      await sweep()
    }
    if (await ordered()) return { kind: "swept", afterMs: Date.now() - sweptFrom, sweeps }
  }
  return { kind: "not", sweeps }
}

/**
 * What the store and the service hold for a checkout that made no order: the
 * return route's answer and where it sent the browser, the cart, its payment
 * collection and sessions (whether the approval is attached, the results
 * noted for the sweep), every attempt of the service's callback and how it
 * was answered, the service's record of the approval, the instances.
 */
export async function checkoutEvidence(
  cluster: Cluster,
  subject: Subject,
  returned: Returned,
  readLocks: (cluster: Cluster) => Promise<{ name: string; ttlMs: number }[]> = locksInRedis
): Promise<string> {
  const sent = returned.location ? new URL(returned.location).searchParams : null
  const facts = [
    `the return route answered ${returned.status || "nothing"}${sent ? ` to ${[...sent.entries()].filter(([k]) => k !== "cart_id").map(([k, v]) => `${k}=${v}`).join("&")}` : ""}`,
  ]
  try {
    const [cart] = await cluster.query(
      `SELECT c.completed_at, pc.status AS collection, pc.id AS collection_id,
              (SELECT string_agg(ps.id || ' ' || ps.status::text || ' state ' || coalesce(ps.data->>'state', '-') ||
                       ' transaction ' || CASE WHEN ps.data->>'transaction_id' IS NULL THEN 'none'
                                               WHEN ps.data->>'transaction_id' = $2 THEN 'the approval' ELSE 'another' END ||
                       ' notes ' || coalesce(left((ps.metadata->'card_service')::text, 300), '-'), '; ')
                 FROM payment_session ps WHERE ps.payment_collection_id = pc.id AND ps.deleted_at IS NULL) AS sessions,
              (SELECT count(*) FROM payment p WHERE p.payment_collection_id = pc.id) AS payments
         FROM cart c
         LEFT JOIN cart_payment_collection cpc ON cpc.cart_id = c.id AND cpc.deleted_at IS NULL
         LEFT JOIN payment_collection pc ON pc.id = cpc.payment_collection_id
        WHERE c.id = $1`,
      [subject.cartId, subject.transactionId ?? ""]
    )
    facts.push(
      cart
        ? `cart completed ${cart.completed_at ?? "no"}, collection ${cart.collection ?? "none"}, sessions [${cart.sessions ?? ""}], payments ${cart.payments}`
        : "no such cart"
    )
  } catch (error) {
    facts.push(`the store's database could not be read: ${(error as Error).message}`)
  }
  const attempts = cluster.sandbox.callbacks().filter((c) => c.transactionId === subject.transactionId)
  const first = attempts[0]?.at ?? 0
  facts.push(
    `callbacks ${
      attempts
        .map((c) => `copy ${c.copy} attempt ${c.attempt} at +${c.at - first} ms: ${c.dropped ? "dropped" : (c.status ?? c.error ?? "no answer")} in ${c.ms ?? "-"} ms`)
        .join(", ") || "none"
    }`
  )
  const records = cluster.sandbox.transactions().filter((r) => r.transactionId === subject.transactionId || r.originalTransactionId === subject.transactionId)
  facts.push(`the service holds ${records.map((r) => `${r.step} ${r.reasonCode}`).join(", ") || "nothing"} for ${subject.transactionId ?? "no transaction"}`)
  const locks = await readLocks(cluster).catch((error: Error) => error)
  facts.push(
    locks instanceof Error
      ? `the locks could not be read: ${locks.message}`
      : `locks held ${locks.map((l) => `${l.name} (${l.ttlMs < 0 ? "no expiry" : `${Math.ceil(l.ttlMs / 1000)} s left`})`).join(", ") || "none"}`
  )
  facts.push(`instances ${cluster.instances.map((i) => `${i.name} ${i.up ? `up ${i.startedAt ? `${Math.round((Date.now() - i.startedAt) / 1000)} s` : ""}` : "down"}`).join(", ")}`)
  return facts.join("; ")
}

/** What the service holds for an approval: captured and refunded (a voided capture counts as given back), and whether it was reversed. */
export function serviceHolds(cluster: Cluster, approval: string) {
  const records = cluster.sandbox.transactions()
  const captures = records.filter((r) => r.step === "CAPTURE" && r.reasonCode === "100" && r.originalTransactionId === approval)
  const captureIds = new Set(captures.map((c) => c.transactionId))
  const live = (r: { captureStatus?: string }) => r.captureStatus !== "VOIDED"
  const refunds = records.filter((r) => r.step === "REFUND" && r.reasonCode === "100" && captureIds.has(r.originalTransactionId) && live(r))
  const sum = (list: { amount: number }[]) => Math.round(list.reduce((s, r) => s + r.amount, 0) * 100) / 100
  return {
    captured: sum(captures.filter(live)),
    refunded: sum(refunds),
    voided: sum(captures.filter((c) => !live(c))),
    reversed: records.some((r) => r.step === "REVERSAL" && r.reasonCode === "100" && r.originalTransactionId === approval),
  }
}

/** What Medusa books for a payment: captured, refunded, its log's accepted entries, whether an outcome is booked UNKNOWN. */
async function medusaBooks(cluster: Cluster, paymentId: string) {
  const [row] = await cluster.query(
    `SELECT p.canceled_at, p.data->'transactions' AS transactions,
            (SELECT coalesce(sum(c.amount), 0) FROM capture c WHERE c.payment_id = p.id AND c.deleted_at IS NULL) AS captured,
            (SELECT coalesce(sum(r.amount), 0) FROM refund r WHERE r.payment_id = p.id AND r.deleted_at IS NULL) AS refunded,
            coalesce(p.data->'transactions' @> '[{"decision": "UNKNOWN"}]'::jsonb, false) AS unknown
       FROM payment p WHERE p.id = $1`,
    [paymentId]
  )
  const entries = ((row?.transactions ?? []) as Array<{ transaction_id?: string | null; operation: string; decision: string }>).filter(
    (e) => e.decision === "ACCEPT"
  )
  return {
    captured: Number(row?.captured ?? 0),
    refunded: Number(row?.refunded ?? 0),
    unknown: row?.unknown === true,
    canceled: row ? row.canceled_at !== null : false,
    entries,
  }
}

/**
 * The owner's void through the plugin's route, as both sides record it:
 * the service's capture voided or not, and payment.data's capture entry
 * marked voided with a void logged, or not. Medusa keeps booking the
 * capture either way (it cannot undo one).
 */
async function ownerVoidDone(ctx: OperationContext, subject: Subject): Promise<string | null> {
  const [row] = await ctx.cluster.query(`SELECT p.data->'transactions' AS transactions FROM payment p WHERE p.id = $1`, [subject.paymentId])
  const entries = (row?.transactions ?? []) as Array<{ transaction_id?: string | null; operation: string; decision: string; voided?: boolean }>
  if (entries.some((e) => e.decision === "UNKNOWN")) return null
  const marked = entries.some((e) => e.operation === "capture" && e.transaction_id === subject.captureId && e.voided)
  const logged = entries.some((e) => e.operation === "void" && e.decision === "ACCEPT")
  const capture = ctx.cluster.sandbox.transactions().find((r) => r.transactionId === subject.captureId)
  const voided = capture?.captureStatus === "VOIDED"
  if (voided && marked && logged) return "capture voided, and booked so"
  if (!voided && !marked && !logged) return "capture not voided"
  return null
}

/**
 * How long after an order edit's release (the payment's cancel mark, or the
 * act when there is none) its end is judged: past the sweep's grace for a
 * payment's release (CANCEL_GRACE_MS, a minute) and two of the harness's
 * sweeps, so a sweep that took the edit's release for a stopped order
 * cancel, and canceled the order, is seen.
 */
const EDIT_JUDGED_AFTER_MS = 75_000

/** The first payment of an edited order and the order, as Medusa and the service record them. */
async function orderEditDone(ctx: OperationContext, subject: Subject): Promise<string | null> {
  const [row] = await ctx.cluster.query(
    `SELECT o.status AS order_status, p.canceled_at, p.metadata->'card_service'->'cancel'->>'requested_at' AS released_at
       FROM payment p, "order" o WHERE p.id = $1 AND o.id = $2`,
    [subject.paymentId, subject.orderId]
  )
  const since = Math.max(subject.actedAt ?? 0, row?.released_at ? Date.parse(row.released_at) : 0)
  if (!row || Date.now() - since < EDIT_JUDGED_AFTER_MS || row.order_status === "canceled") return null
  const { reversed } = serviceHolds(ctx.cluster, subject.transactionId!)
  const canceled = row.canceled_at !== null
  if (reversed && canceled) return "edited: the first payment canceled, its approval released, the order open"
  if (!reversed && !canceled) return "the edit not confirmed: the payment authorized, its approval kept, the order open"
  return null
}

/** The log's operation for a service record's step. */
const OPERATION_OF: Record<string, string> = { CAPTURE: "capture", REFUND: "refund", VOID: "void", REVERSAL: "reversal" }

/** The service's accepted follow-ons of an approval (its captures and reversals, their refunds and voids...), as their log operations and ids. */
function followOnsOf(cluster: Cluster, approval: string): { id: string; operation: string }[] {
  const records = cluster.sandbox.transactions().filter((r) => r.reasonCode === "100")
  const chain = new Map<string, string>()
  for (let grew = true; grew; ) {
    grew = false
    for (const r of records) {
      if (!chain.has(r.transactionId) && (r.originalTransactionId === approval || chain.has(r.originalTransactionId))) {
        chain.set(r.transactionId, OPERATION_OF[r.step] ?? r.step.toLowerCase())
        grew = true
      }
    }
  }
  return [...chain].map(([id, operation]) => ({ id, operation }))
}

/**
 * Whether the payment's log holds each of the service's follow-ons: by id,
 * or as an accepted entry of that operation whose id the service never
 * named (a 242 confirms a capture without its id; the interface cannot
 * find it by reference).
 */
function logHoldsAll(entries: { transaction_id?: string | null; operation: string }[], followOns: { id: string; operation: string }[]) {
  const ids = new Set(entries.map((e) => e.transaction_id).filter(Boolean))
  const unnamed = entries.filter((e) => !e.transaction_id).map((e) => e.operation)
  for (const followOn of followOns) {
    if (ids.has(followOn.id)) continue
    const at = unnamed.indexOf(followOn.operation)
    if (at < 0) return false
    unnamed.splice(at, 1)
  }
  return true
}

/**
 * Medusa and the service agree on the payment's money (a void is booked as a
 * refund), Medusa's payment holds every follow-on the service made (or a
 * later refund could not name its capture), and nothing is of unknown outcome.
 */
async function moneyAgrees(ctx: OperationContext, subject: Subject): Promise<string | null> {
  const books = await medusaBooks(ctx.cluster, subject.paymentId!)
  const holds = serviceHolds(ctx.cluster, subject.transactionId!)
  const refunded = Math.round((holds.refunded + holds.voided) * 100) / 100
  if (books.unknown || books.captured !== holds.captured + holds.voided || books.refunded !== refunded) return null
  if (!logHoldsAll(books.entries, followOnsOf(ctx.cluster, subject.transactionId!))) return null
  return `captured ${books.captured}, refunded ${books.refunded}`
}

/** The admin call of the operation, made once more by the owner at the drawn time (a 2xx the first time needs none). */
async function ownerRetries(ctx: OperationContext, subject: Subject, timing: Timing) {
  if (timing.ownerRetryAfterMs === null || !subject.adminCall) return
  if (subject.answers.some((a) => /^admin 2\d\d$/.test(a))) return
  await sleep(timing.ownerRetryAfterMs)
  const again = await ctx.owner.call(subject.adminCall.path, subject.adminCall.body)
  subject.answers.push(`owner again ${answerLine(again)}`)
}

/** An admin answer as the run's history shows it: the status, and what a refusal said. */
function answerLine(answer: { status: number; json: { message?: unknown } }): string {
  return answer.status >= 300 ? `${answer.status} (${String(answer.json?.message ?? "").slice(0, 160)})` : String(answer.status)
}

async function adminAct(ctx: OperationContext, subject: Subject, path: string, body: unknown) {
  subject.adminCall = { path, body }
  const answer = await ctx.owner.call(path, body)
  subject.answers.push(`admin ${answerLine(answer)}`)
}

/** The service concludes the review of the subject's payment; the verdict's callback goes out. */
async function concludeReview(ctx: OperationContext, subject: Subject) {
  const concluded = await ctx.cluster.sandbox.concludeReview(subject.transactionId!)
  subject.answers.push(concluded ? `verdict ${concluded.reasonCode}` : "no open review")
}

const checkoutDone = async (ctx: OperationContext, subject: Subject) => {
  if (!subject.transactionId) {
    // The shopper never got to pay (the store failed before the form was posted): nothing to settle.
    const session = subject.sessionId.split("_")[1]
    const paid = ctx.cluster.sandbox.transactions().some((r) => r.step === "AUTHORIZATION" && r.merchantReferenceCode.startsWith(session))
    return paid ? null : "nothing paid: the store failed before the form was posted"
  }
  const order = await orderOf(ctx.cluster, subject.cartId)
  if (order?.paymentId && order.transactionId === subject.transactionId) {
    subject.orderId = order.orderId
    subject.paymentId = order.paymentId
    return (await moneyAgrees(ctx, subject)) ? "order" : null
  }
  // No order, and the approval given back: the shopper is told the payment failed.
  if (!order && subject.transactionId && serviceHolds(ctx.cluster, subject.transactionId).reversed) return "released"
  return null
}

/** The browser comes back at the drawn time; else the storefront polls the session (as the payment step does). */
async function shopperReturns(ctx: OperationContext, subject: Subject, timing: Timing) {
  if (timing.returnAfterMs === null || !subject.returnLocation) return
  await sleep(timing.returnAfterMs)
  subject.answers.push(`return ${await comeBack(subject, subject.returnLocation!)}`)
}

export const operations: Record<OperationName, Operation> = {
  "authorize-by-callback": {
    name: "authorize-by-callback",
    what: "the service's callback settles a frictionless payment into an order (automatic capture); the browser comes back after it",
    prepare: async (ctx) => ({ ...(await ctx.shop.cartReadyToPay(CARD_PROVIDER_ID)), answers: [] }),
    act: (ctx, subject) => payWith(ctx, FRICTIONLESS, subject),
    recover: shopperReturns,
    done: checkoutDone,
  },
  "authorize-by-return": {
    name: "authorize-by-return",
    what: "the browser's return settles a frictionless payment into an order; its callbacks lost",
    prepare: async (ctx) => ({ ...(await ctx.shop.cartReadyToPay(CARD_PROVIDER_ID)), answers: [] }),
    act: async (ctx, subject) => {
      const form = await ctx.shop.formOf(subject.sessionId)
      ctx.cluster.sandbox.setCallbackKnobs({ drop: true }, form.fields.merchantReferenceCode)
      const posted = await postPayForm(form, FRICTIONLESS)
      subject.returnLocation = posted.location
      const query = new URL(posted.location).searchParams
      subject.transactionId = query.get("transactionId") ?? undefined
      subject.reference = query.get("merchantReferenceCode") ?? undefined
      subject.answers.push(`return ${await comeBack(subject, posted.location)}`)
    },
    // The shopper whose return failed reloads the page at the drawn time.
    recover: shopperReturns,
    done: checkoutDone,
  },
  capture: {
    name: "capture",
    what: "the store owner captures an authorized payment in Medusa's admin (POST /admin/payments/:id/capture)",
    prepare: (ctx) => checkedOut(ctx, AUTHORIZE_ONLY_PROVIDER_ID),
    act: (ctx, subject) => adminAct(ctx, subject, `/admin/payments/${subject.paymentId}/capture`, { amount: subject.amount }),
    recover: ownerRetries,
    done: moneyAgrees,
  },
  refund: {
    name: "refund",
    what: "the store owner refunds part of a captured payment (POST /admin/payments/:id/refund)",
    prepare: (ctx) => checkedOut(ctx, CARD_PROVIDER_ID),
    act: (ctx, subject) =>
      adminAct(ctx, subject, `/admin/payments/${subject.paymentId}/refund`, { amount: Math.round(subject.amount! * 50) / 100 }),
    recover: ownerRetries,
    done: moneyAgrees,
  },
  void: {
    name: "void",
    what: "the store owner refunds the whole of a capture the service has not settled yet: the plugin voids it",
    prepare: (ctx) => checkedOut(ctx, CARD_PROVIDER_ID),
    act: (ctx, subject) => adminAct(ctx, subject, `/admin/payments/${subject.paymentId}/refund`, { amount: subject.amount }),
    recover: ownerRetries,
    done: moneyAgrees,
  },
  reverse: {
    name: "reverse",
    what: "the store owner cancels an order whose payment is authorized only: the approval is reversed",
    prepare: (ctx) => checkedOut(ctx, AUTHORIZE_ONLY_PROVIDER_ID),
    act: (ctx, subject) => adminAct(ctx, subject, `/admin/orders/${subject.orderId}/cancel`, {}),
    recover: ownerRetries,
    done: async (ctx, subject) => {
      const order = await orderOf(ctx.cluster, subject.cartId)
      const books = await medusaBooks(ctx.cluster, subject.paymentId!)
      const { reversed } = serviceHolds(ctx.cluster, subject.transactionId!)
      if (books.canceled && reversed && order?.orderStatus === "canceled") return "canceled and reversed"
      if (!books.canceled && !reversed && order?.orderStatus !== "canceled") return "not canceled, approval kept"
      return null
    },
  },
  "owner-void": {
    name: "owner-void",
    what: "the store owner voids a capture the service has not settled, in the order's card-service widget (POST /admin/card-service/payments/:id/void)",
    prepare: async (ctx) => {
      const subject = await checkedOut(ctx, CARD_PROVIDER_ID)
      const [row] = await ctx.cluster.query(`SELECT p.data->'capture'->>'transaction_id' AS capture_id FROM payment p WHERE p.id = $1`, [subject.paymentId])
      if (!row?.capture_id) throw new Error(`payment ${subject.paymentId} has no capture to void`)
      subject.captureId = row.capture_id as string
      return subject
    },
    act: (ctx, subject) =>
      adminAct(ctx, subject, `/admin/card-service/payments/${subject.paymentId}/void`, { transaction_id: subject.captureId }),
    recover: ownerRetries,
    done: ownerVoidDone,
  },
  "order-edit": {
    name: "order-edit",
    what: "the store owner edits an order only authorized up (a second item): Medusa cancels its payment, the approval is released, and a new collection asks for the new total",
    prepare: (ctx) => checkedOut(ctx, AUTHORIZE_ONLY_PROVIDER_ID),
    act: async (ctx, subject) => {
      subject.actedAt = Date.now()
      const order = await ctx.owner.call(`/admin/orders/${subject.orderId}?fields=*items`, undefined, "GET")
      const item = order.json?.order?.items?.[0]
      if (!item) throw new Error(`order ${subject.orderId} has no item to edit`)
      for (const [path, body] of [
        ["/admin/order-edits", { order_id: subject.orderId }],
        [`/admin/order-edits/${subject.orderId}/items/item/${item.id}`, { quantity: Number(item.quantity) + 1 }],
        [`/admin/order-edits/${subject.orderId}/request`, {}],
      ] as const) {
        const answer = await ctx.owner.call(path, body)
        subject.answers.push(`${path.split("/").pop()} ${answer.status}`)
        // A step refused, or its answer lost (0): the owner stops there.
        if (answer.status === 0 || answer.status >= 300) return
      }
      await adminAct(ctx, subject, `/admin/order-edits/${subject.orderId}/confirm`, {})
    },
    recover: ownerRetries,
    done: orderEditDone,
  },
  "review-approved": {
    name: "review-approved",
    what: "an order on hold for a review (480): the service's approving verdict arrives by callback and the payment is captured",
    prepare: async (ctx) => {
      const subject = await checkedOut(ctx, CARD_PROVIDER_ID, REVIEW_APPROVED)
      return subject
    },
    act: concludeReview,
    recover: async () => undefined,
    done: async (ctx, subject) => {
      const order = await orderOf(ctx.cluster, subject.cartId)
      if (!order?.paymentId || order.transactionId !== subject.transactionId) return null
      subject.paymentId = order.paymentId
      return order.sessions.includes("pending_authorization") ? null : await moneyAgrees(ctx, subject)
    },
  },
  "review-rejected": {
    name: "review-rejected",
    what: "an order on hold for a review (480): the service's rejecting verdict (481) arrives by callback and the order is canceled",
    prepare: (ctx) => checkedOut(ctx, CARD_PROVIDER_ID, REVIEW_REJECTED),
    act: concludeReview,
    recover: async () => undefined,
    done: async (ctx, subject) => {
      const order = await orderOf(ctx.cluster, subject.cartId)
      return order?.orderStatus === "canceled" && !order.sessions.includes("pending_authorization") ? "order canceled" : null
    },
  },
}

/** Whether an operation's act involves the shopper's browser (its timing draws a return). */
export const involvesBrowser = (name: OperationName) => name === "authorize-by-callback" || name === "authorize-by-return"

/** Whether an operation's act is an admin call (its timing draws the owner's second press). */
export const involvesOwner = (name: OperationName) => ["capture", "refund", "void", "reverse", "owner-void", "order-edit"].includes(name)

export { CARD_PROVIDER_ID }
