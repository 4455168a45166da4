import { Modules } from "@medusajs/framework/utils"
import { cardServiceProvider } from "../../src/checkout/provider-lookup"
import {
  SESSION_DATA_VERSION,
  type CardServiceSessionData,
  type TransactionLogEntry,
} from "../../src/providers/card-service/session-data"
import {
  followPayment,
  settleUnloggedFollowOns,
  listCapturesToFollow,
  PAYMENT_LOOKBACK_MS,
  type PaymentNote,
} from "../../src/reconciliation/payment-followups"
import { sessionDataFixture } from "../helpers/session-data-fixture"

jest.mock("../../src/checkout/provider-lookup", () => ({
  ...jest.requireActual("../../src/checkout/provider-lookup"),
  cardServiceProvider: jest.fn(),
}))

/**
 * The sweep's following of captured payments (payment-followups.ts): which
 * payments it reads, what a capture's record at the service tells the store
 * owner, a capture whose answer was lost settled by asking once more, and
 * refunds of unknown outcome shown, never sent again. The provider (its
 * client's retrieve and resolveLostCapture, tested against the sandbox in
 * tests/contract/provider-follow-ons.spec.ts) and the payment module are
 * stand-ins; the notes written are asserted as the admin reads them.
 */

const CARD = "pp_card-service_card-service"
const NOW = new Date("2026-11-20T12:00:00.000Z")
const AT = NOW.toISOString()

const entry = (operation: TransactionLogEntry["operation"], decision: TransactionLogEntry["decision"], extra: Partial<TransactionLogEntry> = {}): TransactionLogEntry => ({
  transaction_id: null,
  operation,
  decision,
  reason_code: null,
  amount: 30,
  at: "2026-11-19T12:00:00.000Z",
  ...extra,
})

function sessionData(changes: Partial<CardServiceSessionData> = {}): CardServiceSessionData {
  return sessionDataFixture({
    state: "captured",
    transaction_id: "tx_auth",
    capture: { transaction_id: "tx_capture", amount: 30 },
    transactions: [entry("authorization", "ACCEPT", { transaction_id: "tx_auth" }), entry("capture", "ACCEPT", { transaction_id: "tx_capture" })],
    ...changes,
  } as Partial<CardServiceSessionData>)
}

type Row = { id: string; provider_id: string; data: Record<string, unknown> | null; metadata: Record<string, unknown> | null }
const row = (data: unknown, metadata: Record<string, unknown> | null = null): Row => ({
  id: "pay_1",
  provider_id: CARD,
  data: data as Record<string, unknown>,
  metadata,
})
const noted = (notes: Record<string, unknown>, other: Record<string, unknown> = {}) => ({ ...other, card_service: notes })

let listPayments: jest.Mock
let listRefunds: jest.Mock
let listCaptures: jest.Mock
let updatePayment: jest.Mock
let retrieve: jest.Mock
let resolveLostCapture: jest.Mock
let refreshSettings: jest.Mock
let execute: jest.Mock
let container: never
/** The payment as the database holds it now (followPayment reads it again under the payment's lock). */
let stored: Row | null

beforeEach(() => {
  stored = null
  listPayments = jest.fn(async (filter: { id?: string } = {}) => (filter.id && stored?.id === filter.id ? [stored] : []))
  listRefunds = jest.fn(async () => [])
  listCaptures = jest.fn(async () => [])
  updatePayment = jest.fn(async () => ({}))
  retrieve = jest.fn()
  resolveLostCapture = jest.fn()
  refreshSettings = jest.fn(async () => {})
  execute = jest.fn(async (_key: string, job: () => Promise<unknown>) => await job())
  const registry: Record<string, unknown> = {
    [Modules.PAYMENT]: { listPayments, listRefunds, listCaptures, updatePayment },
    [Modules.LOCKING]: { execute },
  }
  container = { resolve: (key: string) => registry[key] } as never
  jest.mocked(cardServiceProvider).mockReset()
  jest.mocked(cardServiceProvider).mockReturnValue({ refreshSettings, client: { retrieve }, resolveLostCapture } as never)
})

/** The sweep follows the payment it listed, which the database holds as listed unless `now` says otherwise. */
const follow = (payment: Row, now: Row = payment) => {
  stored = now
  return followPayment(container, payment as never, NOW)
}
const written = () => updatePayment.mock.calls.map(([update]) => update)

describe("the captured payments a pass follows (listCapturesToFollow)", () => {
  it("asks for this provider's captured, not canceled payments of the last 30 days, newest first", async () => {
    await listCapturesToFollow(container, CARD, NOW, 7)
    expect(listPayments).toHaveBeenCalledWith(
      {
        provider_id: CARD,
        captured_at: { $ne: null },
        canceled_at: null,
        created_at: { $gte: new Date(NOW.getTime() - PAYMENT_LOOKBACK_MS).toISOString() },
      },
      { select: ["id", "data", "metadata", "provider_id", "created_at"], take: 7, order: { created_at: "DESC" } }
    )
    expect(PAYMENT_LOOKBACK_MS).toBe(30 * 24 * 60 * 60 * 1000)
  })

  it("keeps those with something left to learn", async () => {
    const unknownRefund = sessionData({ transactions: [entry("refund", "UNKNOWN", { key: "ref_r1" })] })
    const payments = [
      ["no_note", row(sessionData())],
      ["capture_not_final", row(sessionData(), noted({ capture: { final: false } }))],
      ["refund_not_shown", row(unknownRefund, noted({ capture: { final: true } }))],
      ["refund_shown", row(unknownRefund, noted({ capture: { final: true }, refund: { references: ["ref_r1"] } }))],
      ["refund_no_references", row(unknownRefund, noted({ capture: { final: true }, refund: {} }))],
      ["final_nothing_unknown", row(sessionData(), noted({ capture: { final: true } }))],
      ["final_unreadable", row({ state: "captured" }, noted({ capture: { final: true } }))],
    ].map(([id, payment]) => ({ ...(payment as Row), id }))
    listPayments.mockResolvedValue(payments)
    expect((await listCapturesToFollow(container, CARD, NOW, 100)).map((p) => p.id)).toEqual([
      "no_note",
      "capture_not_final",
      "refund_not_shown",
      "refund_no_references",
    ])
  })
})

describe("a capture's record at the service (followPayment)", () => {
  const record = (changes: Record<string, unknown> = {}) => ({
    step: "CAPTURE",
    originalTransactionId: "tx_auth",
    captureStatus: "PENDING",
    ...changes,
  })

  it.each([
    ["PENDING", { status: "capture_pending", final: false, attention: false, message: "capture tx_capture is pending at the processor" }],
    ["TRANSMITTED", { status: "capture_transmitted", final: true, attention: false, message: "capture tx_capture was transmitted to the processor" }],
    [
      "TRXN_ERROR",
      {
        status: "capture_failed",
        final: true,
        attention: true,
        message: "capture tx_capture ended TRXN_ERROR at the processor: the money was not taken; contact the card service or the customer",
      },
    ],
    [
      "VOIDED",
      {
        status: "changed_outside_medusa",
        final: true,
        attention: true,
        message: "capture tx_capture was voided at the card service, not from Medusa: the order shows it captured but no money will be taken",
      },
    ],
  ])("notes a capture %s for the store owner", async (captureStatus, verdict) => {
    retrieve.mockResolvedValue(record({ captureStatus }))
    const payment = row(sessionData(), { other: "kept" })
    const actions = await follow(payment)
    expect(refreshSettings).toHaveBeenCalled()
    expect(retrieve).toHaveBeenCalledWith("tx_capture")
    const note: PaymentNote = { transaction_id: "tx_capture", at: AT, capture_status: captureStatus as never, ...(verdict as Pick<PaymentNote, "status" | "final" | "attention" | "message">) }
    expect(actions).toEqual([{ payment_id: "pay_1", status: verdict.status, message: verdict.message }])
    expect(written()).toEqual([{ id: "pay_1", metadata: { other: "kept", card_service: { capture: note } } }])
  })

  it("says nothing of a voided capture while Medusa books a refund its log does not hold yet (under way, or its instance died in it)", async () => {
    retrieve.mockResolvedValue(record({ captureStatus: "VOIDED" }))
    listRefunds.mockResolvedValue([{ id: "ref_unlogged" }])
    expect(await follow(row(sessionData()))).toEqual([])
    expect(listRefunds).toHaveBeenCalledWith({ payment_id: "pay_1" }, { select: ["id"] })
    expect(written()).toEqual([])
  })

  it("notes a capture Medusa voided as voided, as asked", async () => {
    retrieve.mockResolvedValue(record({ captureStatus: "VOIDED" }))
    const data = sessionData({
      transactions: [entry("authorization", "ACCEPT"), entry("capture", "ACCEPT", { transaction_id: "tx_capture", voided: true })],
    })
    expect(await follow(row(data))).toEqual([
      { payment_id: "pay_1", status: "capture_voided", message: "capture tx_capture is voided, as Medusa asked" },
    ])
    expect(written()[0].metadata.card_service.capture).toMatchObject({ final: true, attention: false, capture_status: "VOIDED" })
  })

  it("follows the payment as it is under the payment's lock, not as it was listed: the owner's void booked in between is no change outside Medusa", async () => {
    retrieve.mockResolvedValue(record({ captureStatus: "VOIDED" }))
    const listed = row(sessionData())
    const voidBooked = row(
      sessionData({
        transactions: [entry("authorization", "ACCEPT"), entry("capture", "ACCEPT", { transaction_id: "tx_capture", voided: true }), entry("void", "ACCEPT")],
      }),
      { other: "written by the route" }
    )
    expect(await follow(listed, voidBooked)).toEqual([
      { payment_id: "pay_1", status: "capture_voided", message: "capture tx_capture is voided, as Medusa asked" },
    ])
    expect(execute).toHaveBeenCalledWith("card-service:payment:pay_1", expect.any(Function), expect.anything())
    // Read again inside the lock, and its metadata kept.
    expect(execute.mock.invocationCallOrder[0]).toBeLessThan(listPayments.mock.invocationCallOrder[0])
    expect(written()[0].metadata.other).toBe("written by the route")
  })

  it("does not take a void of a refund for a void of the capture", async () => {
    retrieve.mockResolvedValue(record({ captureStatus: "VOIDED" }))
    const data = sessionData({
      transactions: [entry("capture", "ACCEPT", { transaction_id: "tx_capture" }), entry("refund", "ACCEPT", { voided: true })],
    })
    expect((await follow(row(data)))[0].status).toBe("changed_outside_medusa")
  })

  it("reads a record with no capture status as pending", async () => {
    retrieve.mockResolvedValue(record({ captureStatus: undefined }))
    expect((await follow(row(sessionData())))[0].status).toBe("capture_pending")
    expect(written()[0].metadata.card_service.capture.capture_status).toBe("PENDING")
  })

  it.each([
    ["of another step", { step: "REFUND" }],
    ["of another approval", { originalTransactionId: "tx_other" }],
  ])("flags a record %s as not this payment's capture", async (_name, changes) => {
    retrieve.mockResolvedValue(record({ ...changes, captureStatus: "TRANSMITTED" }))
    expect(await follow(row(sessionData()))).toEqual([
      {
        payment_id: "pay_1",
        status: "changed_outside_medusa",
        message: "the service's record tx_capture is not this payment's capture; check it at the card service",
      },
    ])
    expect(written()[0].metadata.card_service.capture).toEqual({
      transaction_id: "tx_capture",
      at: AT,
      capture_status: "TRANSMITTED",
      status: "changed_outside_medusa",
      final: true,
      attention: true,
      message: "the service's record tx_capture is not this payment's capture; check it at the card service",
    })
  })

  it("notes a foreign record with no status as pending", async () => {
    retrieve.mockResolvedValue(record({ step: "REFUND", captureStatus: undefined }))
    await follow(row(sessionData()))
    expect(written()[0].metadata.card_service.capture.capture_status).toBe("PENDING")
  })

  it("writes nothing and says nothing when the record says what the note already says", async () => {
    retrieve.mockResolvedValue(record())
    const previous = { status: "capture_pending", transaction_id: "tx_capture", final: false }
    expect(await follow(row(sessionData(), noted({ capture: previous })))).toStrictEqual([])
    expect(updatePayment).not.toHaveBeenCalled()
  })

  it("writes a new note when the status or the capture changed", async () => {
    retrieve.mockResolvedValue(record({ captureStatus: "TRANSMITTED" }))
    const previous = { status: "capture_pending", transaction_id: "tx_capture", final: false }
    expect(await follow(row(sessionData(), noted({ capture: previous, refund: { status: "refund_unknown" } })))).toHaveLength(1)
    expect(written()[0].metadata.card_service).toEqual({
      capture: expect.objectContaining({ status: "capture_transmitted" }),
      refund: { status: "refund_unknown" },
    })

    updatePayment.mockClear()
    retrieve.mockResolvedValue(record())
    const otherCapture = { status: "capture_pending", transaction_id: "tx_older", final: false }
    expect(await follow(row(sessionData(), noted({ capture: otherCapture })))).toHaveLength(1)
  })

  it.each([
    ["a final note", sessionData(), noted({ capture: { final: true, status: "capture_transmitted" } })],
    ["no capture id", sessionData({ capture: { transaction_id: null, amount: 30 } }), null],
    ["no capture", sessionData({ capture: null }), null],
  ])("does not ask the service about a capture with %s", async (_name, data, metadata) => {
    expect(await follow(row(data, metadata))).toStrictEqual([])
    expect(retrieve).not.toHaveBeenCalled()
    expect(updatePayment).not.toHaveBeenCalled()
  })

  it("passes over a payment whose data is not the card service's", async () => {
    expect(await follow(row({ state: "captured" }))).toStrictEqual([])
    expect(cardServiceProvider).not.toHaveBeenCalled()
  })
})

describe("a capture whose answer was lost (followPayment)", () => {
  const lost = (key?: string) =>
    sessionData({
      capture: null,
      transactions: [entry("authorization", "ACCEPT", { transaction_id: "tx_auth" }), entry("capture", "UNKNOWN", key ? { key } : {})],
    })

  it("asks once more; no answer again is noted and asked again next pass", async () => {
    resolveLostCapture.mockResolvedValue({ outcome: "unknown" })
    const data = lost("ref_cap")
    expect(await follow(row(data))).toEqual([
      {
        payment_id: "pay_1",
        status: "capture_unconfirmed",
        message: "the capture (reference ref_cap) had no answer, and asking again had none either; the next sweep asks again",
      },
    ])
    expect(resolveLostCapture).toHaveBeenCalledWith(data)
    expect(retrieve).not.toHaveBeenCalled()
    expect(written()[0].metadata.card_service.capture).toEqual({
      transaction_id: "ref_cap",
      at: AT,
      status: "capture_unconfirmed",
      final: false,
      attention: false,
      message: "the capture (reference ref_cap) had no answer, and asking again had none either; the next sweep asks again",
    })
  })

  it("says nothing again when asking once more still has no answer", async () => {
    resolveLostCapture.mockResolvedValue({ outcome: "unknown" })
    const previous = { status: "capture_unconfirmed", transaction_id: "ref_cap", final: false }
    expect(await follow(row(lost("ref_cap"), noted({ capture: previous })))).toStrictEqual([])
    expect(updatePayment).not.toHaveBeenCalled()
  })

  it("names the session as the reference when the capture had no key", async () => {
    resolveLostCapture.mockResolvedValue({ outcome: "unknown" })
    await follow(row(lost()))
    expect(written()[0].metadata.card_service.capture.transaction_id).toBe("payses_1")
  })

  it("tells the store owner no money was taken when the service now refuses the capture", async () => {
    resolveLostCapture.mockResolvedValue({ outcome: "refused", message: "not allowed (102)" })
    const [action] = await follow(row(lost("ref_cap")))
    expect(action.status).toBe("capture_failed")
    expect(action.message).toBe(
      "the capture (reference ref_cap) had no answer, and the service now refuses it (not allowed (102)): the order shows it captured but no money was taken"
    )
    expect(written()[0].metadata.card_service.capture).toMatchObject({ final: true, attention: true })
  })

  it("writes the payment's data when the service captured now, and follows the new capture from here", async () => {
    const captured = sessionData({ capture: { transaction_id: "tx_new", amount: 30 } })
    resolveLostCapture.mockResolvedValue({ outcome: "captured", data: captured, captureId: "tx_new" })
    const [action] = await follow(row(lost("ref_cap"), { other: "kept" }))
    expect(action).toEqual({
      payment_id: "pay_1",
      status: "capture_confirmed",
      message: "the capture's answer was lost and the service had not captured: captured now as tx_new, followed from here",
    })
    expect(written()).toEqual([
      { id: "pay_1", data: captured },
      {
        id: "pay_1",
        metadata: {
          other: "kept",
          card_service: {
            capture: {
              transaction_id: "tx_new",
              at: AT,
              capture_status: "PENDING",
              final: false,
              status: "capture_confirmed",
              attention: false,
              message: action.message,
            },
          },
        },
      },
    ])
  })

  it("ends the following when the lost capture acted (242) and its id is unknown", async () => {
    resolveLostCapture.mockResolvedValue({ outcome: "captured", data: lost("ref_cap"), captureId: null })
    const [action] = await follow(row(lost("ref_cap")))
    expect(action.message).toBe(
      "the capture's answer was lost; the service confirms the approval is captured (242). Its capture id never arrived, so its settlement cannot be followed: look reference ref_cap up at the card service"
    )
    expect(written()[1].metadata.card_service.capture).toEqual({
      transaction_id: "ref_cap",
      at: AT,
      final: true,
      status: "capture_confirmed",
      attention: false,
      message: action.message,
    })
  })

  it("looks only at the last capture of the log", async () => {
    retrieve.mockResolvedValue({ step: "CAPTURE", originalTransactionId: "tx_auth", captureStatus: "PENDING" })
    const data = sessionData({
      transactions: [entry("capture", "UNKNOWN", { key: "ref_old" }), entry("capture", "ACCEPT", { transaction_id: "tx_capture" })],
    })
    await follow(row(data))
    expect(resolveLostCapture).not.toHaveBeenCalled()
    expect(retrieve).toHaveBeenCalledWith("tx_capture")
  })
})

describe("refunds of unknown outcome (followPayment)", () => {
  const withRefunds = (...keys: string[]) =>
    sessionData({
      transactions: [
        entry("capture", "ACCEPT", { transaction_id: "tx_capture" }),
        entry("refund", "ACCEPT", { key: "ref_ok" }),
        ...keys.map((key) => entry("refund", "UNKNOWN", { key })),
      ],
    })
  const finalCapture = { capture: { final: true, status: "capture_transmitted", transaction_id: "tx_capture" } }

  it("shows them to the store owner and never sends them again", async () => {
    const [action] = await follow(row(withRefunds("ref_r1", "ref_r2"), noted(finalCapture)))
    const message =
      "2 refund(s) had no answer and were not sent again (a repeat could refund twice): look the reference(s) up at the card service; Medusa counts them as refunded"
    expect(action).toEqual({ payment_id: "pay_1", status: "refund_unknown", message })
    expect(written()).toEqual([
      {
        id: "pay_1",
        metadata: {
          card_service: {
            ...finalCapture,
            refund: {
              status: "refund_unknown",
              final: true,
              attention: true,
              references: ["ref_r1", "ref_r2"],
              transaction_id: "ref_r2",
              message,
              at: AT,
            },
          },
        },
      },
    ])
  })

  it("says nothing again of refunds already shown, and shows a new one", async () => {
    const shown = { ...finalCapture, refund: { status: "refund_unknown", references: ["ref_r1"], transaction_id: "ref_r1" } }
    expect(await follow(row(withRefunds("ref_r1"), noted(shown)))).toStrictEqual([])
    expect(updatePayment).not.toHaveBeenCalled()
    const [action] = await follow(row(withRefunds("ref_r1", "ref_r2"), noted(shown)))
    expect(action.status).toBe("refund_unknown")
    expect(written()[0].metadata.card_service.refund.references).toEqual(["ref_r1", "ref_r2"])
  })

  it("shows them even when an earlier note names none", async () => {
    const shown = { ...finalCapture, refund: { status: "refund_unknown", transaction_id: "ref_r1" } }
    expect(await follow(row(withRefunds("ref_r1"), noted(shown)))).toStrictEqual([])
    const noReferences = { ...finalCapture, refund: { status: "refund_unknown", transaction_id: "ref_other" } }
    expect(await follow(row(withRefunds("ref_r1"), noted(noReferences)))).toHaveLength(1)
  })

  it("keeps the capture note written in the same pass", async () => {
    resolveLostCapture.mockResolvedValue({ outcome: "unknown" })
    const data = sessionData({
      capture: null,
      transactions: [entry("capture", "UNKNOWN", { key: "ref_cap" }), entry("refund", "UNKNOWN", { key: "ref_r1" })],
    })
    const actions = await follow(row(data))
    expect(actions.map((a) => a.status)).toEqual(["capture_unconfirmed", "refund_unknown"])
    expect(Object.keys(written()[1].metadata.card_service)).toEqual(["capture", "refund"])
  })
})

describe("a refund whose instance died before Medusa wrote the answer (settleUnloggedFollowOns)", () => {
  it("settles it under the payment's lock, on the payment as it is now: what the owner's void booked after the listing is kept", async () => {
    const refundRow = { id: "ref_lost", amount: 10, raw_amount: null, payment_id: "pay_1", created_at: AT }
    const listed = { ...row(sessionData()), created_at: AT, captured_at: AT, amount: 30, raw_amount: null }
    // Between the listing and the settling, the owner's void route booked a void (under the payment's lock).
    const voided = sessionData({
      transactions: [
        entry("authorization", "ACCEPT", { transaction_id: "tx_auth" }),
        entry("capture", "ACCEPT", { transaction_id: "tx_capture", voided: true }),
        entry("void", "ACCEPT", { transaction_id: "tx_void" }),
      ],
    })
    stored = { ...listed, data: voided as never }
    const settleUnloggedFollowOn = jest.fn(async (data: CardServiceSessionData) => ({
      ...data,
      transactions: [...data.transactions, entry("refund", "UNKNOWN", { key: "ref_lost" })],
    }))
    jest.mocked(cardServiceProvider).mockReturnValue({ settleUnloggedFollowOn } as never)

    await settleUnloggedFollowOns(container, { payment: listed as never, captures: [], refunds: [refundRow as never] }, NOW)

    expect(execute).toHaveBeenCalledWith("card-service:payment:pay_1", expect.any(Function), expect.anything())
    expect(settleUnloggedFollowOn).toHaveBeenCalledWith(expect.objectContaining({ transactions: voided.transactions }), "refund", "ref_lost", 10)
    const data = written().find((update) => update.data)?.data
    expect(data.transactions.map((t: TransactionLogEntry) => t.operation)).toEqual(["authorization", "capture", "void", "refund"])
  })

  it("leaves a row the log holds by now (booked after the listing) alone", async () => {
    const listed = { ...row(sessionData()), created_at: AT, captured_at: AT, amount: 30, raw_amount: null }
    stored = { ...listed, data: sessionData({ transactions: [...sessionData().transactions, entry("refund", "ACCEPT", { key: "ref_late" })] }) as never }
    const settleUnloggedFollowOn = jest.fn()
    jest.mocked(cardServiceProvider).mockReturnValue({ settleUnloggedFollowOn } as never)
    const refundRow = { id: "ref_late", amount: 10, raw_amount: null, payment_id: "pay_1", created_at: AT }

    expect(await settleUnloggedFollowOns(container, { payment: listed as never, captures: [], refunds: [refundRow as never] }, NOW)).toEqual([])
    expect(settleUnloggedFollowOn).not.toHaveBeenCalled()
    expect(written()).toEqual([])
  })
})
