import { underPaymentLock } from "../lib/payment-lock"
import { withCardServiceField } from "../providers/card-service/payment-record"
import type {
  IPaymentModuleService,
  MedusaContainer,
  PaymentDTO,
} from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import { cardServiceProvider } from "../checkout/provider-lookup"
import {
  unknownCapture,
  unknownRefundReferences,
} from "../providers/card-service/lost-follow-ons"
import { followOnReference } from "../providers/card-service/merchant-reference"
import {
  type CardServiceSessionData,
  parseSessionData,
} from "../providers/card-service/session-data"
import type CardServiceProviderService from "../providers/card-service/service"
import { toServiceAmount, type AmountInput } from "../lib/money"
import { capturePaymentWorkflow, refundPaymentWorkflow } from "@medusajs/medusa/core-flows"
import type { TransactionLogEntry } from "../providers/card-service/session-data"
import { voidMarkOf } from "../providers/card-service/void-record"
import { dueVoidMark, settleOwnerVoid } from "./owner-voids"

/**
 * What the sweep learned about a captured payment, in the payment's
 * metadata: `card_service.capture` for its capture, `card_service.refund`
 * for refunds of unknown outcome. `final` ends the following: a capture
 * TRANSMITTED, failed (TRXN_ERROR) or voided is not asked again.
 */
export type PaymentNote = {
  /** The capture's status at the service, when its record was read. */
  capture_status?: "PENDING" | "TRANSMITTED" | "VOIDED" | "TRXN_ERROR"
  status:
    | "capture_pending"
    | "capture_transmitted"
    | "capture_failed"
    | "capture_voided"
    | "capture_unconfirmed"
    | "capture_confirmed"
    | "changed_outside_medusa"
    | "refund_unknown"
    /** A capture or refund whose instance died before Medusa wrote its answer, settled by the sweep. */
    | "follow_on_recovered"
    /** A capture or refund the service made whose booking Medusa lost, booked by the sweep through Medusa's own workflow. */
    | "booking_recovered"
    /** A capture or refund the payment books and its order did not count (Medusa's workflow stopped between the two), recorded on the order by the sweep (order-records.ts). */
    | "order_recorded"
    /** Such a refund that needs a credit line while the order has an open change: recorded once the owner confirms or cancels it. */
    | "order_not_recorded"
    /** An order cancel that stopped midway, finished by the sweep (interrupted-cancels.ts). */
    | "cancel_recovered"
    /** An order cancel that stopped midway and that Medusa will no longer finish: the store owner's. */
    | "cancel_not_finished"
  final: boolean
  /** The store owner must act (shown in "Needs attention"). */
  attention: boolean
  message: string
  /** The capture's id, or the reference to look up when no id is known. */
  transaction_id: string
  /** References to look up at the service (refunds of unknown outcome). */
  references?: string[]
  at: string
}
/** The capture's note (the name the rest of the plugin knows). */
export type CaptureNote = PaymentNote

/** The payment model has a metadata column; Medusa's DTO type leaves it out. */
type PaymentRow = PaymentDTO & { metadata?: Record<string, unknown> | null }

export type PaymentAction = {
  payment_id: string
  status: PaymentNote["status"]
  message: string
}

/** Settlement (section 3) can take days; follow captures this long. */
/** The payment's columns the sweep follows a capture with, listed and read again under the lock. */
const FOLLOWED_PAYMENT_COLUMNS = ["id", "data", "metadata", "provider_id", "created_at"]
/** The payment's columns a lost capture or refund is settled with, listed and read again under the lock. */
const UNLOGGED_PAYMENT_COLUMNS = [...FOLLOWED_PAYMENT_COLUMNS, "captured_at", "amount", "raw_amount"]

export const PAYMENT_LOOKBACK_MS = 30 * 24 * 60 * 60 * 1000

/** The payment's notes: its capture's, its unknown refunds', and what the sweep recorded on its order (order-records.ts). */
export type NoteField = "capture" | "refund" | "order"

function noteOf(
  metadata: unknown,
  field: NoteField
): PaymentNote | undefined {
  const record =
    metadata && typeof metadata === "object"
      ? (metadata as Record<string, unknown>).card_service
      : undefined
  return record && typeof record === "object"
    ? ((record as Record<string, unknown>)[field] as PaymentNote | undefined)
    : undefined
}

export const captureNoteOf = (metadata: unknown) => noteOf(metadata, "capture")
export const refundNoteOf = (metadata: unknown) => noteOf(metadata, "refund")
export const orderNoteOf = (metadata: unknown) => noteOf(metadata, "order")

/**
 * Captured card-service payments with something left to learn, newest
 * first: a capture not known final, or a refund of unknown outcome not yet
 * shown to the store owner.
 */
export async function listCapturesToFollow(
  container: MedusaContainer,
  providerId: string,
  now: Date,
  take: number
): Promise<PaymentRow[]> {
  const paymentModule = container.resolve<IPaymentModuleService>(
    Modules.PAYMENT
  )
  // The payment module filters any column; its filter type names fewer.
  const payments = await paymentModule.listPayments(
    {
      provider_id: providerId,
      captured_at: { $ne: null },
      canceled_at: null,
      created_at: {
        $gte: new Date(now.getTime() - PAYMENT_LOOKBACK_MS).toISOString(),
      },
    } as Record<string, unknown>,
    {
      select: FOLLOWED_PAYMENT_COLUMNS,
      take,
      order: { created_at: "DESC" },
    }
  )
  return (payments as PaymentRow[]).filter((payment) => {
    if (!captureNoteOf(payment.metadata)?.final || voidMarkOf(payment.metadata)) return true
    const data = parseSessionData(payment.data)
    const shown = refundNoteOf(payment.metadata)?.references ?? []
    return (
      !!data && unknownRefundReferences(data).some((r) => !shown.includes(r))
    )
  })
}

/**
 * One sweep's look at a captured payment: a capture booked with no answer
 * is settled first (lost-follow-ons.ts); a capture with a known id is
 * followed by its record (section 3): PENDING until TRANSMITTED or
 * TRXN_ERROR, and a VOIDED that Medusa never asked for is flagged, not
 * undone; refunds of unknown outcome are shown to the store owner.
 */
export async function followPayment(
  container: MedusaContainer,
  listed: PaymentRow,
  now: Date
): Promise<PaymentAction[]> {
  if (!parseSessionData(listed.data)) return []
  const provider = cardServiceProvider(container, listed.provider_id)
  await provider.refreshSettings()
  const actions: PaymentAction[] = []
  if (dueVoidMark(listed.metadata, now)) {
    // The owner's void whose route stopped: booked first (under the payment's lock), so the capture's note sees it.
    const settled = await settleOwnerVoid(container, provider, listed.id, now)
    if (settled) actions.push(settled)
  }
  // The rest under the payment's lock, on the payment as it is now, not as
  // it was listed: the owner's void route holds the lock from its mark to its
  // booking, so the sweep sees a capture before the void or after it is
  // booked. Listed before the void and followed after it, the capture was
  // VOIDED at the service with nothing booked: "voided outside Medusa",
  // final, and the route's mark written over.
  const followed = await underPaymentLock(container, listed.id, async () => {
    const payment = await readAgain(container, listed)
    return payment ? await followCurrent(container, provider, payment, now) : []
  })
  return [...actions, ...followed]
}

/** followPayment's part under the payment's lock. */
async function followCurrent(
  container: MedusaContainer,
  provider: CardServiceProviderService,
  payment: PaymentRow,
  now: Date
): Promise<PaymentAction[]> {
  const actions: PaymentAction[] = []
  const data = parseSessionData(payment.data)
  if (!data) return actions
  let current = payment
  if (unknownCapture(data)) {
    const resolved = await settleLostCapture(
      container,
      provider,
      payment,
      data,
      now
    )
    current = resolved.payment
    if (resolved.action) actions.push(resolved.action)
  } else if (
    data.capture?.transaction_id &&
    !captureNoteOf(payment.metadata)?.final
  ) {
    const action = await followCapture(container, provider, payment, data, now)
    if (action) actions.push(action)
  }
  const refundAction = await noteUnknownRefunds(container, current, data, now)
  if (refundAction) actions.push(refundAction)
  return actions
}

/** The payment as it is now, with the columns the sweep lists. */
async function readAgain(container: MedusaContainer, payment: PaymentRow): Promise<PaymentRow | null> {
  const paymentModule = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
  const [now] = await paymentModule.listPayments({ id: payment.id }, { select: FOLLOWED_PAYMENT_COLUMNS })
  return (now as PaymentRow | undefined) ?? null
}

/** What a capture record says, for the store owner; null: not this payment's capture. */
const CAPTURE_VERDICTS: Record<
  NonNullable<CaptureNote["capture_status"]>,
  (
    id: string,
    voidedByMedusa: boolean
  ) => Pick<CaptureNote, "status" | "final" | "attention" | "message">
> = {
  PENDING: (id) => ({
    status: "capture_pending",
    final: false,
    attention: false,
    message: `capture ${id} is pending at the processor`,
  }),
  TRANSMITTED: (id) => ({
    status: "capture_transmitted",
    final: true,
    attention: false,
    message: `capture ${id} was transmitted to the processor`,
  }),
  TRXN_ERROR: (id) => ({
    status: "capture_failed",
    final: true,
    attention: true,
    message: `capture ${id} ended TRXN_ERROR at the processor: the money was not taken; contact the card service or the customer`,
  }),
  VOIDED: (id, voidedByMedusa) =>
    voidedByMedusa
      ? {
          status: "capture_voided",
          final: true,
          attention: false,
          message: `capture ${id} is voided, as Medusa asked`,
        }
      : {
          status: "changed_outside_medusa",
          final: true,
          attention: true,
          message: `capture ${id} was voided at the card service, not from Medusa: the order shows it captured but no money will be taken`,
        },
}

async function followCapture(
  container: MedusaContainer,
  provider: CardServiceProviderService,
  payment: PaymentRow,
  data: CardServiceSessionData,
  now: Date
): Promise<PaymentAction | null> {
  const captureId = data.capture?.transaction_id as string
  const record = await provider.client.retrieve(captureId)
  const base = { transaction_id: captureId, at: now.toISOString() }
  if (
    record.step !== "CAPTURE" ||
    record.originalTransactionId !== data.transaction_id
  ) {
    return await notePayment(container, payment, "capture", {
      ...base,
      capture_status: record.captureStatus ?? "PENDING",
      status: "changed_outside_medusa",
      final: true,
      attention: true,
      message: `the service's record ${captureId} is not this payment's capture; check it at the card service`,
    })
  }
  const voidedByMedusa = data.transactions.some(
    (t) => t.operation === "capture" && t.voided
  )
  const status = record.captureStatus ?? "PENDING"
  if (status === "VOIDED" && !voidedByMedusa && voidMarkOf(payment.metadata)?.transaction_id === captureId) {
    // The owner's void of it through the plugin's route, not booked yet: under way, or settled once its grace is over.
    return null
  }
  if (status === "VOIDED" && !voidedByMedusa && (await refundNotLogged(container, payment.id, data))) {
    // A refund of Medusa's that the log does not hold yet: under way, or its
    // instance died in it (settleUnloggedFollowOns books its void). Not a
    // change made outside Medusa: nothing is said until it is settled.
    return null
  }
  return await notePayment(container, payment, "capture", {
    ...base,
    capture_status: status,
    ...CAPTURE_VERDICTS[status](captureId, voidedByMedusa),
  })
}

/** Whether Medusa books a refund of the payment that its log does not hold (by the refund row's key). */
async function refundNotLogged(container: MedusaContainer, paymentId: string, data: CardServiceSessionData): Promise<boolean> {
  const paymentModule = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
  const refunds = await paymentModule.listRefunds({ payment_id: paymentId } as Record<string, unknown>, { select: ["id"] })
  const keys = new Set(data.transactions.map((t) => t.key))
  return refunds.some((refund) => !keys.has(refund.id))
}

/**
 * A capture Medusa booked although neither sending was answered: asked once
 * more, the service captures now or refuses because the lost one acted
 * (242); either way the payment's data records it and the sweep says so.
 */
async function settleLostCapture(
  container: MedusaContainer,
  provider: CardServiceProviderService,
  payment: PaymentRow,
  data: CardServiceSessionData,
  now: Date
): Promise<{ payment: PaymentRow; action: PaymentAction | null }> {
  const reference = followOnReference(
    data.session_id,
    unknownCapture(data)?.key
  )
  const resolved = await provider.resolveLostCapture(data)
  const base = { transaction_id: reference, at: now.toISOString() }
  if (resolved.outcome !== "captured") {
    const unknown = resolved.outcome === "unknown"
    const action = await notePayment(container, payment, "capture", {
      ...base,
      status: unknown ? "capture_unconfirmed" : "capture_failed",
      final: !unknown,
      attention: !unknown,
      message: unknown
        ? `the capture (reference ${reference}) had no answer, and asking again had none either; the next sweep asks again`
        : `the capture (reference ${reference}) had no answer, and the service now refuses it (${resolved.message}): the order shows it captured but no money was taken`,
    })
    return { payment, action }
  }
  const paymentModule = container.resolve<IPaymentModuleService>(
    Modules.PAYMENT
  )
  // updatePayment writes the row only (no provider call).
  await paymentModule.updatePayment({
    id: payment.id,
    data: resolved.data,
  } as Parameters<IPaymentModuleService["updatePayment"]>[0])
  const updated = {
    ...payment,
    data: resolved.data as unknown as Record<string, unknown>,
  }
  const action = await notePayment(container, updated, "capture", {
    ...base,
    ...(resolved.captureId
      ? {
          transaction_id: resolved.captureId,
          capture_status: "PENDING",
          final: false,
          message: `the capture's answer was lost and the service had not captured: captured now as ${resolved.captureId}, followed from here`,
        }
      : {
          final: true,
          message: `the capture's answer was lost; the service confirms the approval is captured (242). Its capture id never arrived, so its settlement cannot be followed: look reference ${reference} up at the card service`,
        }),
    status: "capture_confirmed",
    attention: false,
  })
  return { payment: updated, action }
}

/**
 * How old a capture or refund row must be before the sweep takes it for one
 * whose provider call died with its instance: longer than the provider's
 * call can take (two sendings of a capture, each with the client's timeouts),
 * so a call still under way is never taken for a lost one.
 */
export const UNLOGGED_AFTER_MS = 2 * 60 * 1000
/**
 * How far back the sweep looks for them: the sweep runs every minute, and
 * backs off to 30 minutes while the service is down, so a row is looked at
 * several times within this window; older rows are not read again.
 */
export const UNLOGGED_LOOKBACK_MS = 2 * 60 * 60 * 1000

/** Two minutes to two hours before `now`, as a filter of the payment module's. */
const unloggedWindow = (now: Date) => ({
  $gte: new Date(now.getTime() - UNLOGGED_LOOKBACK_MS).toISOString(),
  $lt: new Date(now.getTime() - UNLOGGED_AFTER_MS).toISOString(),
})

type BookedRow = { id: string; amount?: AmountInput; raw_amount?: AmountInput; payment_id?: string; created_at?: Date | string }

/** A payment with captures or refunds Medusa booked that its log does not hold. */
export type UnloggedFollowOns = {
  payment: PaymentRow & { captured_at?: Date | string | null; amount?: AmountInput }
  captures: BookedRow[]
  refunds: BookedRow[]
}

/**
 * Card-service payments with a capture or refund row whose key the
 * payment's log does not hold (settleUnloggedFollowOn in the provider says
 * how they come about). A capture the provider made itself in
 * authorizePayment (automatic capture) is logged under the session's id,
 * and Medusa books it with a row of its own afterwards: that row is the
 * logged capture.
 */
export async function listUnloggedFollowOns(
  container: MedusaContainer,
  providerId: string,
  now: Date
): Promise<UnloggedFollowOns[]> {
  const paymentModule = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
  const window = unloggedWindow(now)
  const select = ["id", "amount", "raw_amount", "payment_id", "created_at"]
  // The payment module filters any column; its filter types name fewer.
  const [captures, refunds] = (await Promise.all([
    paymentModule.listCaptures({ created_at: window } as Record<string, unknown>, { select, order: { created_at: "ASC" } }),
    paymentModule.listRefunds({ created_at: window } as Record<string, unknown>, { select, order: { created_at: "ASC" } }),
  ])) as unknown as [BookedRow[], BookedRow[]]
  const paymentIds = [...new Set([...captures, ...refunds].map((r) => r.payment_id).filter((id): id is string => !!id))]
  if (!paymentIds.length) return []
  const payments = (await paymentModule.listPayments(
    { id: paymentIds, provider_id: providerId, canceled_at: null } as Record<string, unknown>,
    { select: UNLOGGED_PAYMENT_COLUMNS, take: paymentIds.length }
  )) as UnloggedFollowOns["payment"][]
  const found: UnloggedFollowOns[] = []
  for (const payment of payments) {
    const data = parseSessionData(payment.data)
    if (!data) continue
    const keys = new Set(data.transactions.map((t) => t.key).filter((key): key is string => !!key))
    const mine = (rows: BookedRow[]) => rows.filter((r) => r.payment_id === payment.id)
    const automatic = data.transactions.some((t) => t.operation === "capture" && t.key === data.session_id && t.decision !== "REJECT")
    const unloggedCaptures = mine(captures).filter((r, i) => !keys.has(r.id) && !(automatic && i === 0))
    const unloggedRefunds = mine(refunds).filter((r) => !keys.has(r.id))
    if (unloggedCaptures.length || unloggedRefunds.length) {
      found.push({ payment, captures: unloggedCaptures, refunds: unloggedRefunds })
    }
  }
  return found
}

/**
 * The sweep's settlement of captures and refunds whose instance died before
 * Medusa wrote the provider's answer: the provider settles each one
 * (settleUnloggedFollowOn), the payment's data is written with it, and a
 * capture that completes the payment marks it captured, as Medusa's own
 * capture would have.
 */
export async function settleUnloggedFollowOns(
  container: MedusaContainer,
  listed: UnloggedFollowOns,
  now: Date
): Promise<PaymentAction[]> {
  // Under the payment's lock, on the payment as it is now: written from the
  // row as listed, the payment's data would lose what the owner's void or an
  // unknown refund's answer booked in between (both hold this lock).
  return await underPaymentLock(container, listed.payment.id, async () => {
    const paymentModule = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
    const [payment] = (await paymentModule.listPayments(
      { id: listed.payment.id },
      { select: UNLOGGED_PAYMENT_COLUMNS }
    )) as UnloggedFollowOns["payment"][]
    const data = payment ? parseSessionData(payment.data) : null
    if (!data) return []
    const logged = new Set(data.transactions.map((t) => t.key))
    const unlogged = (rows: BookedRow[]) => rows.filter((r) => !logged.has(r.id))
    return await settleUnlogged(container, { payment, captures: unlogged(listed.captures), refunds: unlogged(listed.refunds) }, now)
  })
}

async function settleUnlogged(
  container: MedusaContainer,
  { payment, captures, refunds }: UnloggedFollowOns,
  now: Date
): Promise<PaymentAction[]> {
  let data = parseSessionData(payment.data)
  if (!data) return []
  const provider = cardServiceProvider(container, payment.provider_id)
  const paymentModule = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
  const actions: PaymentAction[] = []
  const settled: string[] = []
  for (const [kind, rows] of [["capture", captures], ["refund", refunds]] as const) {
    for (const row of rows) {
      const amount = toServiceAmount((row.raw_amount ?? row.amount) as AmountInput, data.currency_code)
      const next = await provider.settleUnloggedFollowOn(data, kind, row.id, amount)
      if (!next) continue
      data = next
      const entry = next.transactions.find((t) => t.key === row.id)
      const reference = followOnReference(data.session_id, row.id)
      settled.push(
        entry?.decision === "UNKNOWN"
          ? `${kind} ${reference} of ${amount}: its instance stopped before Medusa recorded the answer; ${kind === "refund" ? "not sent again, look it up at the card service" : "no answer on asking again either, asked on the next sweep"}`
          : `${kind} ${reference} of ${amount}: its instance stopped before Medusa recorded the answer; the service ${entry?.operation === "void" ? "voided the capture" : entry?.transaction_id ? `holds it as ${entry.transaction_id}` : "confirms it (242)"}`
      )
    }
  }
  if (!settled.length) return []
  const capturedRows = await paymentModule.listCaptures({ payment_id: payment.id } as Record<string, unknown>, { select: ["id", "amount", "raw_amount"] })
  const capturedTotal = (capturedRows as unknown as BookedRow[]).reduce(
    (total, r) => total + toServiceAmount((r.raw_amount ?? r.amount) as AmountInput, data!.currency_code),
    0
  )
  const paymentAmount = toServiceAmount((payment.raw_amount ?? payment.amount) as AmountInput, data.currency_code)
  const fullyCaptured = !payment.captured_at && capturedTotal >= paymentAmount && data.transactions.some((t) => t.operation === "capture" && t.decision === "ACCEPT")
  // updatePayment writes the row only (no provider call); its DTO type names fewer columns than the model has.
  await paymentModule.updatePayment({
    id: payment.id,
    data,
    ...(fullyCaptured ? { captured_at: now } : {}),
  } as Parameters<IPaymentModuleService["updatePayment"]>[0])
  const written = { ...payment, data: data as unknown as Record<string, unknown> }
  const voided = data.transactions.find((t) => t.operation === "void" && refunds.some((r) => r.id === t.key))
  if (voided && data.capture?.transaction_id) {
    // What the capture's note says now (a void that Medusa asked for, not one made outside it).
    const action = await notePayment(container, written, "capture", {
      status: "capture_voided",
      capture_status: "VOIDED",
      final: true,
      attention: false,
      transaction_id: data.capture.transaction_id,
      message: `capture ${data.capture.transaction_id} is voided, as Medusa asked (its instance stopped before Medusa recorded the void)`,
      at: now.toISOString(),
    })
    if (action) actions.push(action)
  }
  if (captures.length) {
    // The capture's note: followed from here when its id is known (a 242 names none).
    const action = await notePayment(container, written, "capture", {
      status: "follow_on_recovered",
      final: !data.capture?.transaction_id,
      attention: false,
      transaction_id: data.capture?.transaction_id ?? followOnReference(data.session_id, captures[0].id),
      message: settled.join("; "),
      at: now.toISOString(),
    })
    if (action) actions.push(action)
  } else {
    actions.push({ payment_id: payment.id, status: "follow_on_recovered", message: settled.join("; ") })
  }
  const refundAction = await noteUnknownRefunds(container, written, data, now)
  if (refundAction) actions.push(refundAction)
  return actions
}

/** A payment whose log holds captures or refunds the service made and Medusa no longer books. */
export type OrphanedFollowOns = { payment: PaymentRow; entries: TransactionLogEntry[] }

/**
 * Card-service payments whose log holds a capture, refund or void under the
 * key of a row Medusa no longer has: the provider wrote the service's answer
 * onto the payment (payment-record.ts), then Medusa's own write of it failed
 * and Medusa deleted its row. Payments changed two minutes to two hours ago
 * (the provider's write is the change).
 */
export async function listOrphanedFollowOns(
  container: MedusaContainer,
  providerId: string,
  now: Date
): Promise<OrphanedFollowOns[]> {
  const paymentModule = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
  const payments = (await paymentModule.listPayments(
    {
      provider_id: providerId,
      canceled_at: null,
      updated_at: unloggedWindow(now),
    } as Record<string, unknown>,
    { select: FOLLOWED_PAYMENT_COLUMNS, relations: ["captures", "refunds"] }
  )) as Array<PaymentRow & { captures?: { id: string }[]; refunds?: { id: string }[] }>
  const found: OrphanedFollowOns[] = []
  for (const payment of payments) {
    const data = parseSessionData(payment.data)
    if (!data) continue
    const booked = new Set([...(payment.captures ?? []), ...(payment.refunds ?? [])].map((row) => row.id))
    const entries = data.transactions.filter(
      (t) =>
        (t.operation === "capture" || t.operation === "refund" || t.operation === "void") &&
        t.decision !== "REJECT" &&
        !t.voided &&
        !!t.key &&
        t.key !== data.session_id &&
        !booked.has(t.key)
    )
    if (entries.length) found.push({ payment, entries })
  }
  return found
}

/**
 * Books each orphaned capture or refund through Medusa's own workflow, for
 * its amount: the provider finds the entry and books it under the new row,
 * sending nothing (follow-ons.ts, orphanedFollowOn), and Medusa records it
 * on the order as its own capture or refund would have.
 */
export async function bookOrphanedFollowOns(
  container: MedusaContainer,
  { payment, entries }: OrphanedFollowOns
): Promise<PaymentAction[]> {
  const data = parseSessionData(payment.data)
  if (!data) return []
  const done: string[] = []
  for (const entry of entries) {
    const amount = entry.amount ?? data.amount
    const input = { payment_id: payment.id, amount }
    if (entry.operation === "capture") await capturePaymentWorkflow(container).run({ input })
    else await refundPaymentWorkflow(container).run({ input })
    done.push(
      `${entry.operation === "capture" ? "capture" : "refund"} ${followOnReference(data.session_id, entry.key)} of ${amount}: the service made it and Medusa's write of the answer failed; booked in Medusa now, nothing sent again`
    )
  }
  return [{ payment_id: payment.id, status: "booking_recovered", message: done.join("; ") }]
}

/** Refunds booked with no answer: never sent again; the store owner looks them up. */
async function noteUnknownRefunds(
  container: MedusaContainer,
  payment: PaymentRow,
  data: CardServiceSessionData,
  now: Date
): Promise<PaymentAction | null> {
  const references = unknownRefundReferences(data)
  if (!references.length) return null
  const previous = refundNoteOf(payment.metadata)
  if (previous && references.every((r) => previous.references?.includes(r))) {
    return null
  }
  return await notePayment(container, payment, "refund", {
    status: "refund_unknown",
    final: true,
    attention: true,
    references,
    transaction_id: references[references.length - 1],
    message: `${references.length} refund(s) had no answer and were not sent again (a repeat could refund twice): look the reference(s) up at the card service; Medusa counts them as refunded`,
    at: now.toISOString(),
  })
}

function cardServiceMetadata(payment: PaymentRow): Record<string, unknown> {
  const metadata = (payment.metadata ?? {}) as Record<string, unknown>
  return (metadata.card_service ?? {}) as Record<string, unknown>
}

/** Writes the note when it says something new; one action per change. */
export async function notePayment(
  container: MedusaContainer,
  payment: PaymentRow,
  field: NoteField,
  next: PaymentNote
): Promise<PaymentAction | null> {
  const previous = cardServiceMetadata(payment)[field] as
    PaymentNote | undefined
  if (
    previous &&
    previous.status === next.status &&
    previous.transaction_id === next.transaction_id
  ) {
    return null
  }
  const paymentModule = container.resolve<IPaymentModuleService>(
    Modules.PAYMENT
  )
  const metadata = withCardServiceField(payment.metadata, field, next)
  // updatePayment writes the row only (no provider call); its DTO type
  // names fewer columns than the model has.
  await paymentModule.updatePayment({
    id: payment.id,
    metadata,
  } as Parameters<IPaymentModuleService["updatePayment"]>[0])
  // The row as written, for a second note in the same sweep.
  payment.metadata = metadata
  return { payment_id: payment.id, status: next.status, message: next.message }
}
