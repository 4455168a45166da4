import { sessionsToSweep } from "../../src/reconciliation/sweep-candidates"
import {
  insertSession,
  pgContainer,
  usePaymentDatabase,
  type PgDatabase,
  type SessionRow,
} from "../helpers/pg-container"

jest.setTimeout(60_000)

/**
 * Which open sessions the sweep's session pass reads (sweep-candidates.ts),
 * on a real PostgreSQL: the selection is SQL over Medusa's payment_session
 * rows, their `data` (the transaction attached, its state and failure) and
 * their jsonb notes (hints, attempts, the reconcile note). A session left
 * out here is never settled by the sweep, and one let in needlessly takes a
 * place in the batch from one that needs it.
 */

const PROVIDER = "pp_card-service_card-service"
const NOW = new Date("2026-11-20T12:00:00.000Z")
const MINUTE = 60_000
const ms = (n: number) => new Date(NOW.getTime() + n)
const SINCE = ms(-7 * 24 * 60 * MINUTE)
const GRACE_ENDED_AT = ms(-15 * MINUTE)

let db: PgDatabase
usePaymentDatabase((started) => (db = started))

const candidates = (take = 100) =>
  sessionsToSweep(pgContainer(db).container, { providerId: PROVIDER, since: SINCE, graceEndedAt: GRACE_ENDED_AT, take })

const hint = (transaction_id: string) => ({ transaction_id, source: "callback", received_at: ms(-MINUTE).toISOString() })
const attempt = (at: Date) => ({ reference: `ref_${at.getTime()}`, at: at.toISOString() })
const notes = (card_service: Record<string, unknown>) => ({ card_service })
/** An approval attached and checked, no order yet. */
const attached = { transaction_id: "tx_1", state: "authorized" }
/** A payment under review (480) whose completion may have died before the order was placed on hold. */
const underReview = { transaction_id: "tx_1", state: "pending", failure: { code: "480" } }
/** Attempts handed out, the last one past the grace period. */
const lapsed = notes({ attempts: [attempt(ms(-60 * MINUTE)), attempt(GRACE_ENDED_AT)] })

type Case = [string, Omit<SessionRow, "id">]

const selected: Case[] = [
  ["a hint for another transaction than the one attached", { data: attached, metadata: notes({ hints: [hint("tx_2")] }) }],
  ["a hint and no transaction attached", { metadata: notes({ hints: [hint("tx_1")] }) }],
  ["a hint and a failed transaction attached", { data: { transaction_id: "tx_1", state: "failed" }, metadata: notes({ hints: [hint("tx_2")] }) }],
  ["a hint of a requires_more session", { status: "requires_more", metadata: notes({ hints: [hint("tx_1")] }) }],
  ["a hint of an error session", { status: "error", metadata: notes({ hints: [hint("tx_1")] }) }],
  ["an approval attached and no order", { data: attached }],
  ["an approval attached with a JSON null failure", { data: { ...attached, failure: null } }],
  ["an approval attached with no state", { data: { transaction_id: "tx_1" } }],
  ["an approval attached, its hint answered", { data: attached, metadata: notes({ hints: [hint("tx_1")] }) }],
  ["an approval attached and another note", { data: attached, metadata: notes({ reconcile: { status: "failed" } }) }],
  ["a result under review (480) attached, no order on hold", { data: underReview }],
  ["attempts, no result, the last one exactly at the end of the grace period", { metadata: lapsed }],
  ["attempts, no result, the last one before the end of the grace period", { metadata: notes({ attempts: [attempt(ms(-16 * MINUTE))] }) }],
  ["attempts, no result, an empty transaction id", { data: { transaction_id: "" }, metadata: lapsed }],
  ["attempts, no result, an empty hints list", { metadata: notes({ ...lapsed.card_service, hints: [] }) }],
  ["attempts, no result, another note", { metadata: notes({ ...lapsed.card_service, reconcile: { status: "failed" } }) }],
  ["created exactly at the lookback's start", { data: attached, created_at: SINCE }],
]

const leftOut: Case[] = [
  ["another provider's", { provider_id: "pp_card-service_other", data: attached }],
  ["a deleted one", { data: attached, deleted_at: ms(-MINUTE) }],
  ["an authorized one", { status: "authorized", data: attached, metadata: notes({ hints: [hint("tx_2")] }) }],
  ["a canceled one", { status: "canceled", data: attached }],
  ["an order on hold (pending_authorization: the held pass's)", { status: "pending_authorization", data: underReview }],
  ["one created before the lookback", { data: attached, created_at: ms(SINCE.getTime() - NOW.getTime() - 1) }],
  ["a cart left at the payment step (nothing noted)", {}],
  ["one whose only hint is the transaction attached", { data: { transaction_id: "tx_1", state: "failed" }, metadata: notes({ hints: [hint("tx_1")] }) }],
  ["one whose hints are not a list", { metadata: notes({ hints: { tx_1: hint("tx_1") } }) }],
  ["a declined payment (state failed)", { data: { transaction_id: "tx_1", state: "failed" } }],
  ["a declined payment (a failure noted)", { data: { transaction_id: "tx_1", state: "authorized", failure: { code: "declined" } } }],
  ["an approval whose reversal the service refused (not released)", { data: attached, metadata: notes({ reconcile: { status: "not_released" } }) }],
  ["an approval with an empty transaction id", { data: { transaction_id: "", state: "authorized" } }],
  ["a result under review of a session no longer pending", { status: "requires_more", data: underReview }],
  ["a result under review whose state is not pending", { data: { ...underReview, state: "authorized" } }],
  ["another failure code with a pending state", { data: { ...underReview, failure: { code: "481" } } }],
  ["a result under review with no transaction", { data: { state: "pending", failure: { code: "480" } } }],
  ["attempts, no result, the last one inside the grace period", { metadata: notes({ attempts: [attempt(ms(-60 * MINUTE)), attempt(ms(GRACE_ENDED_AT.getTime() - NOW.getTime() + 1))] }) }],
  ["attempts already shown as outcome unknown", { metadata: notes({ ...lapsed.card_service, reconcile: { status: "outcome_unknown" } }) }],
  ["attempts and a failed transaction attached", { data: { transaction_id: "tx_1", state: "failed" }, metadata: lapsed }],
  ["no attempts", { metadata: notes({ attempts: [] }) }],
]

describe("the open sessions the session pass reads (sessionsToSweep)", () => {
  it.each(selected)("takes one with %s", async (_name, row) => {
    await insertSession(db, { id: "ps_1", created_at: ms(-60 * MINUTE), ...row })
    expect(await candidates()).toEqual(["ps_1"])
  })

  it.each(leftOut)("leaves out %s", async (_name, row) => {
    await insertSession(db, { id: "ps_1", created_at: ms(-60 * MINUTE), ...row })
    expect(await candidates()).toStrictEqual([])
  })

  it("takes the oldest first, at most the batch", async () => {
    await insertSession(db, { id: "ps_newest", data: attached, created_at: ms(-1 * MINUTE), updated_at: ms(-50 * MINUTE) })
    await insertSession(db, { id: "ps_oldest", data: attached, created_at: ms(-3 * MINUTE), updated_at: ms(-1 * MINUTE) })
    await insertSession(db, { id: "ps_between", data: attached, created_at: ms(-2 * MINUTE) })
    expect(await candidates(2)).toEqual(["ps_oldest", "ps_between"])
    expect(await candidates(3)).toEqual(["ps_oldest", "ps_between", "ps_newest"])
  })
})
