import { MedusaError } from "@medusajs/framework/utils"
import type { FollowOns } from "./follow-ons"
import { followOnReference } from "./merchant-reference"
import type {
  CardServiceSessionData,
  TransactionLogEntry,
} from "./session-data"

/**
 * Follow-ons whose answer never came (sent twice for a capture, once for a
 * refund, no answer either time): the provider books them as UNKNOWN in the
 * payment's log, and the reconciliation sweep settles them here.
 *
 * The interface retrieves a transaction only by its id, and the id was in
 * the answer that was lost; there is no search by reference. What the
 * service does say is that it refuses a second capture of one approval
 * (242): asking for the capture once more either captures now (the lost
 * request never acted) or is refused because it did. A refund has no such
 * refusal, so it is never sent again: its reference goes to the store owner.
 */

export type LostCapture =
  /** Captured at the service: by the lost request (242, id unknown) or now (id known). */
  | {
      outcome: "captured"
      data: CardServiceSessionData
      captureId: string | null
    }
  /** Still no answer: ask again on the next sweep. */
  | { outcome: "unknown" }
  /** The service refuses the capture for another reason: no money was taken. */
  | { outcome: "refused"; message: string }

/** The last capture of the log, when its outcome is unknown. */
export function unknownCapture(
  session: Pick<CardServiceSessionData, "transactions">
): TransactionLogEntry | null {
  const captures = session.transactions.filter((t) => t.operation === "capture")
  const last = captures[captures.length - 1]
  return last?.decision === "UNKNOWN" ? last : null
}

/** The references (merchantReferenceCode) of refunds whose outcome is unknown. */
export function unknownRefundReferences(
  session: Pick<CardServiceSessionData, "transactions" | "session_id">
): string[] {
  return session.transactions
    .filter((t) => t.operation === "refund" && t.decision === "UNKNOWN")
    .map((t) => followOnReference(session.session_id, t.key))
}

export async function resolveLostCapture(
  followOns: FollowOns,
  session: CardServiceSessionData
): Promise<LostCapture> {
  const entry = unknownCapture(session)
  if (!entry) {
    throw new Error(
      "card-service: this payment has no capture of unknown outcome"
    )
  }
  let data: CardServiceSessionData
  try {
    // The same request as the lost one (same reference), so the service's
    // history shows one capture and its refused repeat.
    data = await followOns.recaptureLost(session, entry)
  } catch (error) {
    if (
      error instanceof MedusaError &&
      error.type === MedusaError.Types.NOT_ALLOWED
    ) {
      return { outcome: "refused", message: error.message }
    }
    throw error
  }
  if (unknownCapture(data)) return { outcome: "unknown" }
  return {
    outcome: "captured",
    data,
    captureId: data.capture?.transaction_id ?? null,
  }
}
