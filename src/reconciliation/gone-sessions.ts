import type { IPaymentModuleService, Logger, MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { settlePayment, type SettleOutcome } from "../checkout/settle-payment"
import { ApprovalNotReleased } from "../providers/card-service/approval-reversal"
import { isServiceDown } from "./service-down"
import type { Knex } from "./sweep-candidates"
import { collectionHintsOf, hintsOf, updateCollectionHints } from "../payment-notes/result-hints"
import { notesOf, type ReconcileNote } from "../payment-notes/session-notes"
import { notReleasedNote, recordNotReleased } from "../payment-notes/not-released"
import type { SessionAction } from "./sweep-types"
import { redactSessionIds } from "../lib/log-redaction"

/** Sessions older than this are left alone: no callback or return is that late. */
export const LOOKBACK_MS = 7 * 24 * 60 * 60 * 1000

/** Far longer than noting a hint on a session takes, after its collection's copy (recordResultHint). */
const NOTING_MS = 60_000

/**
 * The payment collections holding a hint this pass acts on, least recently
 * changed first, at most `take`: a hint of a session that is gone or
 * authorized, or one its session no longer holds (answered by the session
 * pass, the copy to drop). Not one whose reversal the service refused, nor
 * one an open session still holds (the session pass's). Not the newest
 * collections: every checkout changes its collection, and a batch of the
 * newest is a minute of traffic, behind which a second tab's approval of a
 * paid session would wait for ever (bench:soak).
 */
async function collectionsWithHints(container: MedusaContainer, since: Date, take: number): Promise<string[]> {
  const knex = container.resolve<Knex>(ContainerRegistrationKeys.PG_CONNECTION)
  const { rows } = await knex.raw(
    `select "id" from "payment_collection"
      where "deleted_at" is null and "updated_at" >= ?
        and jsonb_typeof("metadata"->'card_service_hints') = 'object'
        and exists (
          select 1 from jsonb_each("metadata"->'card_service_hints') as "hint"
            left join "payment_session" as "session"
              on "session"."id" = "hint"."value"->>'session_id' and "session"."deleted_at" is null
          where "hint"."value"->'not_released' is null
            and (
              "session"."id" is null
              or "session"."status" = 'authorized'
              or not coalesce("session"."metadata"->'card_service'->'hints', '[]'::jsonb)
                @> jsonb_build_array(jsonb_build_object('transaction_id', "hint"."value"->>'transaction_id'))
            )
        )
      order by "updated_at" asc
      limit ?`,
    [since.toISOString(), take]
  )
  return rows.map((row) => row.id)
}

/**
 * Hints of sessions Medusa has since deleted (the cart changed): their
 * approval can no longer become an order, so settlePayment's orphan path
 * checks it is this session's and reverses it. Hints of sessions that still
 * exist are the session pass's; once such a session is settled the copy on
 * the collection is dropped.
 */
export async function sweepGoneSessions(
  container: MedusaContainer,
  now: Date,
  take: number
): Promise<SessionAction[]> {
  const paymentModule = container.resolve<IPaymentModuleService>(
    Modules.PAYMENT
  )
  const logger = container.resolve<Logger>(ContainerRegistrationKeys.LOGGER)
  const withHints = await collectionsWithHints(container, new Date(now.getTime() - LOOKBACK_MS), take)
  const collections = withHints.length
    ? await paymentModule.listPaymentCollections({ id: withHints }, { select: ["id", "metadata"], take: withHints.length })
    : []
  const actions: SessionAction[] = []
  for (const collection of collections) {
    const hints = Object.entries(collectionHintsOf(collection.metadata)).filter(
      ([, hint]) => typeof hint?.session_id === "string" && typeof hint.transaction_id === "string"
    )
    if (!hints.length) continue
    const existing = await paymentModule.listPaymentSessions(
      { id: [...new Set(hints.map(([, hint]) => hint.session_id))] },
      { select: ["id", "status", "metadata"] }
    )
    const done: string[] = []
    const notReleased: Record<string, ReconcileNote> = {}
    for (const [key, hint] of hints) {
      const { session_id: sessionId, transaction_id: transactionId } = hint
      const session = existing.find((s) => s.id === sessionId)
      // Refused with 238 or 243 before: the service's record decides, and
      // the store owner has it in Needs attention. Asking again would only
      // be refused again.
      if (hint.not_released) continue
      if (session && session.status !== "authorized") {
        // Still open: the session pass settles its hint; the copy goes once
        // it is answered. A copy younger than a moment may be one whose
        // hint is being noted on the session right now (recordResultHint
        // writes the copy first), and is left for the next pass.
        const answered = !hintsOf(notesOf(session.metadata)).some((h) => h.transaction_id === transactionId)
        if (answered && now.getTime() - Date.parse(hint.received_at) >= NOTING_MS) done.push(key)
        continue
      }
      // Gone (the cart changed, or was paid another way), or authorized: a
      // hint naming another approval of an order's session (a second tab
      // paid while the service was down) is money no order takes either.
      // settlePayment checks the transaction is this session's and reverses it.
      let outcome: SettleOutcome
      try {
        outcome = await settlePayment(container, sessionId, {
          transactionId,
          source: "sweep",
        })
      } catch (error) {
        if (isServiceDown(error)) throw error
        if (ApprovalNotReleased.is(error)) {
          // An orphaned or second approval whose money the service may have
          // taken: noted where the store owner sees it, on the session if
          // it is still there, else on the collection's hint.
          const note = notReleasedNote(
            error,
            session
              ? "a second approval of a paid session"
              : "the cart changed or was paid another way before this approval was verified",
            now
          )
          if (session) {
            await recordNotReleased(container, sessionId, note)
            done.push(key)
          } else {
            notReleased[key] = note
          }
          actions.push({ session_id: sessionId, status: note.status, message: note.message })
          continue
        }
        // A reversal with no answer (twice) is asked again next sweep, when
        // 237 says the first one acted: the hint stays until it is settled.
        logger.error(
          `card-service reconcile: ${redactSessionIds(`${sessionId} could not be released: ${(error as Error).message}`)}`
        )
        continue
      }
      done.push(key)
      const action = hintAction(sessionId, transactionId, outcome, !!session)
      if (action) actions.push(action)
    }
    if (done.length || Object.keys(notReleased).length) {
      await updateCollectionHints(container, collection.id, (current) => {
        const next = { ...current }
        for (const id of done) delete next[id]
        for (const [id, note] of Object.entries(notReleased)) {
          if (next[id]) next[id] = { ...next[id], not_released: note }
        }
        return next
      })
    }
  }
  return actions
}

/** What settling a collection's hint did, for the log and the sweep's result. */
function hintAction(
  sessionId: string,
  transactionId: string,
  outcome: SettleOutcome,
  sessionExists: boolean
): SessionAction | null {
  if (sessionExists) {
    // The order's own transaction, or nothing of this session: nothing to say.
    return outcome.kind === "order" && outcome.secondPaymentReleased
      ? {
          session_id: sessionId,
          status: "released",
          message: `the order keeps its payment; a second approval ${transactionId}, reported while the service was down, was reversed`,
        }
      : null
  }
  return outcome.kind === "released"
    ? {
        session_id: sessionId,
        status: "released",
        message: `the cart changed or was paid another way before transaction ${transactionId} was verified; the approval was reversed`,
      }
    : {
        session_id: sessionId,
        status: "failed",
        message: `transaction ${transactionId} of a deleted session is not this store's approval; nothing reversed`,
      }
}

