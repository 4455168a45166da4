import { settlePayment, type SettleOutcome } from "../../src/checkout/settle-payment"
import { CardServiceError } from "../../src/lib/card-service-error"
import { notReleasedNote } from "../../src/payment-notes/not-released"
import { ApprovalNotReleased } from "../../src/providers/card-service/approval-reversal"
import { LOOKBACK_MS, sweepGoneSessions } from "../../src/reconciliation/gone-sessions"
import {
  clearPaymentTables,
  insertCollection,
  insertSession,
  pgContainer,
  usePaymentDatabase,
  type PgDatabase,
} from "../helpers/pg-container"

jest.mock("../../src/checkout/settle-payment", () => ({ settlePayment: jest.fn() }))

jest.setTimeout(60_000)

/**
 * The sweep's pass over the hint copies kept on payment collections
 * (gone-sessions.ts), on a real PostgreSQL: which collections it reads (SQL
 * over payment_collection and payment_session jsonb metadata), which copies
 * it drops as answered, which it settles, and what it notes when the service
 * refuses a reversal. settlePayment, which checks and reverses the approval
 * itself (tests/contract/settlement.spec.ts), is a stand-in here that
 * answers per session and transaction; the notes are written for real, over
 * the same rows.
 */

const NOW = new Date("2026-11-20T12:00:00.000Z")
const MINUTE = 60_000
const HOUR = 60 * MINUTE
const ms = (n: number) => new Date(NOW.getTime() + n)

let db: PgDatabase
usePaymentDatabase((started) => (db = started))

type Answer = SettleOutcome | Error
let answers: Map<string, Answer>
beforeEach(async () => {
  answers = new Map()
  jest.mocked(settlePayment).mockReset()
  jest.mocked(settlePayment).mockImplementation(async (_container, sessionId, hint) => {
    const answer = answers.get(`${sessionId}:${hint?.transactionId}`)
    if (!answer) throw new Error(`the spec gave no answer for ${sessionId}:${hint?.transactionId}`)
    if (answer instanceof Error) throw answer
    return answer
  })
})

type HintCopy = { session_id: unknown; transaction_id: unknown; received_at: string; not_released?: unknown }
const copy = (sessionId: string, transactionId: string, receivedAt = ms(-10 * MINUTE)): HintCopy => ({
  session_id: sessionId,
  transaction_id: transactionId,
  received_at: receivedAt.toISOString(),
})
const keyOf = (c: HintCopy) => `${c.session_id}:${c.transaction_id}`

/** A payment collection with these hint copies, changed `updatedAgo` ms before NOW. */
async function collection(id: string, copies: HintCopy[], updatedAgo = MINUTE): Promise<void> {
  await insertCollection(db, {
    id,
    metadata: { other: "kept", card_service_hints: Object.fromEntries(copies.map((c) => [keyOf(c), c])) },
    updated_at: ms(-updatedAgo),
  })
}

/** A session holding these hints in its notes. */
async function session(id: string, status: string, hints: string[] = [], extra: { deleted?: boolean } = {}) {
  await insertSession(db, {
    id,
    status,
    created_at: ms(-20 * MINUTE),
    deleted_at: extra.deleted ? ms(-MINUTE) : null,
    metadata: {
      card_service: {
        hints: hints.map((transaction_id) => ({ transaction_id, source: "callback", received_at: ms(-10 * MINUTE).toISOString() })),
      },
    },
  })
}

async function copiesOn(collectionId: string): Promise<Record<string, HintCopy>> {
  const { rows } = await db.raw(`select "metadata" from "payment_collection" where "id" = ?`, [collectionId])
  return rows[0].metadata.card_service_hints
}

async function notesOn(sessionId: string): Promise<Record<string, any>> {
  const { rows } = await db.raw(`select "metadata" from "payment_session" where "id" = ?`, [sessionId])
  return rows[0].metadata.card_service
}

function sweep(take = 100) {
  const medusa = pgContainer(db)
  return { run: sweepGoneSessions(medusa.container, NOW, take), logger: medusa.logger }
}
const settledWith = () => jest.mocked(settlePayment).mock.calls.map(([, sessionId, hint]) => `${sessionId}:${hint?.transactionId}`)

const released = (): SettleOutcome => ({ kind: "released", cartId: null } as never)
const notReleased = (transactionId: string, code = "243") => new ApprovalNotReleased(transactionId, code)
const serviceDown = () =>
  new CardServiceError({ category: "service_error", operation: "retrieve", retrySafe: true, detail: "down" })

describe("the copy of a hint whose session is gone", () => {
  it("is settled as the sweep (the orphan's approval reversed) and dropped", async () => {
    const gone = copy("payses_gone", "tx_1")
    await collection("pay_col_1", [gone])
    answers.set(keyOf(gone), released())
    const { run } = sweep()
    expect(await run).toEqual([
      {
        session_id: "payses_gone",
        status: "released",
        message: "the cart changed or was paid another way before transaction tx_1 was verified; the approval was reversed",
      },
    ])
    expect(settlePayment).toHaveBeenCalledWith(expect.anything(), "payses_gone", { transactionId: "tx_1", source: "sweep" })
    expect(await copiesOn("pay_col_1")).toEqual({})
  })

  it("counts a session Medusa soft-deleted as gone", async () => {
    await session("payses_deleted", "pending", ["tx_1"], { deleted: true })
    const gone = copy("payses_deleted", "tx_1")
    await collection("pay_col_1", [gone])
    answers.set(keyOf(gone), released())
    expect((await sweep().run).map((a) => a.status)).toEqual(["released"])
    expect(await copiesOn("pay_col_1")).toEqual({})
  })

  it("says a transaction that is not this store's approval was not reversed, and drops the copy", async () => {
    const gone = copy("payses_gone", "tx_forged")
    await collection("pay_col_1", [gone])
    answers.set(keyOf(gone), { kind: "ignored", cartId: null, reason: "not this session's" })
    expect(await sweep().run).toEqual([
      {
        session_id: "payses_gone",
        status: "failed",
        message: "transaction tx_forged of a deleted session is not this store's approval; nothing reversed",
      },
    ])
    expect(await copiesOn("pay_col_1")).toEqual({})
  })

  it("keeps a refused reversal (243) on the copy, where the store owner sees it, and never asks again", async () => {
    const gone = copy("payses_gone", "tx_1")
    await collection("pay_col_1", [gone])
    answers.set(keyOf(gone), notReleased("tx_1"))
    const expected = notReleasedNote(
      { transactionId: "tx_1", reasonCode: "243" },
      "the cart changed or was paid another way before this approval was verified",
      NOW
    )
    expect(await sweep().run).toEqual([{ session_id: "payses_gone", status: "not_released", message: expected.message }])
    expect(await copiesOn("pay_col_1")).toEqual({ [keyOf(gone)]: { ...gone, not_released: expected } })

    // The next passes leave it: the service would only refuse again.
    expect(await sweep().run).toStrictEqual([])
    expect(settlePayment).toHaveBeenCalledTimes(1)
    expect((await copiesOn("pay_col_1"))[keyOf(gone)].not_released).toEqual(expected)
  })

  it("keeps the copy for the next pass when the reversal had no answer, and logs it without the session id", async () => {
    const gone = copy("payses_gone123456", "tx_1")
    const other = copy("payses_other", "tx_2")
    await collection("pay_col_1", [gone, other])
    answers.set(keyOf(gone), new Error("no answer to the reversal, twice"))
    answers.set(keyOf(other), released())
    const { run, logger } = sweep()
    expect((await run).map((a) => a.session_id)).toEqual(["payses_other"])
    expect(await copiesOn("pay_col_1")).toEqual({ [keyOf(gone)]: gone })
    expect(logger.lines).toEqual([
      {
        level: "error",
        message: "card-service reconcile: payses_…123456 could not be released: no answer to the reversal, twice",
      },
    ])
  })

  it("stops the sweep when the service is down, and drops nothing", async () => {
    const first = copy("payses_a", "tx_1", ms(-20 * MINUTE))
    const second = copy("payses_b", "tx_2", ms(-10 * MINUTE))
    await collection("pay_col_1", [first, second])
    answers.set(keyOf(first), released())
    answers.set(keyOf(second), serviceDown())
    await expect(sweep().run).rejects.toBe(answers.get(keyOf(second)))
    expect(await copiesOn("pay_col_1")).toEqual({ [keyOf(first)]: first, [keyOf(second)]: second })
  })

  it("leaves a copy whose session or transaction is not named, and the rest of the collection's metadata", async () => {
    const gone = copy("payses_gone", "tx_1")
    const broken = { ...copy("payses_x", "tx_x"), session_id: 7 }
    await insertCollection(db, {
      id: "pay_col_1",
      metadata: { other: "kept", card_service_hints: { broken, [keyOf(gone)]: gone } },
      updated_at: ms(-MINUTE),
    })
    answers.set(keyOf(gone), released())
    await sweep().run
    expect(settledWith()).toEqual([keyOf(gone)])
    const { rows } = await db.raw(`select "metadata" from "payment_collection" where "id" = 'pay_col_1'`)
    expect(rows[0].metadata).toEqual({ other: "kept", card_service_hints: { broken } })
  })
})

describe("the copies a pass cannot use", () => {
  it("leaves a copy that names no transaction, or is no copy at all, and acts on the rest", async () => {
    const gone = copy("payses_gone", "tx_1")
    const noTransaction = { ...copy("payses_y", "tx_y"), transaction_id: null }
    await insertCollection(db, {
      id: "pay_col_1",
      metadata: { card_service_hints: { empty: null, noTransaction, [keyOf(gone)]: gone } },
      updated_at: ms(-MINUTE),
    })
    answers.set(keyOf(gone), released())
    expect((await sweep().run).map((a) => a.session_id)).toEqual(["payses_gone"])
    expect(settledWith()).toEqual([keyOf(gone)])
    expect(await copiesOn("pay_col_1")).toEqual({ empty: null, noTransaction })
  })

  it("leaves the collection unwritten when nothing was answered, so it keeps its place in the order", async () => {
    await session("payses_open", "pending", [])
    const young = copy("payses_open", "tx_1", ms(-MINUTE + 1))
    await collection("pay_col_1", [young], 5 * MINUTE)
    await sweep().run
    const { rows } = await db.raw(`select "updated_at" from "payment_collection" where "id" = 'pay_col_1'`)
    expect(rows[0].updated_at).toEqual(ms(-5 * MINUTE))
  })

  it("does not bring back a copy another pass dropped while its reversal was refused", async () => {
    const gone = copy("payses_gone", "tx_1")
    await collection("pay_col_1", [gone])
    jest.mocked(settlePayment).mockImplementationOnce(async () => {
      await db.raw(`update "payment_collection" set "metadata" = '{"card_service_hints": {}}' where "id" = 'pay_col_1'`)
      throw notReleased("tx_1")
    })
    expect((await sweep().run).map((a) => a.status)).toEqual(["not_released"])
    expect(await copiesOn("pay_col_1")).toEqual({})
  })

  it("tells the copies of one collection's sessions apart: an open one's is left, a gone one's settled", async () => {
    await session("payses_open", "pending", ["tx_held"])
    const held = copy("payses_open", "tx_held")
    const gone = copy("payses_gone", "tx_1")
    await collection("pay_col_1", [held, gone])
    answers.set(keyOf(gone), released())
    expect((await sweep().run).map((a) => a.session_id)).toEqual(["payses_gone"])
    expect(settledWith()).toEqual([keyOf(gone)])
    expect(await copiesOn("pay_col_1")).toEqual({ [keyOf(held)]: held })
  })

  it("looks back one week", () => {
    expect(LOOKBACK_MS).toBe(7 * 24 * 60 * 60 * 1000)
  })
})

describe("the copy of a hint whose session is authorized (the order's)", () => {
  it("settles it: another approval of the paid session (a second tab's) is reversed and said so", async () => {
    await session("payses_paid", "authorized", [])
    const second = copy("payses_paid", "tx_2")
    await collection("pay_col_1", [second])
    answers.set(keyOf(second), { kind: "order", orderId: "order_1", cartId: "cart_1", secondPaymentReleased: true })
    expect(await sweep().run).toEqual([
      {
        session_id: "payses_paid",
        status: "released",
        message: "the order keeps its payment; a second approval tx_2, reported while the service was down, was reversed",
      },
    ])
    expect(await copiesOn("pay_col_1")).toEqual({})
  })

  it("drops the order's own transaction without a word", async () => {
    await session("payses_paid", "authorized", ["tx_1"])
    const own = copy("payses_paid", "tx_1")
    await collection("pay_col_1", [own])
    answers.set(keyOf(own), { kind: "order", orderId: "order_1", cartId: "cart_1" })
    expect(await sweep().run).toStrictEqual([])
    expect(settledWith()).toEqual([keyOf(own)])
    expect(await copiesOn("pay_col_1")).toEqual({})
  })

  it("says nothing of a released outcome for a session that still exists", async () => {
    await session("payses_paid", "authorized", [])
    const own = copy("payses_paid", "tx_1")
    await collection("pay_col_1", [own])
    answers.set(keyOf(own), released())
    expect(await sweep().run).toStrictEqual([])
    expect(await copiesOn("pay_col_1")).toEqual({})
  })

  it("notes a refused reversal on the session once and drops the copy", async () => {
    await session("payses_paid", "authorized", ["tx_1"])
    const second = copy("payses_paid", "tx_2")
    await collection("pay_col_1", [second])
    answers.set(keyOf(second), notReleased("tx_2", "238"))
    const expected = notReleasedNote({ transactionId: "tx_2", reasonCode: "238" }, "a second approval of a paid session", NOW)
    expect(await sweep().run).toEqual([{ session_id: "payses_paid", status: "not_released", message: expected.message }])
    expect(await copiesOn("pay_col_1")).toEqual({})
    expect((await notesOn("payses_paid")).reconcile).toEqual(expected)
    expect(await sweep().run).toStrictEqual([])
    expect(settlePayment).toHaveBeenCalledTimes(1)
  })
})

describe("the copy of a hint whose session is still open", () => {
  it("is the session pass's while the session holds the hint: not settled, not dropped", async () => {
    await session("payses_open", "pending", ["tx_held"])
    const held = copy("payses_open", "tx_held", ms(-HOUR))
    // A second copy, answered long ago, brings the collection into the pass.
    const answered = copy("payses_open", "tx_answered", ms(-HOUR))
    await collection("pay_col_1", [held, answered])
    expect(await sweep().run).toStrictEqual([])
    expect(settlePayment).not.toHaveBeenCalled()
    expect(await copiesOn("pay_col_1")).toEqual({ [keyOf(held)]: held })
  })

  it.each(["pending", "requires_more", "error", "pending_authorization", "canceled"])(
    "is dropped as answered once a %s session no longer holds it and it is a minute old",
    async (status) => {
      await session("payses_open", status, [])
      const answered = copy("payses_open", "tx_1", ms(-MINUTE))
      await collection("pay_col_1", [answered])
      expect(await sweep().run).toStrictEqual([])
      expect(settlePayment).not.toHaveBeenCalled()
      expect(await copiesOn("pay_col_1")).toEqual({})
    }
  )

  it("is left for the next pass while younger than a minute: its hint may be being noted on the session now", async () => {
    await session("payses_open", "pending", [])
    const young = copy("payses_open", "tx_1", ms(-MINUTE + 1))
    await collection("pay_col_1", [young])
    expect(await sweep().run).toStrictEqual([])
    expect(await copiesOn("pay_col_1")).toEqual({ [keyOf(young)]: young })
  })

  it("is answered when the session has no notes at all", async () => {
    await insertSession(db, { id: "payses_bare", status: "pending", metadata: null, created_at: ms(-20 * MINUTE) })
    await collection("pay_col_1", [copy("payses_bare", "tx_1")])
    await sweep().run
    expect(await copiesOn("pay_col_1")).toEqual({})
  })
})

describe("which collections a pass reads", () => {
  /**
   * A collection that needs the pass, changed a minute ago: with a batch of
   * one, it is acted on only if every collection changed before it was left
   * out of the batch.
   */
  async function needy(): Promise<void> {
    const gone = copy("payses_needy", "tx_needy")
    await collection("pay_col_needy", [gone], MINUTE)
    answers.set(keyOf(gone), released())
  }
  async function passTakesOnlyNeedy(): Promise<void> {
    expect((await sweep(1).run).map((a) => a.session_id)).toEqual(["payses_needy"])
    expect(await copiesOn("pay_col_needy")).toEqual({})
  }

  it("takes the least recently changed first, at most the batch", async () => {
    const older = copy("payses_older", "tx_1")
    await collection("pay_col_older", [older], 2 * MINUTE)
    answers.set(keyOf(older), released())
    await needy()
    expect((await sweep(1).run).map((a) => a.session_id)).toEqual(["payses_older"])
    expect(settledWith()).toEqual([keyOf(older)])
  })

  it("leaves out a deleted collection", async () => {
    await insertCollection(db, {
      id: "pay_col_deleted",
      metadata: { card_service_hints: { k: copy("payses_x", "tx_x") } },
      updated_at: ms(-2 * MINUTE),
      deleted_at: ms(-MINUTE),
    })
    await needy()
    await passTakesOnlyNeedy()
  })

  it("leaves out a collection not changed for the lookback (a week), to the millisecond", async () => {
    const old = copy("payses_old", "tx_old")
    await collection("pay_col_old", [old], LOOKBACK_MS + 1)
    await needy()
    await passTakesOnlyNeedy()

    await clearPaymentTables(db)
    const oldest = copy("payses_oldest", "tx_oldest")
    await collection("pay_col_oldest", [oldest], LOOKBACK_MS)
    answers.set(keyOf(oldest), released())
    await needy()
    expect((await sweep(1).run).map((a) => a.session_id)).toEqual(["payses_oldest"])
  })

  it.each([
    ["no metadata", null],
    ["no hints", { other: 1 }],
    ["hints that are not an object", { card_service_hints: [copy("payses_x", "tx_x")] }],
    ["hints that are text", { card_service_hints: "payses_x:tx_x" }],
  ])("leaves out a collection with %s", async (_name, metadata) => {
    await insertCollection(db, { id: "pay_col_other", metadata, updated_at: ms(-2 * MINUTE) })
    await needy()
    await passTakesOnlyNeedy()
  })

  it("leaves out a collection whose only copies' reversals were refused", async () => {
    await collection("pay_col_refused", [{ ...copy("payses_x", "tx_x"), not_released: { status: "not_released" } }], 2 * MINUTE)
    await needy()
    await passTakesOnlyNeedy()
  })

  it("leaves out a collection whose copies open sessions still hold", async () => {
    await session("payses_open", "pending", ["tx_held", "tx_other"])
    await collection("pay_col_open", [copy("payses_open", "tx_held")], 2 * MINUTE)
    await needy()
    await passTakesOnlyNeedy()
  })

  it("matches a held hint by its transaction id, not by the copy's other fields", async () => {
    // The session's hint came from the return, the copy from the callback:
    // still the same hint.
    await insertSession(db, {
      id: "payses_open",
      status: "pending",
      created_at: ms(-20 * MINUTE),
      metadata: { card_service: { hints: [{ transaction_id: "tx_held", source: "return", received_at: NOW.toISOString() }] } },
    })
    await collection("pay_col_open", [copy("payses_open", "tx_held")], 2 * MINUTE)
    await needy()
    await passTakesOnlyNeedy()
  })

  it.each([
    ["its session is authorized", "authorized", ["tx_x"]],
    ["its session no longer holds it", "pending", ["tx_other"]],
  ])("reads a collection with a copy when %s", async (_name, status, hints) => {
    await session("payses_x", status, hints)
    const x = copy("payses_x", "tx_x", ms(-2 * MINUTE))
    await collection("pay_col_x", [x], 2 * MINUTE)
    answers.set(keyOf(x), { kind: "order", orderId: "order_1", cartId: "cart_1" })
    await needy()
    expect(await sweep(1).run).toStrictEqual([])
    expect(await copiesOn("pay_col_x")).toEqual({})
    expect(await copiesOn("pay_col_needy")).not.toEqual({})
  })

  it("reads a collection when one of its copies needs the pass, and leaves its refused one alone", async () => {
    const refused = { ...copy("payses_r", "tx_r"), not_released: { status: "not_released" } }
    const gone = copy("payses_gone", "tx_1")
    await collection("pay_col_1", [refused, gone], 2 * MINUTE)
    answers.set(keyOf(gone), released())
    await needy()
    expect((await sweep(1).run).map((a) => a.session_id)).toEqual(["payses_gone"])
    expect(settledWith()).toEqual([keyOf(gone)])
    expect(await copiesOn("pay_col_1")).toEqual({ [keyOf(refused)]: refused })
  })

  it("reads a collection whose session's notes hold no hints list", async () => {
    await insertSession(db, {
      id: "payses_x",
      status: "pending",
      created_at: ms(-20 * MINUTE),
      metadata: { card_service: { attempts: [] } },
    })
    await collection("pay_col_x", [copy("payses_x", "tx_x", ms(-2 * MINUTE))], 2 * MINUTE)
    await needy()
    await sweep(1).run
    expect(await copiesOn("pay_col_x")).toEqual({})
  })
})
