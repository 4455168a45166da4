import type { ILockingModule, IPaymentModuleService, MedusaContainer } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import { notesOf, type ReconcileNote, type SessionNotes, updateSessionNotes } from "./session-notes"
import { leasedLock } from "../lib/lock-lease"

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

/**
 * Where recordResultHint kept a hint: on the session and its collection
 * (now or before); on the collection only (the session is gone: the sweep
 * finds the orphan there); nowhere, for the session or the collection had no
 * room (nothing is pushed out to make room); or nowhere, for there was
 * nothing to keep it on (no session, no collection, an id too long).
 */
export type HintKept = "noted" | "collection" | "full" | "nowhere"

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

/**
 * A result hint the callback could not turn into an order (the service did
 * not answer, the payment is pending, the callback is a duplicate answered
 * without settling), noted so the sweep verifies it later, on the session
 * and on its payment collection (HintKept says where).
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
): Promise<HintKept> {
  // An unsigned body may carry anything; a transactionId is short text.
  if (!transactionId || transactionId.length > MAX_NOTED_ID_LENGTH) {
    return "nowhere"
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
    return "nowhere"
  }
  const sessionHints = session ? hintsOf(notesOf(session.metadata)) : []
  if (sessionHints.length >= MAX_HINTS_KEPT && !sessionHints.some((known) => known.transaction_id === transactionId)) {
    // Full: no copy either (looked at again under the session's lock below).
    return "full"
  }
  // The collection's copy first: a hint on the session alone would be lost
  // with the session when the cart changes. A copy whose session then
  // refuses the hint is dropped by the sweep as answered (gone-sessions.ts).
  const key = collectionHintKey(sessionId, transactionId)
  let copied: boolean | null = null
  await updateCollectionHints(container, collectionId, (hints) => {
    copied = false
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
  if (copied === null) return "nowhere"
  if (!copied) return "full"
  if (!session) return "collection"
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
  return noted ? "noted" : "full"
}

/** recordResultHint notes no longer id (an unsigned body may carry anything). */
export const MAX_NOTED_ID_LENGTH = 100

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
    leasedLock(30)
  )
}
