import type {
  ILockingModule,
  IPaymentModuleService,
  MedusaContainer,
} from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"

/**
 * What the plugin notes about a payment session for the sweep, kept in the
 * session's `metadata` under `card_service`. Metadata, not `data`: the
 * storefront can write session data (through initiatePayment), never
 * metadata, and a note must survive the provider rewriting `data`. Even so,
 * a note is only a hint: the sweep verifies every transaction it names with
 * the service (settlePayment), exactly as the callback does.
 */
export type SessionNotes = {
  /**
   * Result hints (callback or return) received and not yet verified, one per
   * transaction, oldest first (bounded). One per transaction, not the last
   * one only: a session paid in two tabs while neither result could be
   * verified has two approvals, and the one a single note forgot stayed held
   * for ever (bench:soak).
   */
  hints?: ResultHint[]
  /** The merchantReferenceCodes handed out for payment attempts, newest last (bounded). */
  attempts?: { reference: string; at: string }[]
  /** What the sweep found or did, for the store owner. */
  reconcile?: ReconcileNote
  /**
   * An order on hold for a review, or one canceled for want of a verdict:
   * how often the sweep has asked the service in vain, and when it asks
   * next (review-verdict.ts, putOffNextLook; held-orders.ts).
   */
  review_look?: { looks: number; next_at: string }
}

export type ResultHint = { transaction_id: string; source: string; received_at: string }

/**
 * Enough for every tab a shopper pays in. A hint is never pushed out by a
 * newer one: a callback is unsigned, and ten forged ones for a session whose
 * genuine result could not be verified yet once pushed that result out, so
 * the approval stayed held with no order (issue 39). When the notes are
 * full, a new hint is refused (the callback answers 503 and the service
 * delivers again, by when the sweep has dropped the forged hints it checked).
 */
export const MAX_HINTS_KEPT = 10

/** The noted hints of a session, oldest first. */
export function hintsOf(notes: SessionNotes): ResultHint[] {
  return Array.isArray(notes.hints) ? notes.hints : []
}

/** The noted hints that name another transaction than the one attached: the sweep's to verify. */
export function unverifiedHints(notes: SessionNotes, attachedTransactionId: string | null | undefined): ResultHint[] {
  return hintsOf(notes).filter((hint) => hint.transaction_id !== attachedTransactionId)
}

/** The notes without the hint of one transaction (answered). */
export function withoutHint(notes: SessionNotes, transactionId: string): SessionNotes {
  const { hints: _hints, ...rest } = notes
  const kept = hintsOf(notes).filter((hint) => hint.transaction_id !== transactionId)
  return kept.length ? { ...rest, hints: kept } : rest
}

export type ReconcileNote = {
  status:
    | "order_created"
    | "outcome_unknown"
    | "released"
    | "failed"
    | "not_released"
    /** The order on hold for a review was canceled (rejected, or no verdict in time). */
    | "review_closed"
    /** The review did not approve, and Medusa would not cancel the order on hold (fulfilled). */
    | "hold_not_canceled"
  at: string
  /** What the store owner reads: what happened, and what to look up where. */
  message: string
  /** References to look up at the service (outcome unknown). */
  references?: string[]
  /** For a payment marked for review (480): what its verdict did (review-verdict.ts). */
  review?: "approved" | "rejected" | "expired" | "reversed" | "not_canceled" | "not_released"
}

/** What 238 and 243 tell the store owner about the approval's money. */
const NOT_RELEASED_BECAUSE: Record<string, string> = {
  "238": "the card service says it was already settled (238): the shopper's money was taken",
  "243": "the card service says it was already settled or reversed (243): the shopper's money may have been taken",
}

/**
 * A reversal the service refused with 238 or 243 (ApprovalNotReleased):
 * nothing the plugin can read says whether the money was taken or given
 * back (approval-reversal.ts), so the service's record decides and the store
 * owner looks it up. Noted once, never tried again: sending the reversal
 * again only gets the same refusal.
 */
export function notReleasedNote(
  refused: { transactionId: string; reasonCode: string },
  what: string,
  now: Date
): ReconcileNote {
  const because =
    NOT_RELEASED_BECAUSE[refused.reasonCode] ??
    `the card service refused the reversal (${refused.reasonCode})`
  return {
    status: "not_released",
    at: now.toISOString(),
    message: `${what}: approval ${refused.transactionId} was not released; ${because}. Medusa does not book it as given back. Look the approval up at the card service: if it was captured, refund the shopper there (or keep the order and book the payment by hand); if it was reversed, nothing is owed.`,
    references: [refused.transactionId],
  }
}

/** Writes a not-released note on a session, unless it already says so. */
export async function recordNotReleased(
  container: MedusaContainer,
  sessionId: string,
  note: ReconcileNote,
  /** The hint this answers, dropped from the notes. */
  answeredHint?: string
): Promise<boolean> {
  return await updateSessionNotes(container, sessionId, (current) => {
    const answered = answeredHint !== undefined && hintsOf(current).some((h) => h.transaction_id === answeredHint)
    const noted =
      current.reconcile?.status === "not_released" &&
      current.reconcile.references?.[0] === note.references?.[0]
    if (noted && !answered) return null
    return {
      ...(answered ? withoutHint(current, answeredHint as string) : current),
      reconcile: noted ? current.reconcile : note,
    }
  })
}

/** Enough attempt references to look up; a shopper rarely retries more. */
const MAX_ATTEMPTS_KEPT = 10

type SessionRowWriter = {
  /** Writes the given columns of one session row; the others are left as they are. */
  update(data: {
    id: string
    metadata?: Record<string, unknown>
    data?: Record<string, unknown>
    status?: string
  }): Promise<unknown>
}

type SessionServiceInternals = { paymentSessionService_?: SessionRowWriter }

/**
 * The payment module's own session service (Medusa 2.21 keeps it as
 * `paymentSessionService_`), which writes only the columns it is given:
 * updatePaymentSession writes `metadata: undefined` too, which clears it.
 */
export function sessionRowWriter(paymentModule: IPaymentModuleService): SessionRowWriter {
  const writer = (paymentModule as unknown as SessionServiceInternals).paymentSessionService_
  if (!writer) {
    throw new Error(
      "card-service: the payment module has no session service to write to (Medusa version changed?)"
    )
  }
  return writer
}

export function notesOf(metadata: unknown): SessionNotes {
  const record =
    metadata && typeof metadata === "object"
      ? (metadata as Record<string, unknown>).card_service
      : undefined
  return record && typeof record === "object" ? (record as SessionNotes) : {}
}

/**
 * Changes the notes of one session. Only the metadata column is written, and
 * through the payment module's own session service rather than
 * updatePaymentSession: that would call the provider and write `data` too,
 * and a note written with stale data would undo a settlement running beside
 * it. Writers of one session's notes take turns (locking module).
 */
export async function updateSessionNotes(
  container: MedusaContainer,
  sessionId: string,
  change: (notes: SessionNotes) => SessionNotes | null
): Promise<boolean> {
  const locking = container.resolve<ILockingModule>(Modules.LOCKING)
  return await locking.execute(
    `card-service:notes:${sessionId}`,
    async () => {
      const paymentModule = container.resolve<IPaymentModuleService>(
        Modules.PAYMENT
      )
      const [session] = await paymentModule.listPaymentSessions(
        { id: sessionId },
        { select: ["id", "metadata"] }
      )
      if (!session) {
        return false
      }
      const next = change(notesOf(session.metadata))
      if (!next) {
        return false
      }
      await sessionRowWriter(paymentModule).update({
        id: sessionId,
        metadata: { ...(session.metadata ?? {}), card_service: next },
      })
      return true
    },
    { timeout: 30 }
  )
}

/**
 * A result hint the callback could not turn into an order (the service did
 * not answer, the payment is pending, the callback is a duplicate answered
 * without settling), noted so the sweep verifies it later. Noted on the
 * session and on its payment collection, or on neither: true when both hold
 * it (now or before). False when the hint cannot be kept: the session and
 * its collection are gone, or either is full (MAX_HINTS_KEPT,
 * MAX_COLLECTION_HINTS), for nothing is pushed out to make room.
 */
export async function recordResultHint(
  container: MedusaContainer,
  sessionId: string,
  transactionId: string,
  source: string,
  now: Date = new Date(),
  /**
   * The session's payment collection as the caller read it earlier: when
   * the session is gone by now (the cart changed), the hint is still noted
   * there, where the sweep finds an orphaned approval.
   */
  knownCollectionId?: string | null
): Promise<boolean> {
  // An unsigned body may carry anything; a transactionId is short text.
  if (!transactionId || transactionId.length > MAX_NOTED_ID_LENGTH) {
    return false
  }
  const hint = {
    transaction_id: transactionId,
    source,
    received_at: now.toISOString(),
  }
  const paymentModule = container.resolve<IPaymentModuleService>(
    Modules.PAYMENT
  )
  const [session] = await paymentModule.listPaymentSessions(
    { id: sessionId },
    { select: ["id", "payment_collection_id", "metadata"] }
  )
  const collectionId = session?.payment_collection_id ?? knownCollectionId
  if (!collectionId) {
    return false
  }
  const sessionHints = session ? hintsOf(notesOf(session.metadata)) : []
  if (sessionHints.length >= MAX_HINTS_KEPT && !sessionHints.some((known) => known.transaction_id === transactionId)) {
    // Full: no copy either (looked at again under the session's lock below).
    return false
  }
  // The collection's copy first: a hint on the session alone would be lost
  // with the session when the cart changes. A copy whose session then
  // refuses the hint is dropped by the sweep as answered (gone-sessions.ts).
  const key = collectionHintKey(sessionId, transactionId)
  let copied = false
  await updateCollectionHints(container, collectionId, (hints) => {
    if (hints[key]) {
      copied = true
      return null
    }
    if (Object.keys(hints).length >= MAX_COLLECTION_HINTS) return null
    copied = true
    return {
      ...hints,
      [key]: { session_id: sessionId, transaction_id: transactionId, received_at: hint.received_at },
    }
  })
  if (!copied || !session) {
    return false
  }
  let noted = false
  await updateSessionNotes(container, sessionId, (notes) => {
    const hints = hintsOf(notes)
    if (hints.some((known) => known.transaction_id === transactionId)) {
      noted = true
      return null
    }
    if (hints.length >= MAX_HINTS_KEPT) return null
    noted = true
    return { ...notes, hints: [...hints, hint] }
  })
  return noted
}

/** recordResultHint notes no longer id (an unsigned body may carry anything). */
export const MAX_NOTED_ID_LENGTH = 100

/**
 * The interface has no search by reference: a reference handed out is the
 * only handle the store owner has on an attempt whose result never arrived.
 */
export async function recordAttempt(
  container: MedusaContainer,
  sessionId: string,
  reference: string,
  now: Date = new Date()
): Promise<boolean> {
  return await updateSessionNotes(container, sessionId, (notes) => ({
    ...notes,
    attempts: [
      ...(notes.attempts ?? []),
      { reference, at: now.toISOString() },
    ].slice(-MAX_ATTEMPTS_KEPT),
  }))
}

/**
 * Hints kept on a payment collection, over all its sessions: a cart is paid
 * for a few times at most. Never pushed out either (recordResultHint).
 */
export const MAX_COLLECTION_HINTS = 50

/**
 * Keyed by session and transaction (collectionHintKey): one hint per
 * transaction, as on the session, so a second tab's result does not take the
 * place of the first's.
 */
export type CollectionHints = Record<
  string,
  {
    session_id: string
    transaction_id: string
    received_at: string
    /**
     * The session is gone and its approval's reversal was refused with 238
     * or 243: what the store owner reads (attention-list.ts). The sweep
     * leaves such a hint alone.
     */
    not_released?: ReconcileNote
  }
>

export function collectionHintKey(sessionId: string, transactionId: string): string {
  return `${sessionId}:${transactionId}`
}

export function collectionHintsOf(metadata: unknown): CollectionHints {
  const record =
    metadata && typeof metadata === "object"
      ? (metadata as Record<string, unknown>).card_service_hints
      : undefined
  return record && typeof record === "object" ? (record as CollectionHints) : {}
}

/**
 * Medusa deletes a cart's payment sessions (rows and metadata) when the cart
 * changes; its payment collection stays. A hint kept there too outlives the
 * session, so an approval whose result could not be verified before the
 * cart changed is still found and reversed.
 */
export async function updateCollectionHints(
  container: MedusaContainer,
  collectionId: string,
  change: (hints: CollectionHints) => CollectionHints | null
): Promise<void> {
  const locking = container.resolve<ILockingModule>(Modules.LOCKING)
  await locking.execute(
    `card-service:notes:${collectionId}`,
    async () => {
      const paymentModule = container.resolve<IPaymentModuleService>(
        Modules.PAYMENT
      )
      const [collection] = await paymentModule.listPaymentCollections(
        { id: collectionId },
        { select: ["id", "metadata"] }
      )
      if (!collection) return
      const next = change(collectionHintsOf(collection.metadata))
      if (!next) return
      await paymentModule.updatePaymentCollections(collectionId, {
        metadata: {
          ...(collection.metadata ?? {}),
          card_service_hints: next,
        },
      })
    },
    { timeout: 30 }
  )
}
