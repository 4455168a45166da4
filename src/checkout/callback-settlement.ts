import type { ILockingModule, Logger, MedusaContainer } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import { randomUUID } from "node:crypto"
import { reconcileSchedule } from "../jobs/card-service-reconcile"
import type CardServiceProviderService from "../providers/card-service/service"
import { recordResultHint } from "../reconciliation/session-notes"
import { loadCardServiceSession } from "./provider-lookup"
import { settleUnderLock } from "./settle-payment"
import type { SettleHint, SettleOutcome } from "./settle-types"
import { lookBeforeLock } from "./settled-check"

export type CallbackOutcome =
  | SettleOutcome
  /**
   * Not settled by this delivery: another delivery of the same result is
   * settling it, and the noted hint is the sweep's if that one fails.
   */
  | { kind: "acknowledged" }

/**
 * How long a delivery's claim lasts when its holder dies without releasing
 * it. Not renewed: a settlement that outlives it only lets a later copy
 * settle the ordinary way, under the session lock.
 */
const CLAIM_SECONDS = 60

/**
 * The service's callback, from its body to an outcome. A copy that arrives
 * while another copy of the same result is being settled is answered at once
 * instead of queueing for the session lock (on a busy machine the queue
 * outlasts the lock's wait and the copy ends in a 5xx), but only when no
 * money can be left behind: see mayAcknowledgeUnsettled.
 */
export async function settleCallback(
  container: MedusaContainer,
  sessionId: string,
  result: { transactionId: string; merchantReferenceCode?: string },
  logger: Pick<Logger, "warn">
): Promise<CallbackOutcome> {
  const { transactionId } = result
  const hint: SettleHint = { ...result, source: "callback" }
  const { settled, collectionId } = await lookBeforeLock(container, sessionId, hint)
  if (settled) return settled

  // When the service cannot answer now, a noted hint lets the sweep
  // (src/jobs) verify the result later, with no further delivery needed.
  const noteHint = () =>
    recordResultHint(container, sessionId, transactionId, "callback", new Date(), collectionId).then(
      () => true,
      (error: Error) => {
        logger.warn(`card-service: could not note the callback for session ${sessionId}: ${error.message}`)
        return false
      }
    )
  const claim = await claimDelivery(container, sessionId, transactionId)
  if (!claim) {
    // A copy answered without settling must leave the hint noted first.
    const hintNoted = await noteHint()
    const found = hintNoted ? await loadCardServiceSession(container, sessionId).catch(() => null) : null
    if (
      mayAcknowledgeUnsettled({
        // recordResultHint resolves for a noted (or already noted) hint of an
        // existing session; `found` says the session exists.
        hintNoted: hintNoted && found !== null && transactionId.length <= MAX_NOTED_ID_LENGTH,
        heldByAnotherDelivery: true,
        sweepOn: found !== null && sweepSettlesHints(found.provider),
      })
    ) {
      return { kind: "acknowledged" }
    }
    return await settleUnderLock(container, sessionId, hint)
  }
  // The claim's holder notes the hint only when it did not make the order:
  // on the way to an order the note is never read (the sweep skips carts
  // with an order), and writing it first cost each checkout two locks and
  // two row writes before the service was even asked. A holder that dies
  // before answering leaves the service without a 2xx, so the service
  // delivers again, and that copy notes it (while the claim lasts) or settles
  // it; a holder that dies after attaching the transaction leaves it on the
  // session, where the sweep completes it.
  try {
    const outcome = await settleUnderLock(container, sessionId, hint)
    if (needsNote(outcome)) await noteHint()
    return outcome
  } catch (error) {
    await noteHint()
    throw error
  } finally {
    await claim.release()
  }
}

/**
 * Whether a settled callback's hint must be noted for the sweep: every
 * outcome but an order (which needs no more) and a session Medusa no longer
 * has (nothing to note it on; the approval was released or unknown).
 */
export function needsNote(outcome: SettleOutcome): boolean {
  return (
    outcome.kind !== "order" &&
    outcome.kind !== "released" &&
    outcome.kind !== "unknown_session" &&
    outcome.kind !== "review_closed"
  )
}

/** recordResultHint notes no longer id (an unsigned body may carry anything). */
const MAX_NOTED_ID_LENGTH = 100

type DeliveryClaim = { release: () => Promise<void> }

/**
 * One callback delivery per (session, transaction) settles at a time; the
 * claim says which. It is taken without waiting and held while its holder
 * settles. Its holder is always a callback delivery, which answers the
 * service non-2xx when settling fails, so the service delivers again; the
 * browser's return, the poll and the sweep never claim. Null: another
 * delivery holds it.
 */
async function claimDelivery(
  container: MedusaContainer,
  sessionId: string,
  transactionId: string
): Promise<DeliveryClaim | null> {
  const locking = container.resolve<ILockingModule>(Modules.LOCKING)
  const key = `card-service:delivery:${sessionId}:${transactionId}`
  const ownerId = `delivery:${randomUUID()}`
  try {
    await locking.acquire(key, { ownerId, expire: CLAIM_SECONDS })
  } catch {
    return null
  }
  return {
    release: async () => {
      await locking.release(key, { ownerId }).catch(() => undefined)
    },
  }
}

/**
 * Whether the scheduled sweep will settle a noted hint of this provider's
 * sessions: its schedule is on and the provider takes part. The schedule is
 * read from the environment as the job reads it when Medusa loads it.
 */
export function sweepSettlesHints(provider: Pick<CardServiceProviderService, "options">): boolean {
  if (!provider.options.reconcile) return false
  try {
    return reconcileSchedule() !== "off"
  } catch {
    return false
  }
}

/**
 * A callback copy may be answered 2xx without settling only when all hold:
 * its hint is durably noted on the session (nothing is lost if the holder
 * fails); another callback delivery of the same result is settling it now
 * (and answers non-2xx if that fails, so the service delivers again); and the
 * sweep is on, to settle the noted hint if no delivery ever does (the
 * holder's instance died, or the service gave up waiting for its answer).
 */
export function mayAcknowledgeUnsettled(facts: {
  hintNoted: boolean
  heldByAnotherDelivery: boolean
  sweepOn: boolean
}): boolean {
  return facts.hintNoted && facts.heldByAnotherDelivery && facts.sweepOn
}
