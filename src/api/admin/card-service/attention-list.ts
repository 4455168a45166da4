import type {
  IPaymentModuleService,
  MedusaContainer,
} from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import { PROVIDER_ID_PREFIX } from "../../../checkout/provider-lookup"
import type { ReconcileEntry } from "./response-types"
import {
  captureNoteOf,
  PAYMENT_LOOKBACK_MS,
  orderNoteOf,
  refundNoteOf,
} from "../../../reconciliation/payment-followups"
import { collectionHintsOf } from "../../../payment-notes/result-hints"
import { notesOf } from "../../../payment-notes/session-notes"
import { withOrderDisplayIds } from "./order-display-ids"
import { cancelNoteOf, paymentsWithCancelOrOrderNotes } from "../../../reconciliation/interrupted-cancels"

/** Session statuses the store owner must act on (a payment's note says it itself). */
const NEEDS_ACTION = new Set(["outcome_unknown", "not_released", "hold_not_canceled"])
const MAX_ROWS = 200

/**
 * What the sweep noted, newest first, for the settings page's "Needs
 * attention" list: each case with its age and the action taken or needed.
 */
export async function reconcileEntries(
  container: MedusaContainer,
  now: Date = new Date(),
  paymentId?: string
): Promise<ReconcileEntry[]> {
  const paymentModule = container.resolve<IPaymentModuleService>(
    Modules.PAYMENT
  )
  if (paymentId) {
    // The order widget: this payment and the session it was made from.
    const [payment] = await paymentModule.listPayments(
      { id: paymentId },
      { select: ["id"], relations: ["payment_session"] }
    )
    const keep = new Set([paymentId, payment?.payment_session?.id])
    return (await reconcileEntries(container, now)).filter((entry) =>
      keep.has(entry.id)
    )
  }
  const since = new Date(now.getTime() - PAYMENT_LOOKBACK_MS).toISOString()
  // The payment module filters any column; its filter type names fewer.
  const [sessions, payments, collections] = await Promise.all([
    paymentModule.listPaymentSessions(
      { created_at: { $gte: since } } as Record<string, unknown>,
      {
        select: ["id", "provider_id", "metadata", "payment_collection_id"],
        take: 1000,
        order: { created_at: "DESC" },
      }
    ),
    paymentModule.listPayments(
      {
        captured_at: { $ne: null },
        created_at: { $gte: since },
      } as Record<string, unknown>,
      {
        select: ["id", "provider_id", "metadata"],
        take: 1000,
        order: { created_at: "DESC" },
      }
    ),
    // Sessions Medusa deleted leave their notes on the collection's hints
    // (sweep.ts, an orphaned approval whose reversal was refused).
    paymentModule.listPaymentCollections(
      { updated_at: { $gte: since } } as Record<string, unknown>,
      {
        select: ["id", "metadata"],
        take: 1000,
        order: { updated_at: "DESC" },
      }
    ),
  ])
  // Cancels the sweep finished or left to the owner (canceled or authorized payments, not captured ones), and payments only partly captured whose order the sweep recorded money on.
  const cancelIds = (await paymentsWithCancelOrOrderNotes(container, new Date(since))).filter(
    (id) => !payments.some((p) => p.id === id)
  )
  const canceledPayments = cancelIds.length
    ? await paymentModule.listPayments({ id: cancelIds }, { select: ["id", "provider_id", "metadata"], take: cancelIds.length })
    : []
  const entries: ReconcileEntry[] = []
  const entry = (
    kind: ReconcileEntry["kind"],
    id: string,
    note: { status: string; message: string; at: string; by?: ReconcileEntry["acted_by"]; review?: string },
    references: string[],
    needsAction: boolean
  ): ReconcileEntry => ({
    kind,
    id,
    status: note.status,
    message: note.message,
    references,
    noted_at: note.at,
    age_ms: Math.max(0, now.getTime() - Date.parse(note.at)),
    needs_action: needsAction,
    acted_by: note.by ?? "sweep",
    review: note.review ?? null,
  })
  for (const session of sessions) {
    if (!session.provider_id.startsWith(PROVIDER_ID_PREFIX)) continue
    const note = notesOf(session.metadata).reconcile
    if (!note) continue
    entries.push(
      entry(
        "session",
        session.id,
        note,
        note.references ?? [],
        NEEDS_ACTION.has(note.status)
      )
    )
  }
  for (const collection of collections) {
    const hints = collectionHintsOf(collection.metadata)
    for (const hint of Object.values(hints)) {
      const note = hint.not_released
      if (!note || typeof hint.session_id !== "string") continue
      entries.push(
        entry("session", hint.session_id, note, note.references ?? [], true)
      )
    }
  }
  for (const payment of [...payments, ...canceledPayments]) {
    if (!payment.provider_id.startsWith(PROVIDER_ID_PREFIX)) continue
    const metadata = (payment as { metadata?: unknown }).metadata
    for (const note of [captureNoteOf(metadata), refundNoteOf(metadata), orderNoteOf(metadata)]) {
      if (!note) continue
      entries.push(
        entry(
          "payment",
          payment.id,
          note,
          note.references ?? [note.transaction_id],
          note.attention
        )
      )
    }
    const cancel = cancelNoteOf(metadata)
    if (cancel) entries.push(entry("payment", payment.id, cancel, [], !!cancel.attention))
  }
  const shown = entries
    .sort(
      (a, b) =>
        Number(b.needs_action) - Number(a.needs_action) ||
        Date.parse(b.noted_at) - Date.parse(a.noted_at)
    )
    .slice(0, MAX_ROWS)
  const texts = await withOrderDisplayIds(container, shown.map((e) => e.message))
  return shown.map((e, i) => ({ ...e, message: texts[i] }))
}
