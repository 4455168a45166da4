import type { MedusaContainer } from "@medusajs/framework/types"
import { hintsOf, withoutHint } from "./result-hints"
import { type ReconcileNote, updateSessionNotes } from "./session-notes"

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
