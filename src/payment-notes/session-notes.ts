import type {
  ILockingModule,
  IPaymentModuleService,
  MedusaContainer,
} from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import type { ResultHint } from "./result-hints"
import { leasedLock } from "../lib/lock-lease"

// src/payment-notes: what the plugin writes beside Medusa's payment records
// for the sweep and the store owner (this file: the notes on a session and
// how they are written; result-hints.ts: the results reported and not yet
// verified; not-released.ts: approvals the service would not give back).
// The checkout and the reconciliation sweep both read and write them, so
// they sit below both and import neither (tests/unit/layering.spec.ts).

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
  /**
   * What brought about what the note says: the sweep (when absent: every
   * note but a review's is the sweep's), or a review's verdict settled on
   * the service's callback, the shopper's return or the storefront's poll.
   */
  by?: "callback" | "return" | "poll" | "sweep"
}

/** What 238 and 243 tell the store owner about the approval's money. */
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
    leasedLock(30)
  )
}

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
