import type {
  IPaymentModuleService,
  Logger,
  MedusaContainer,
  PaymentSessionDTO,
} from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import {
  cardServiceProvider,
  PROVIDER_ID_PREFIX,
} from "../checkout/provider-lookup"
import { COMPLETION_LOCK_MS, mayLackOrderPayment, OrderPaymentPending } from "../checkout/order-payment"
import { cartOfSession } from "../checkout/cart-of-session"
import { awaitingVerdict, settlePayment, type SettleOutcome } from "../checkout/settle-payment"
import { ApprovalNotReleased } from "../providers/card-service/approval-reversal"
import type CardServiceProviderService from "../providers/card-service/service"
import {
  followPayment,
  listCapturesToFollow,
  listUnloggedFollowOns,
  settleUnloggedFollowOns,
  listOrphanedFollowOns,
  bookOrphanedFollowOns,
  type PaymentAction,
} from "./payment-followups"
import { LOOKBACK_MS, sweepGoneSessions } from "./gone-sessions"
import { finishDeadCreditLine, listDeadCreditLines, listUnrecordedOnOrders, recordOnOrder } from "./order-records"
import { finishInterruptedCancel, listInterruptedCancels } from "./interrupted-cancels"
import { listHeldSessions, sweepHeldOrder } from "./held-orders"
import { isServiceDown } from "./service-down"
import { sessionsToSweep } from "./sweep-candidates"
import { hintsOf, unverifiedHints, withoutHint } from "../payment-notes/result-hints"
import { notesOf, ReconcileNote, updateSessionNotes } from "../payment-notes/session-notes"
import { notReleasedNote, recordNotReleased } from "../payment-notes/not-released"
import type { SessionAction, SweepAction, SweepResult } from "./sweep-types"
import { redactSessionIds } from "../lib/log-redaction"

export type { SessionAction, SweepAction, SweepResult } from "./sweep-types"

export type SweepOptions = {
  now?: Date
  /** Sessions looked at per provider and sweep, newest first. */
  batchSize?: number
}

const DEFAULT_BATCH_SIZE = 100

/**
 * One pass over the card-service payment sessions that are not final. It
 * decides nothing about money itself: every transaction a note names goes
 * through settlePayment, the callback's own path, which retrieves it from the
 * service and checks it before an order is made or an approval reversed.
 * Running it twice changes nothing more than once: a session leaves the set
 * (its cart becomes an order) or its note records what was found.
 */
export async function sweepCardServicePayments(
  container: MedusaContainer,
  options: SweepOptions = {}
): Promise<SweepResult> {
  const now = options.now ?? new Date()
  const logger = container.resolve<Logger>(ContainerRegistrationKeys.LOGGER)
  const paymentModule = container.resolve<IPaymentModuleService>(
    Modules.PAYMENT
  )
  const result: SweepResult = { examined: 0, actions: [], serviceDown: false }
  const providers = await paymentModule.listPaymentProviders({
    is_enabled: true,
  })
  for (const { id } of providers) {
    if (!id.startsWith(PROVIDER_ID_PREFIX)) continue
    const provider = cardServiceProvider(container, id)
    if (!provider.options.reconcile) continue
    const candidates = await sessionsToSweep(container, {
      providerId: id,
      since: new Date(now.getTime() - LOOKBACK_MS),
      graceEndedAt: new Date(now.getTime() - provider.options.reconcileGraceMs),
      take: options.batchSize ?? DEFAULT_BATCH_SIZE,
    })
    const sessions = candidates.length
      ? await paymentModule.listPaymentSessions(
          { id: candidates },
          { take: candidates.length, order: { created_at: "ASC" } }
        )
      : []
    const payments = await listCapturesToFollow(
      container,
      id,
      now,
      options.batchSize ?? DEFAULT_BATCH_SIZE
    )
    const unlogged = await listUnloggedFollowOns(container, id, now)
    const orphaned = (await listOrphanedFollowOns(container, id, now)).filter((o) => !unlogged.some((u) => u.payment.id === o.payment.id))
    // A payment settled just now is followed on the next sweep, from the row as written.
    const followed = payments.filter(
      (payment) => !unlogged.some((u) => u.payment.id === payment.id) && !orphaned.some((o) => o.payment.id === payment.id)
    )
    const held = await listHeldSessions(container, provider, id, now, options.batchSize ?? DEFAULT_BATCH_SIZE)
    const cancels = await listInterruptedCancels(container, id, now)
    const deadCreditLines = await listDeadCreditLines(container, id, now)
    // Read again under the payment's lock when recorded: what a dead
    // credit-line change's finish recorded first is not recorded twice.
    const unrecorded = await listUnrecordedOnOrders(container, id, now)
    const work = [
      // First: they ask the service nothing, so an outage stops none of
      // them; and before a booking below runs Medusa's capture or refund
      // workflow, which records every row its order lacks with that
      // booking's amount.
      ...deadCreditLines.map((dead) => ({
        id: dead.paymentId,
        run: () => finishDeadCreditLine(container, dead, id, now),
      })),
      ...unrecorded.map((found) => ({
        id: found.paymentId,
        run: () => recordOnOrder(container, found, id, now),
      })),
      ...held.map((session) => ({
        id: session.id,
        run: async () => {
          const action = await sweepHeldOrder(container, session.id, now)
          return action ? [action] : []
        },
      })),
      ...sessions.map((session) => ({
        id: session.id,
        run: async () => {
          return await sweepSession(container, provider, session, now)
        },
      })),
      ...unlogged.map((found) => ({
        id: found.payment.id,
        run: () => settleUnloggedFollowOns(container, found, now),
      })),
      ...orphaned.map((found) => ({
        id: found.payment.id,
        run: () => bookOrphanedFollowOns(container, found),
      })),
      ...cancels.map((found) => ({
        id: found.payment.id,
        run: () => finishInterruptedCancel(container, found, now),
      })),
      ...followed.map((payment) => ({
        id: payment.id,
        run: () => followPayment(container, payment, now),
      })),
    ]
    for (const item of work) {
      result.examined += 1
      try {
        for (const action of await item.run()) {
          result.actions.push(action)
          logger.info(
            `card-service reconcile: ${redactSessionIds(`${item.id} ${action.status}: ${action.message}`)}`
          )
        }
      } catch (error) {
        if (isServiceDown(error)) {
          // The rest of the batch would meet the same outage: stop and let
          // the job back off instead of knocking on a service that is down.
          result.serviceDown = true
          logger.warn(
            `card-service reconcile: the service is unavailable (${(error as Error).message}); stopping this sweep`
          )
          return result
        }
        logger.error(
          `card-service reconcile: ${redactSessionIds(`${item.id} could not be checked: ${(error as Error).message}`)}`
        )
      }
    }
  }
  if (providers.some(({ id }) => id.startsWith(PROVIDER_ID_PREFIX))) {
    try {
      for (const action of await sweepGoneSessions(
        container,
        now,
        options.batchSize ?? DEFAULT_BATCH_SIZE
      )) {
        result.actions.push(action)
        logger.info(
          `card-service reconcile: ${redactSessionIds(`${action.session_id} ${action.status}: ${action.message}`)}`
        )
      }
    } catch (error) {
      if (!isServiceDown(error)) throw error
      result.serviceDown = true
      logger.warn(
        `card-service reconcile: the service is unavailable (${(error as Error).message}); stopping this sweep`
      )
    }
  }
  return result
}

async function sweepSession(
  container: MedusaContainer,
  provider: CardServiceProviderService,
  session: PaymentSessionDTO,
  now: Date
): Promise<SweepAction[]> {
  const notes = notesOf(session.metadata)
  const { orderId } = await cartOfSession(container, session)
  const data = provider.verifySession(session.data, session.id)
  if (orderId) {
    // An order whose completion died before it recorded the payment of
    // the session's verified transaction: the settlement finishes it
    // (order-payment.ts). Any other order needs nothing of the sweep, nor
    // does one whose completion may still be running: Medusa's holds the
    // cart for at most its lock's TTL after the transaction was attached.
    if (
      !mayLackOrderPayment(session, data) ||
      now.getTime() - new Date(session.updated_at).getTime() < COMPLETION_LOCK_MS
    ) {
      return []
    }
    let outcome: SettleOutcome
    try {
      outcome = await settlePayment(container, session.id, { source: "sweep" })
    } catch (error) {
      // The cart is still locked (a dead completion's lock lapses with its
      // TTL): not yet, the next pass tries again.
      if (error instanceof OrderPaymentPending) return []
      throw error
    }
    return outcome.kind === "order" && outcome.paymentRecorded
      ? [
          {
            session_id: session.id,
            status: "order_created",
            message: `order ${outcome.orderId} had no payment (its completion stopped before recording it); recorded transaction ${data?.transaction_id} as its payment`,
          },
        ]
      : []
  }

  // Results reported but never verified (the service was down when the
  // callback came): verify them now, as the callback would have, oldest
  // first. Once one has made the order, settlePayment reverses any other
  // approval the next ones name (a second tab's).
  const hints = unverifiedHints(notes, data?.transaction_id)
  if (hints.length) {
    const actions: SweepAction[] = []
    let ordered = false
    for (const hint of hints) {
      const action = await settleOrNote(container, session.id, now, hint.transaction_id, ordered)
      if (action) actions.push(action)
      ordered ||= action?.status === "order_created"
    }
    return actions
  }

  // Verified and attached, but no order (completion failed after the
  // result was checked): complete it now through the same path, unless an
  // approval's reversal was refused (238, 243) on the way: then the store
  // owner decides.
  // The same for a result under review (480) whose completion died before
  // it placed the order on hold: settlePayment asks the service for the
  // verdict first.
  if (
    data?.transaction_id &&
    ((!data.failure && data.state !== "failed") || awaitingVerdict(data)) &&
    notes.reconcile?.status !== "not_released"
  ) {
    const action = await settleOrNote(container, session.id, now)
    return action ? [action] : []
  }

  // Attempts handed out, no result ever reported, the grace period over:
  // only the store owner can look the references up at the service.
  const attempts = notes.attempts ?? []
  const last = attempts[attempts.length - 1]
  if (
    !data?.transaction_id &&
    !hintsOf(notes).length &&
    last &&
    now.getTime() - Date.parse(last.at) >= provider.options.reconcileGraceMs &&
    notes.reconcile?.status !== "outcome_unknown"
  ) {
    const references = attempts.map((a) => a.reference)
    const note: ReconcileNote = {
      status: "outcome_unknown",
      at: now.toISOString(),
      message: `no result reported for ${references.length} payment attempt(s); look the references up at the card service`,
      references,
    }
    await updateSessionNotes(container, session.id, (current) =>
      current.reconcile?.status === "outcome_unknown"
        ? null
        : { ...current, reconcile: note }
    )
    return [{ session_id: session.id, status: note.status, message: note.message }]
  }
  return []
}

/**
 * settlePayment for the session pass, with its hint (answered: the note
 * drops it) or without. A reversal on the way that the service refused with
 * 238 or 243 is noted for the store owner rather than tried every sweep.
 */
async function settleOrNote(
  container: MedusaContainer,
  sessionId: string,
  now: Date,
  hintTransactionId?: string,
  /** An earlier hint of this pass made the session's order. */
  orderMade = false
): Promise<SweepAction | null> {
  let outcome: SettleOutcome
  try {
    outcome = await settlePayment(container, sessionId, {
      ...(hintTransactionId ? { transactionId: hintTransactionId } : {}),
      source: "sweep",
    })
  } catch (error) {
    if (!ApprovalNotReleased.is(error)) throw error
    const note = notReleasedNote(error, "an approval of this session", now)
    await recordNotReleased(container, sessionId, note, hintTransactionId)
    return { session_id: sessionId, status: note.status, message: note.message }
  }
  return await noteOutcome(container, sessionId, outcome, now, hintTransactionId, orderMade)
}

async function noteOutcome(
  container: MedusaContainer,
  sessionId: string,
  outcome: SettleOutcome,
  now: Date,
  /** The hint this answers: dropped so the next sweep does not check it again. */
  answeredHint: string | undefined,
  orderMade: boolean
): Promise<SweepAction | null> {
  if (orderMade && outcome.kind === "order" && !outcome.secondPaymentReleased) {
    // The order an earlier hint made stands, and this one was no approval of
    // it (a second tab's decline): answered, with nothing to tell.
    if (answeredHint) await updateSessionNotes(container, sessionId, (current) => withoutHint(current, answeredHint))
    return null
  }
  if (outcome.kind === "ignored") {
    // The service's record shows the reported result is no payment of this
    // session (it knows no such transaction, or it is another session's): a
    // forged or replayed report, answered. Nothing was paid or failed, and
    // a note would list a failed payment for a session that had none, and
    // keep listing it after the shopper paid (issue 41).
    if (answeredHint) await updateSessionNotes(container, sessionId, (current) => withoutHint(current, answeredHint))
    return null
  }
  const note = noteFor(outcome, now, answeredHint)
  if (!note) {
    return null
  }
  await updateSessionNotes(container, sessionId, (current) => ({
    ...(answeredHint ? withoutHint(current, answeredHint) : current),
    reconcile: note,
  }))
  return { session_id: sessionId, status: note.status, message: note.message }
}

function noteFor(outcome: SettleOutcome, now: Date, answeredHint?: string): ReconcileNote | null {
  const at = now.toISOString()
  switch (outcome.kind) {
    case "order":
      if (outcome.secondPaymentReleased) {
        return {
          status: "released",
          at,
          message: `order ${outcome.orderId} keeps its payment; a second approval ${answeredHint}, reported while it could not be verified, was reversed`,
        }
      }
      return {
        status: "order_created",
        at,
        message: outcome.balance
          ? `verified the reported result and authorized the amount order ${outcome.orderId} owed after an edit`
          : `verified the reported result and completed the cart as order ${outcome.orderId}`,
      }
    case "released":
      return {
        status: "released",
        at,
        message: "the cart changed after payment; the approval was reversed",
      }
    case "failed":
      return {
        status: "failed",
        at,
        message: `the payment did not go through: ${outcome.failure.code}`,
      }
    default:
      // pending / unknown: nothing settled yet; the next sweep looks again.
      return null
  }
}
