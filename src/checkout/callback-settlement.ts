import type { ILockingModule, IPaymentModuleService, Logger, MedusaContainer } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import { randomUUID } from "node:crypto"
import { reconcileSchedule } from "../jobs/card-service-reconcile"
import type CardServiceProviderService from "../providers/card-service/service"
import { type HintKept, recordResultHint } from "../payment-notes/result-hints"
import { cardServiceProvider, loadCardServiceSession, PROVIDER_ID_PREFIX } from "./provider-lookup"
import { settleUnderLock } from "./settle-payment"
import type { SettleHint, SettleOutcome } from "./settle-types"
import { lookBeforeLock } from "./settled-check"
import { redactSessionIds } from "../lib/log-redaction"

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
  // Only a result that names a reference this plugin made for this session
  // is noted: the service's own callback always does (section 2.5), and a
  // made-up body must not take a place in the notes (resultIsOurs).
  const noteHint = async (): Promise<HintKept | "not_ours" | "failed"> => {
    if (!(await resultIsOurs(container, sessionId, result.merchantReferenceCode))) return "not_ours"
    return await recordResultHint(container, sessionId, transactionId, "callback", new Date(), collectionId).catch(
      (error: Error) => {
        logger.warn(`card-service: could not note the callback for session ${redactSessionIds(`${sessionId}: ${error.message}`)}`)
        return "failed" as const
      }
    )
  }
  const claim = await claimDelivery(container, sessionId, transactionId)
  if (!claim) {
    // A copy answered without settling must leave the hint noted first.
    const hintNoted = (await noteHint()) === "noted"
    const found = hintNoted ? await loadCardServiceSession(container, sessionId).catch(() => null) : null
    if (
      mayAcknowledgeUnsettled({
        // "noted": on an existing session and its collection (now or
        // before); `found` says the session still exists.
        hintNoted: hintNoted && found !== null,
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
  let outcome: SettleOutcome
  try {
    outcome = await settleUnderLock(container, sessionId, hint)
  } catch (error) {
    await noteHint()
    await claim.release()
    throw error
  }
  try {
    // A result left for the sweep that could not be noted (the notes are
    // full of hints not checked yet) is answered non-2xx: the service
    // delivers it again, by when the sweep has made room.
    if (needsNote(outcome) && (await noteHint()) === "full") throw new HintNotNoted(sessionId)
    return outcome
  } finally {
    await claim.release()
  }
}

/**
 * Whether a settled callback's hint must be noted for the sweep: a result
 * the service could not yet settle (pending) or that failed. Not an order
 * (which needs no more), a session Medusa no longer has (nothing to note it
 * on; the approval was released or unknown), a closed review, nor a result
 * the service's own record showed to be no payment of this session
 * (ignored: it knows no such transaction, or it is another session's):
 * checked already, a note would only bring it back.
 */
export function needsNote(outcome: SettleOutcome): boolean {
  return (
    outcome.kind !== "order" &&
    outcome.kind !== "released" &&
    outcome.kind !== "unknown_session" &&
    outcome.kind !== "review_closed" &&
    outcome.kind !== "ignored"
  )
}

/** A callback's result the sweep must settle, which the notes had no room for: answered 503. */
export class HintNotNoted extends Error {
  constructor(sessionId: string) {
    super(`the result for session ${sessionId} could not be noted for the sweep (its notes are full); delivered again later`)
  }
}

/**
 * Whether a callback's result names a reference this plugin made for this
 * session (the MAC says so), and so may be noted for the sweep. Every result
 * the service sends names the reference of its payment request; a body that
 * does not is no result of this session's, and noting it would only cost
 * the sweep a call and take a place in the notes. For a session gone by now
 * (the cart changed), any of this store's card-service providers may have
 * made the reference.
 */
async function resultIsOurs(
  container: MedusaContainer,
  sessionId: string,
  merchantReferenceCode: string | undefined
): Promise<boolean> {
  const found = await loadCardServiceSession(container, sessionId).catch(() => null)
  if (found) return found.provider.sealer.referenceBelongsTo(merchantReferenceCode, sessionId)
  const paymentModule = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
  const providers = await paymentModule.listPaymentProviders({ is_enabled: true })
  return providers.some(
    ({ id }) =>
      id.startsWith(PROVIDER_ID_PREFIX) &&
      cardServiceProvider(container, id).sealer.referenceBelongsTo(merchantReferenceCode, sessionId)
  )
}

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
