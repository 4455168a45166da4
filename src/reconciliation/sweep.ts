import type {
  IPaymentModuleService,
  Logger,
  MedusaContainer,
  PaymentSessionDTO,
} from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { CardServiceError } from "../lib/card-service-error"
import {
  cardServiceProvider,
  PROVIDER_ID_PREFIX,
} from "../checkout/provider-lookup"
import { COMPLETION_LOCK_MS, mayLackOrderPayment, OrderPaymentPending } from "../checkout/order-payment"
import {
  cartOfSession,
  settlePayment,
  type SettleOutcome,
} from "../checkout/settle-payment"
import { ApprovalNotReleased } from "../providers/card-service/approval-reversal"
import type CardServiceProviderService from "../providers/card-service/service"
import {
  followPayment,
  listCapturesToFollow,
  type PaymentAction,
} from "./payment-followups"
import {
  collectionHintsOf,
  updateCollectionHints,
  notesOf,
  notReleasedNote,
  ReconcileNote,
  recordNotReleased,
  SessionNotes,
  updateSessionNotes,
} from "./session-notes"

/** One thing the sweep did or found, as it logs it and the admin shows it. */
export type SessionAction = {
  session_id: string
  status: ReconcileNote["status"]
  message: string
}
export type SweepAction = SessionAction | PaymentAction

export type SweepResult = {
  examined: number
  actions: SweepAction[]
  /** The service could not be reached; the caller backs off. */
  serviceDown: boolean
}

export type SweepOptions = {
  now?: Date
  /** Sessions looked at per provider and sweep, newest first. */
  batchSize?: number
}

/** Sessions older than this are left alone: no callback or return is that late. */
const LOOKBACK_MS = 7 * 24 * 60 * 60 * 1000
const DEFAULT_BATCH_SIZE = 100
/** Statuses a session leaves once it is authorized, captured or canceled. */
const OPEN_STATUSES = ["pending", "requires_more", "error"]

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
    // The payment module filters any column; its filter type names fewer.
    const sessions = await paymentModule.listPaymentSessions(
      {
        provider_id: id,
        status: OPEN_STATUSES,
        created_at: {
          $gte: new Date(now.getTime() - LOOKBACK_MS).toISOString(),
        },
      } as Record<string, unknown>,
      {
        take: options.batchSize ?? DEFAULT_BATCH_SIZE,
        order: { created_at: "DESC" },
      }
    )
    const payments = await listCapturesToFollow(
      container,
      id,
      now,
      options.batchSize ?? DEFAULT_BATCH_SIZE
    )
    const work = [
      ...sessions.map((session) => ({
        id: session.id,
        run: async () => {
          const action = await sweepSession(container, provider, session, now)
          return action ? [action] : []
        },
      })),
      ...payments.map((payment) => ({
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
            `card-service reconcile: ${item.id} ${action.status}: ${action.message}`
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
          `card-service reconcile: ${item.id} could not be checked: ${(error as Error).message}`
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
          `card-service reconcile: ${action.session_id} ${action.status}: ${action.message}`
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

/**
 * Hints of sessions Medusa has since deleted (the cart changed): their
 * approval can no longer become an order, so settlePayment's orphan path
 * checks it is this session's and reverses it. Hints of sessions that still
 * exist are the session pass's; once such a session is settled the copy on
 * the collection is dropped.
 */
async function sweepGoneSessions(
  container: MedusaContainer,
  now: Date,
  take: number
): Promise<SessionAction[]> {
  const paymentModule = container.resolve<IPaymentModuleService>(
    Modules.PAYMENT
  )
  const logger = container.resolve<Logger>(ContainerRegistrationKeys.LOGGER)
  const collections = await paymentModule.listPaymentCollections(
    {
      updated_at: {
        $gte: new Date(now.getTime() - LOOKBACK_MS).toISOString(),
      },
    } as Record<string, unknown>,
    { select: ["id", "metadata"], take, order: { updated_at: "DESC" } }
  )
  const actions: SessionAction[] = []
  for (const collection of collections) {
    const hints = collectionHintsOf(collection.metadata)
    const sessionIds = Object.keys(hints)
    if (!sessionIds.length) continue
    const existing = await paymentModule.listPaymentSessions(
      { id: sessionIds },
      { select: ["id", "status", "metadata"] }
    )
    const done: string[] = []
    const notReleased: Record<string, ReconcileNote> = {}
    for (const sessionId of sessionIds) {
      const session = existing.find((s) => s.id === sessionId)
      const transactionId = hints[sessionId].transaction_id
      // Refused with 238 or 243 before: the service's record decides, and
      // the store owner has it in Needs attention. Asking again would only
      // be refused again.
      if (hints[sessionId].not_released) continue
      if (session && session.status !== "authorized") {
        // Still open: the session pass settles its hint; the copy goes once it is answered.
        if (!notesOf(session.metadata).hint) done.push(sessionId)
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
            done.push(sessionId)
          } else {
            notReleased[sessionId] = note
          }
          actions.push({ session_id: sessionId, status: note.status, message: note.message })
          continue
        }
        // A reversal with no answer (twice) is asked again next sweep, when
        // 237 says the first one acted: the hint stays until it is settled.
        logger.error(
          `card-service reconcile: ${sessionId} could not be released: ${(error as Error).message}`
        )
        continue
      }
      done.push(sessionId)
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

async function sweepSession(
  container: MedusaContainer,
  provider: CardServiceProviderService,
  session: PaymentSessionDTO,
  now: Date
): Promise<SweepAction | null> {
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
      return null
    }
    let outcome: SettleOutcome
    try {
      outcome = await settlePayment(container, session.id, { source: "sweep" })
    } catch (error) {
      // The cart is still locked (a dead completion's lock lapses with its
      // TTL): not yet, the next pass tries again.
      if (error instanceof OrderPaymentPending) return null
      throw error
    }
    return outcome.kind === "order" && outcome.paymentRecorded
      ? {
          session_id: session.id,
          status: "order_created",
          message: `order ${outcome.orderId} had no payment (its completion stopped before recording it); recorded transaction ${data?.transaction_id} as its payment`,
        }
      : null
  }

  // A result was reported but never verified (the service was down when the
  // callback came): verify it now, as the callback would have.
  if (notes.hint && notes.hint.transaction_id !== data?.transaction_id) {
    return await settleOrNote(container, session.id, now, notes.hint.transaction_id)
  }

  // Verified and attached, but no order (completion failed after the
  // result was checked): complete it now through the same path, unless an
  // approval's reversal was refused (238, 243) on the way: then the store
  // owner decides.
  if (
    data?.transaction_id &&
    !data.failure &&
    data.state !== "failed" &&
    notes.reconcile?.status !== "not_released"
  ) {
    return await settleOrNote(container, session.id, now)
  }

  // Attempts handed out, no result ever reported, the grace period over:
  // only the store owner can look the references up at the service.
  const attempts = notes.attempts ?? []
  const last = attempts[attempts.length - 1]
  if (
    !data?.transaction_id &&
    !notes.hint &&
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
    return {
      session_id: session.id,
      status: note.status,
      message: note.message,
    }
  }
  return null
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
  hintTransactionId?: string
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
    await recordNotReleased(container, sessionId, note, !!hintTransactionId)
    return { session_id: sessionId, status: note.status, message: note.message }
  }
  return await noteOutcome(container, sessionId, outcome, now, !!hintTransactionId)
}

async function noteOutcome(
  container: MedusaContainer,
  sessionId: string,
  outcome: SettleOutcome,
  now: Date,
  fromHint: boolean
): Promise<SweepAction | null> {
  const note = noteFor(outcome, now)
  if (!note) {
    return null
  }
  await updateSessionNotes(container, sessionId, (current): SessionNotes => {
    // The hint is answered: drop it so the next sweep does not check it again.
    const { hint, ...rest } = current
    return { ...(fromHint ? rest : { ...rest, hint }), reconcile: note }
  })
  return { session_id: sessionId, status: note.status, message: note.message }
}

function noteFor(outcome: SettleOutcome, now: Date): ReconcileNote | null {
  const at = now.toISOString()
  switch (outcome.kind) {
    case "order":
      return {
        status: "order_created",
        at,
        message: `verified the reported result and completed the cart as order ${outcome.orderId}`,
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
    case "ignored":
      return {
        status: "failed",
        at,
        message: `the reported result was not usable: ${outcome.reason}`,
      }
    default:
      // pending / unknown: nothing settled yet; the next sweep looks again.
      return null
  }
}

function isServiceDown(error: unknown): boolean {
  return (
    CardServiceError.is(error) &&
    (error.category === "service_error" ||
      error.category === "timeout" ||
      (error.httpStatus !== undefined && error.httpStatus >= 500))
  )
}
