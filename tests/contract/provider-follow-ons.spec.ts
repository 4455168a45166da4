import { MedusaError } from "@medusajs/framework/utils"
import type CardServiceProviderService from "../../src/providers/card-service/service"
import { SERVICE_FAILURE_PAUSE_MS } from "../../src/providers/card-service/follow-on-request"
import type { CardServiceSessionData } from "../../src/providers/card-service/session-data"
import {
  authorize,
  CARDS,
  errorOf,
  followOns,
  paidSession,
  providerOnSandbox,
  startSession,
  type Card,
  type ProviderEnv,
} from "../helpers/provider-sandbox"
import { sessionLogTag } from "../../src/lib/log-redaction"

jest.setTimeout(30_000)

let env: ProviderEnv
let provider: CardServiceProviderService

beforeAll(async () => {
  env = await providerOnSandbox()
  provider = env.provider()
})

afterEach(() => {
  env.sandbox.clearFaults()
})

afterAll(async () => {
  await env.close()
})

type Data = CardServiceSessionData

/** An authorized payment, as Medusa stores it after cart completion. */
async function authorizedPayment(card: Card = CARDS.approved) {
  const { session, transactionId } = await paidSession(env, provider, card)
  const { data } = await authorize(provider, session)
  return { data, transactionId }
}

const capture = async (data: Data, key = "capt_1") =>
  (
    await provider.capturePayment({
      data,
      context: { idempotency_key: key },
    } as any)
  ).data as unknown as Data

const refund = async (data: Data, amount: unknown, key: string) =>
  (
    await provider.refundPayment({
      data,
      amount,
      context: { idempotency_key: key },
    } as any)
  ).data as unknown as Data

const cancel = async (data: unknown) =>
  (
    await provider.cancelPayment({
      data,
      context: { idempotency_key: "pay_1" },
    } as any)
  ).data as unknown as Data

const successful = (step: string, original: string) =>
  followOns(env.sandbox, step, original).filter(
    (r) => r.status === "successful"
  )

describe("capturePayment", () => {
  it("captures the authorized amount once", async () => {
    const { data, transactionId } = await authorizedPayment()
    const captured = await capture(data)

    const records = successful("CAPTURE", transactionId)
    expect(records).toEqual([
      expect.objectContaining({ amount: 30, captureStatus: "PENDING" }),
    ])
    expect(captured).toMatchObject({
      state: "captured",
      capture: { transaction_id: records[0].transactionId, amount: 30 },
    })
    expect(captured.transactions.map((t) => t.operation)).toEqual([
      "authorization",
      "capture",
    ])
    expect(captured.transactions[1]).toMatchObject({
      decision: "ACCEPT",
      reason_code: "100",
      key: "capt_1",
    })
  })

  it("takes a repeat of the same capture (same key) as done, sending nothing", async () => {
    const { data, transactionId } = await authorizedPayment()
    const captured = await capture(data, "capt_1")
    const before = env.sandbox.transactions().length
    expect(await capture(captured, "capt_1")).toEqual(captured)
    expect(env.sandbox.transactions().length).toBe(before)
    expect(successful("CAPTURE", transactionId)).toHaveLength(1)
  })

  it("refuses a second capture (another key) as not allowed, saying one capture per approval, sending nothing", async () => {
    const { data, transactionId } = await authorizedPayment()
    const captured = await capture(data, "capt_1")
    const before = env.sandbox.transactions().length

    const error = await errorOf(capture(captured, "capt_2"))

    expect(error).toBeInstanceOf(MedusaError)
    expect(error.type).toBe(MedusaError.Types.NOT_ALLOWED)
    expect(error.message).toContain("one capture per approval")
    expect(error.message).toContain("already captured for 30.00 EUR")
    expect(env.sandbox.transactions().length).toBe(before)
    expect(successful("CAPTURE", transactionId)).toHaveLength(1)
  })

  it('refuses a capture the service answers "already captured" (242) for, when the log holds no capture: Medusa books nothing', async () => {
    const { data, transactionId } = await authorizedPayment()
    await capture(data, "capt_1")
    // Stale data: the capture made under capt_1 is not in it (its answer
    // never reached Medusa's record), so the 242 is not this capture's.
    const error = await errorOf(capture(data, "capt_2"))

    expect(error.type).toBe(MedusaError.Types.NOT_ALLOWED)
    expect(error.message).toContain("already used by a capture")
    expect(error.message).toContain(data.transaction_id as string)
    expect(successful("CAPTURE", transactionId)).toHaveLength(1)
    expect(
      followOns(env.sandbox, "CAPTURE", transactionId).map((r) => r.reasonCode)
    ).toEqual(["100", "242"])
  })

  it("reconciles a capture whose answer was lost into exactly one capture", async () => {
    const { data, transactionId } = await authorizedPayment()
    // Processed at the service, then the connection is destroyed: indeterminate.
    env.sandbox.injectFault({ type: "destroy", path: "/capture" })

    const captured = await capture(data)

    expect(captured.state).toBe("captured")
    expect(successful("CAPTURE", transactionId)).toHaveLength(1)
  })

  it("books a capture with no answer twice as unknown, which resolveLostCapture settles from the 242 refusal", async () => {
    const { data, transactionId } = await authorizedPayment()
    env.sandbox.injectFault({ type: "destroy", count: 2, path: "/capture" })

    const booked = await capture(data)

    expect(booked.state).toBe("captured")
    expect(booked.capture).toEqual({
      transaction_id: null,
      amount: data.amount,
    })
    expect(booked.transactions.at(-1)).toMatchObject({
      operation: "capture",
      decision: "UNKNOWN",
    })
    const resolved = await provider.resolveLostCapture(booked)
    expect(resolved).toMatchObject({ outcome: "captured", captureId: null })
    expect(successful("CAPTURE", transactionId)).toHaveLength(1)
    expect(
      followOns(env.sandbox, "CAPTURE", transactionId).map((r) => r.reasonCode)
    ).toEqual(["100", "242", "242"])
  })

  it("resolveLostCapture captures when the lost capture never acted, and reports a refusal", async () => {
    const first = await authorizedPayment()
    const unknown = (d: any) => ({
      ...d,
      state: "captured",
      capture: { transaction_id: null, amount: d.amount },
      transactions: [
        ...d.transactions,
        {
          transaction_id: null,
          operation: "capture",
          decision: "UNKNOWN",
          reason_code: null,
          amount: d.amount,
          at: new Date().toISOString(),
          key: "cap_1",
        },
      ],
    })
    const captured = await provider.resolveLostCapture(unknown(first.data))
    expect(captured).toMatchObject({ outcome: "captured" })
    const captureId = (captured as any).captureId
    expect(captureId).toEqual(
      successful("CAPTURE", first.transactionId)[0].transactionId
    )

    const second = await authorizedPayment()
    await provider.cancelPayment({ data: second.data } as any)
    expect(
      await provider.resolveLostCapture(unknown(second.data))
    ).toMatchObject({
      outcome: "refused",
      message: expect.stringContaining("237"),
    })
  })

  it("sends a capture once more, after a pause, when the service answered it with a failure of its own (503, reason 150): one capture", async () => {
    const { data, transactionId } = await authorizedPayment()
    env.sandbox.injectFault({ type: "status", status: 503, path: "/capture" })
    const sent = () =>
      env.sandbox
        .requests()
        .filter((r) => r.method === "POST" && r.path === "/capture")
    const before = sent().length

    const captured = await capture(data)

    expect(captured.state).toBe("captured")
    expect(captured.capture?.transaction_id).toEqual(expect.any(String))
    expect(successful("CAPTURE", transactionId)).toHaveLength(1)
    const [failed, again] = sent().slice(before)
    expect([failed.status, again.status, sent().length - before]).toEqual([
      503, 200, 2,
    ])
    expect(again.startedAt - failed.startedAt).toBeGreaterThanOrEqual(
      SERVICE_FAILURE_PAUSE_MS - 5
    )
  })

  it("reports a capture the service failed twice (503, reason 150), and a later capture then captures once", async () => {
    const { data, transactionId } = await authorizedPayment()
    env.sandbox.injectFault({
      type: "status",
      status: 503,
      count: 2,
      path: "/capture",
    })

    const error = await errorOf(capture(data))
    expect(error).toBeInstanceOf(MedusaError)
    expect(error.type).toBe(MedusaError.Types.UNEXPECTED_STATE)
    expect(successful("CAPTURE", transactionId)).toHaveLength(0)

    expect((await capture(data)).state).toBe("captured")
    expect(successful("CAPTURE", transactionId)).toHaveLength(1)
  })

  it.each([
    ["a pending session", async () => startSession(provider)],
    [
      "a declined payment",
      async () => (await authorizedPayment(CARDS.declined)).data,
    ],
    [
      "a canceled payment",
      async () => cancel((await authorizedPayment()).data),
    ],
  ])("refuses %s as not allowed, sending nothing", async (_, make) => {
    const data = (await make()) as Data
    const before = env.sandbox.transactions().length
    const error = await errorOf(capture(data))
    expect(error.type).toBe(MedusaError.Types.NOT_ALLOWED)
    expect(env.sandbox.transactions().length).toBe(before)
  })
})

describe("capturePayment takes exactly what Medusa books", () => {
  /** Medusa's capture records, as the payment module's capture service reads them. */
  const medusaCaptures = new Map<string, { amount: string; session: string }>()
  const booking = () =>
    provider_booked ??= env.provider(
      {},
      {
        captureService: {
          retrieve: async (id: string) => {
            const record = medusaCaptures.get(id)
            if (!record) throw new Error(`Capture with id: ${id} was not found`)
            return {
              id,
              raw_amount: { value: record.amount, precision: 20 },
              payment: { payment_session_id: record.session },
            }
          },
        },
      }
    )
  let provider_booked: CardServiceProviderService | undefined
  const book = (key: string, amount: string, data: Data) =>
    medusaCaptures.set(key, { amount, session: data.session_id })
  const captureBooked = async (data: Data, key: string) =>
    (
      await booking().capturePayment({
        data,
        context: { idempotency_key: key },
      } as any)
    ).data as unknown as Data

  it("captures the part Medusa books, not the whole approval", async () => {
    const { data, transactionId } = await authorizedPayment()
    book("capt_half", "15", data)

    const captured = await captureBooked(data, "capt_half")

    expect(successful("CAPTURE", transactionId).map((r) => r.amount)).toEqual([15])
    expect(captured.capture).toMatchObject({ amount: 15 })
    expect(captured.transactions.at(-1)).toMatchObject({
      operation: "capture",
      amount: 15,
      key: "capt_half",
    })
  })

  it("refuses the rest after a part, naming what was taken and what cannot be, and sends nothing", async () => {
    const { data, transactionId } = await authorizedPayment()
    book("capt_a", "12.5", data)
    const captured = await captureBooked(data, "capt_a")
    book("capt_b", "17.5", data)
    const before = env.sandbox.transactions().length

    const error = await errorOf(captureBooked(captured, "capt_b"))

    expect(error.type).toBe(MedusaError.Types.NOT_ALLOWED)
    expect(error.message).toContain("cannot capture 17.50 EUR")
    expect(error.message).toContain("already captured for 12.50 EUR")
    expect(error.message).toContain("The other 17.50 EUR cannot be captured")
    expect(env.sandbox.transactions().length).toBe(before)
    expect(successful("CAPTURE", transactionId).map((r) => r.amount)).toEqual([12.5])
  })

  it("refuses a capture Medusa has no record of, or one of another payment, sending nothing", async () => {
    const { data } = await authorizedPayment()
    medusaCaptures.set("capt_other", { amount: "30", session: "payses_someone_else" })
    const before = env.sandbox.transactions().length

    const missing = await errorOf(captureBooked(data, "capt_missing"))
    const foreign = await errorOf(captureBooked(data, "capt_other"))

    expect(missing.type).toBe(MedusaError.Types.NOT_ALLOWED)
    expect(foreign.type).toBe(MedusaError.Types.NOT_ALLOWED)
    expect(env.sandbox.transactions().length).toBe(before)
  })

  it("refuses more than the approval", async () => {
    const { data } = await authorizedPayment()
    book("capt_more", "30.01", data)
    const error = await errorOf(captureBooked(data, "capt_more"))
    expect(error.message).toContain("the approval is for 30.00 EUR")
  })

  it("sends no new capture while one of unknown outcome is being settled", async () => {
    const { data, transactionId } = await authorizedPayment()
    book("capt_lost", "10", data)
    env.sandbox.injectFault({ type: "destroy", count: 2, path: "/capture" })
    const booked = await captureBooked(data, "capt_lost")
    expect(booked.transactions.at(-1)).toMatchObject({ decision: "UNKNOWN", amount: 10 })
    book("capt_new", "20", data)
    const before = env.sandbox.transactions().length

    const error = await errorOf(captureBooked(booked, "capt_new"))

    expect(error.type).toBe(MedusaError.Types.NOT_ALLOWED)
    expect(error.message).toContain("has had no answer from the service")
    expect(env.sandbox.transactions().length).toBe(before)
    // The sweep's settling sends the lost one again with its own amount: 242.
    const resolved = await booking().resolveLostCapture(booked)
    expect(resolved).toMatchObject({ outcome: "captured", captureId: null })
    expect(successful("CAPTURE", transactionId).map((r) => r.amount)).toEqual([10])
  })

  it("refuses a repeat of a capture's key that Medusa now books for another amount", async () => {
    const { data } = await authorizedPayment()
    book("capt_same", "10", data)
    const captured = await captureBooked(data, "capt_same")
    book("capt_same", "11", data)
    const before = env.sandbox.transactions().length
    const error = await errorOf(captureBooked(captured, "capt_same"))
    expect(error.message).toContain("already captured for 10.00 EUR")
    expect(env.sandbox.transactions().length).toBe(before)
  })

  it("refuses a capture of nothing", async () => {
    const { data } = await authorizedPayment()
    book("capt_zero", "0", data)
    const error = await errorOf(captureBooked(data, "capt_zero"))
    expect(error.message).toContain("cannot capture 0.00 EUR")
  })

  it("takes Medusa booking the capture authorizePayment made (autoCapture) as done, for its amount only", async () => {
    const autoCapturing = env.provider({ autoCapture: true }, { captureService: (booking() as any).medusaCaptures_.service_ })
    const { session, transactionId } = await paidSession(env, autoCapturing)
    const { data } = await authorize(autoCapturing, session)
    expect(data.capture).toMatchObject({ amount: 30 })
    const before = env.sandbox.transactions().length
    book("capt_whole", "30", data)
    book("capt_part", "20", data)
    const capture = (key: string) =>
      autoCapturing.capturePayment({ data, context: { idempotency_key: key } } as any)

    expect((await capture("capt_whole")).data).toEqual(data)
    expect((await errorOf(capture("capt_part"))).message).toContain("one capture per approval")
    expect(env.sandbox.transactions().length).toBe(before)
    expect(successful("CAPTURE", transactionId)).toHaveLength(1)
  })

  it("captures a part in JPY and KWD to the currency's digits", async () => {
    const jpy = await paidSession(env, provider, CARDS.approved, { amount: 3000, currency_code: "jpy" })
    const kwd = await paidSession(env, provider, CARDS.approved, { amount: 12.345, currency_code: "kwd" })
    const jpyData = (await authorize(provider, jpy.session)).data
    const kwdData = (await authorize(provider, kwd.session)).data
    book("capt_jpy", "1234", jpyData)
    book("capt_kwd", "6.172", kwdData)

    expect((await captureBooked(jpyData, "capt_jpy")).capture?.amount).toBe(1234)
    expect((await captureBooked(kwdData, "capt_kwd")).capture?.amount).toBe(6.172)
    expect(successful("CAPTURE", jpy.transactionId).map((r) => r.amount)).toEqual([1234])
    expect(successful("CAPTURE", kwd.transactionId).map((r) => r.amount)).toEqual([6.172])
  })
})

describe("refundPayment", () => {
  const capturedPayment = async () => {
    const { data, transactionId } = await authorizedPayment()
    const captured = await capture(data)
    return {
      data: captured,
      transactionId,
      captureId: captured.capture!.transaction_id!,
    }
  }

  it("refunds in parts, and refuses more than is left as not allowed", async () => {
    const { data, captureId } = await capturedPayment()

    const first = await refund(data, 10, "ref_1")
    const second = await refund(
      first,
      { value: "12.5", precision: 20 },
      "ref_2"
    )
    const third = await errorOf(refund(second, 10, "ref_3"))

    expect(second.refunded_amount).toBe(22.5)
    expect(second.transactions.filter((t) => t.operation === "refund")).toEqual(
      [
        expect.objectContaining({
          amount: 10,
          key: "ref_1",
          decision: "ACCEPT",
        }),
        expect.objectContaining({
          amount: 12.5,
          key: "ref_2",
          decision: "ACCEPT",
        }),
      ]
    )
    expect(third).toBeInstanceOf(MedusaError)
    expect(third.type).toBe(MedusaError.Types.NOT_ALLOWED)
    // Refused before anything is sent: no third REFUND record at all.
    expect(third.message).toContain("at most 7.50 EUR can be refunded")
    expect(followOns(env.sandbox, "REFUND", captureId)).toHaveLength(2)
    expect(successful("REFUND", captureId).map((r) => r.amount)).toEqual([
      10, 12.5,
    ])
  })

  it("refunds once for the same idempotency key given twice", async () => {
    const { data, captureId } = await capturedPayment()
    const first = await refund(data, 10, "ref_same")
    const again = await refund(first, 10, "ref_same")
    expect(again).toEqual(first)
    expect(successful("REFUND", captureId)).toHaveLength(1)
  })

  it("voids a capture still PENDING when all of it is refunded", async () => {
    const { data, captureId } = await capturedPayment()
    const refunded = await refund(data, 30, "ref_all")

    expect(env.sandbox.transaction(captureId)?.captureStatus).toBe("VOIDED")
    expect(followOns(env.sandbox, "REFUND", captureId)).toHaveLength(0)
    expect(refunded.refunded_amount).toBe(30)
    expect(
      refunded.transactions.map((t) => [t.operation, t.voided ?? false])
    ).toEqual([
      ["authorization", false],
      ["capture", true],
      ["void", false],
      // Section 3: a voided capture leaves the authorization standing; it is released.
      ["reversal", false],
    ])
    expect(successful("REVERSAL", data.transaction_id as string)).toHaveLength(
      1
    )
  })

  it("takes a repeat of the whole refund that became a void as done", async () => {
    const { data, captureId } = await capturedPayment()
    const refunded = await refund(data, 30, "ref_all")
    const again = await refund(refunded, 30, "ref_all")
    expect(again).toEqual(refunded)
    expect(env.sandbox.transaction(captureId)?.captureStatus).toBe("VOIDED")
  })

  it("refunds for real once the capture is transmitted", async () => {
    const { data, captureId } = await capturedPayment()
    env.sandbox.advanceClock(env.sandbox.settlementMs + 1_000)

    const refunded = await refund(data, 30, "ref_all")

    expect(env.sandbox.transaction(captureId)?.captureStatus).toBe(
      "TRANSMITTED"
    )
    expect(successful("REFUND", captureId)).toEqual([
      expect.objectContaining({ amount: 30 }),
    ])
    expect(refunded.refunded_amount).toBe(30)
    expect(refunded.transactions.at(-1)).toMatchObject({
      operation: "refund",
      amount: 30,
    })
  })

  it("refunds in JPY and KWD without losing digits", async () => {
    for (const [terms, part] of [
      [{ amount: 1000, currency_code: "jpy" }, 333],
      [{ amount: 1.234, currency_code: "kwd" }, 0.617],
    ] as const) {
      const { session } = await paidSession(
        env,
        provider,
        CARDS.approved,
        terms
      )
      const captured = await capture((await authorize(provider, session)).data)
      const refunded = await refund(
        captured,
        part,
        `ref_${terms.currency_code}`
      )
      expect(successful("REFUND", captured.capture!.transaction_id!)).toEqual([
        expect.objectContaining({ amount: part }),
      ])
      expect(refunded.refunded_amount).toBe(part)
    }
  })

  it("fails a refund the service refuses (247, the capture voided behind the data's back) instead of booking it", async () => {
    const { data, captureId } = await capturedPayment()
    await provider.client.void({
      merchantReferenceCode: "voided-elsewhere",
      currency: data.currency,
      amount: "30.00",
      email: "owner@example.com",
      transactionId: captureId,
      type: "CAPTURE",
    })
    const error = await errorOf(refund(data, 10, "ref_after_void"))
    expect(error.type).toBe(MedusaError.Types.NOT_ALLOWED)
    expect(error.message).toContain("247")
  })

  it("refuses to refund an uncaptured payment as not allowed", async () => {
    const { data, transactionId } = await authorizedPayment()
    const error = await errorOf(refund(data, 10, "ref_1"))
    expect(error.type).toBe(MedusaError.Types.NOT_ALLOWED)
    expect(followOns(env.sandbox, "REFUND", transactionId)).toHaveLength(0)
  })

  it("books a refund the service failed (503, reason 150) as unknown instead of failing it, so no retry with a new key refunds twice", async () => {
    const { data, captureId } = await capturedPayment()
    const sent = () => env.sandbox.requests().filter((r) => r.path === "/refund")
    const before = sent().length
    env.sandbox.injectFault({ type: "status", status: 503, path: "/refund" })

    const booked = await refund(data, 10, "ref_failed")

    expect(booked.refunded_amount).toBe(10)
    expect(booked.transactions.at(-1)).toMatchObject({
      operation: "refund",
      decision: "UNKNOWN",
      key: "ref_failed",
      amount: 10,
    })
    // Sent once, not again.
    expect(sent().length - before).toBe(1)
    expect(followOns(env.sandbox, "REFUND", captureId)).toHaveLength(0)
  })

  it("sends no other refund while one has an unknown outcome, saying which and what to do; its own repeat is done", async () => {
    const { data, captureId } = await capturedPayment()
    env.sandbox.injectFault({ type: "destroy", path: "/refund" })
    const booked = await refund(data, 10, "ref_lost")
    expect(successful("REFUND", captureId).map((r) => r.amount)).toEqual([10])

    const retried = await errorOf(refund(booked, 10, "ref_retry"))

    expect(retried.type).toBe(MedusaError.Types.NOT_ALLOWED)
    expect(retried.message).toContain("had no answer from the service")
    expect(retried.message).toContain("nothing is refunded twice")
    expect(await refund(booked, 10, "ref_lost")).toEqual(booked)
    expect(successful("REFUND", captureId).map((r) => r.amount)).toEqual([10])
  })
})

describe("settleUnknownRefund (the owner's answer)", () => {
  const lostRefund = async (fault: "destroy" | "status") => {
    const { data, transactionId } = await authorizedPayment()
    const captured = await capture(data)
    env.sandbox.injectFault(fault === "destroy" ? { type: "destroy", path: "/refund" } : { type: "status", status: 503, path: "/refund" })
    const booked = await refund(captured, 7, "ref_lost")
    return { booked, captureId: captured.capture?.transaction_id as string, transactionId }
  }

  it("keeps a refund the owner found made, sending nothing", async () => {
    const { booked, captureId } = await lostRefund("destroy")
    const before = env.sandbox.transactions().length
    const settled = await provider.settleUnknownRefund(booked, "ref_lost", true)
    expect(settled.transactions.filter((t) => t.operation === "refund")).toEqual([
      expect.objectContaining({ key: "ref_lost", decision: "ACCEPT", transaction_id: null, amount: 7 }),
    ])
    expect(settled.refunded_amount).toBe(7)
    expect(env.sandbox.transactions().length).toBe(before)
    expect(successful("REFUND", captureId).map((r) => r.amount)).toEqual([7])
  })

  it("makes a refund the owner found not made, once, under its reference and amount", async () => {
    const { booked, captureId } = await lostRefund("status")
    expect(successful("REFUND", captureId)).toHaveLength(0)
    const settled = await provider.settleUnknownRefund(booked, "ref_lost", false)
    const [made] = successful("REFUND", captureId)
    expect(made).toMatchObject({ amount: 7 })
    expect(settled.transactions.at(-1)).toMatchObject({
      key: "ref_lost",
      decision: "ACCEPT",
      transaction_id: made.transactionId,
      reason_code: "100",
    })
    expect(settled.transactions.filter((t) => t.operation === "refund")).toHaveLength(1)
    expect(settled.refunded_amount).toBe(7)
    // Settled, it stops nothing: the next refund goes out.
    expect((await refund(settled, 3, "ref_next")).refunded_amount).toBe(10)
  })

  it("refuses a key that names no refund of unknown outcome", async () => {
    const { booked } = await lostRefund("destroy")
    const error = await errorOf(provider.settleUnknownRefund(booked, "ref_other", true))
    expect(error.type).toBe(MedusaError.Types.NOT_ALLOWED)
    const settled = await provider.settleUnknownRefund(booked, "ref_lost", true)
    expect((await errorOf(provider.settleUnknownRefund(settled, "ref_lost", false))).type).toBe(
      MedusaError.Types.NOT_ALLOWED
    )
  })
})

describe("cancelPayment", () => {
  it("reverses the approval", async () => {
    const { data, transactionId } = await authorizedPayment()
    const canceled = await cancel(data)
    expect(canceled.state).toBe("canceled")
    expect(canceled.transactions.at(-1)).toMatchObject({
      operation: "reversal",
      reason_code: "100",
      amount: 30,
    })
    expect(successful("REVERSAL", transactionId)).toEqual([
      expect.objectContaining({ amount: 30 }),
    ])
  })

  it('takes "already reversed" (237) as success', async () => {
    const { data, transactionId } = await authorizedPayment()
    await cancel(data)
    const again = await cancel(data)
    expect(again.state).toBe("canceled")
    expect(again.transactions.at(-1)).toMatchObject({
      operation: "reversal",
      reason_code: "237",
    })
    expect(successful("REVERSAL", transactionId)).toHaveLength(1)
  })

  describe("an approval whose money was taken at the service (issue 30)", () => {
    // Captured there without Medusa (another system, the service's own
    // tools): Medusa still holds the payment as authorized.
    const capturedOutside = async (transactionId: string) =>
      provider.client.capture({
        merchantReferenceCode: "captured-outside-medusa",
        currency: "978",
        amount: 30,
        email: "owner@example.com",
        originalTransactionId: transactionId,
      })

    it.each([
      ["243, already settled or reversed (the capture is pending)", 0, "243"],
      ["238, already settled (the capture was transmitted)", 1, "238"],
    ])("is never booked as canceled on %s", async (_, settlements, code) => {
      const { data, transactionId } = await authorizedPayment()
      await capturedOutside(transactionId)
      const settle = settlements * (env.sandbox.settlementMs + 1)
      env.sandbox.advanceClock(settle)
      try {
        const error = await errorOf(cancel(data))
        // Medusa keeps the payment: its cancel fails with the reason.
        expect(error.type).toBe(MedusaError.Types.NOT_ALLOWED)
        expect(error.message).toContain(transactionId)
        expect(error.message).toContain(code)
        expect(error.message).toMatch(/not released/)
        expect(successful("REVERSAL", transactionId)).toHaveLength(0)
        expect(
          followOns(env.sandbox, "REVERSAL", transactionId).map(
            (r) => r.reasonCode
          )
        ).toEqual([code])
      } finally {
        env.sandbox.advanceClock(-settle)
      }
    })
  })

  it("leaves data with nothing held alone", async () => {
    const pending = await startSession(provider)
    const before = env.sandbox.transactions().length
    expect(await cancel(pending)).toEqual(pending)
    expect(await cancel({})).toEqual({})
    expect(env.sandbox.transactions().length).toBe(before)
  })
})

describe("deletePayment", () => {
  const remove = async (data: unknown) =>
    (await provider.deletePayment({ data } as any)).data

  it("reverses the approval of a paid session (the cart changed)", async () => {
    const { session, transactionId } = await paidSession(env, provider)
    await remove(session)
    expect(successful("REVERSAL", transactionId)).toEqual([
      expect.objectContaining({ amount: 30 }),
    ])
  })

  it.each([
    ["no data", async () => ({})],
    [
      "another provider's data",
      async () => ({ id: "pi_123", status: "requires_payment_method" }),
    ],
    ["an unpaid session", async () => startSession(provider)],
    [
      "a declined payment",
      async () => (await paidSession(env, provider, CARDS.declined)).session,
    ],
    [
      "a captured payment",
      async () => capture((await authorizedPayment()).data),
    ],
    [
      "a canceled payment",
      async () => cancel((await authorizedPayment()).data),
    ],
    [
      "a session naming another session's approval",
      async () => {
        const other = await paidSession(env, provider)
        const { session } = await paidSession(env, provider, CARDS.declined)
        return { ...session, transaction_id: other.transactionId }
      },
    ],
  ])("raises nothing and reverses nothing for %s", async (_, make) => {
    const data = await make()
    const reversalsBefore = env.sandbox
      .transactions()
      .filter((r) => r.step === "REVERSAL").length
    await expect(remove(data)).resolves.toBeDefined()
    expect(
      env.sandbox.transactions().filter((r) => r.step === "REVERSAL").length
    ).toBe(reversalsBefore)
  })

  it("does not fail the cart change when the service is down", async () => {
    const { session, transactionId } = await paidSession(env, provider)
    env.sandbox.injectFault({ type: "status", status: 503, count: 10 })
    await expect(remove(session)).resolves.toBeDefined()
    expect(followOns(env.sandbox, "REVERSAL", transactionId)).toHaveLength(0)
    // Named as the logs name a session: not by the id that opens its pay page.
    const errors = env.logger.lines.filter((l) => l.startsWith("error:"))
    expect(errors.some((l) => l.includes(sessionLogTag(session.session_id)))).toBe(true)
    expect(errors.some((l) => l.includes(session.session_id))).toBe(false)
  })
})

describe("getPaymentStatus and retrievePayment", () => {
  const status = async (data: unknown) =>
    (await provider.getPaymentStatus({ data } as any)).status

  it.each<[string, () => Promise<unknown>, string]>([
    ["an unpaid session", async () => startSession(provider), "pending"],
    [
      "an approved session not yet authorized",
      async () => (await paidSession(env, provider)).session,
      "authorized",
    ],
    [
      "an authorized payment",
      async () => (await authorizedPayment()).data,
      "authorized",
    ],
    [
      "a captured payment",
      async () => capture((await authorizedPayment()).data),
      "captured",
    ],
    [
      "a canceled payment",
      async () => cancel((await authorizedPayment()).data),
      "canceled",
    ],
    [
      "a declined session (it takes another attempt)",
      async () => (await paidSession(env, provider, CARDS.declined)).session,
      "pending",
    ],
    [
      "a session under review (an order on hold)",
      async () => (await paidSession(env, provider, CARDS.review)).session,
      "pending_authorization",
    ],
    [
      "a session enrolled in 3DS",
      async () => (await paidSession(env, provider, CARDS.enrolled)).session,
      "requires_more",
    ],
    ["another provider's data", async () => ({ id: "pi_1" }), "error"],
  ])("%s", async (_, make, expected) => {
    expect(await status(await make())).toBe(expected)
  })

  it("retrievePayment adds the service's record without card or secret data", async () => {
    const { data, transactionId } = await authorizedPayment()
    const retrieved = (await provider.retrievePayment({ data } as any))
      .data as any
    expect(retrieved.service_record).toEqual({
      transactionId,
      step: "AUTHORIZATION",
      status: "successful",
      reasonCode: "100",
      captureStatus: undefined,
      amount: 30,
      currencyCode: "978",
      cardType: "VISA",
      cardSuffix: "1000",
    })
    expect(retrieved.transaction_id).toBe(transactionId)
  })

  it("retrievePayment returns data without a transaction as it is", async () => {
    const pending = await startSession(provider)
    expect(
      (await provider.retrievePayment({ data: pending } as any)).data
    ).toEqual(pending)
  })
})

describe("getWebhookActionAndData", () => {
  it("answers not_supported to anything posted to Medusa's webhook route", async () => {
    const { transactionId, session } = await paidSession(env, provider)
    const result = await provider.getWebhookActionAndData({
      data: {
        transactionId,
        decision: "ACCEPT",
        reasonCode: "100",
        session_id: session.session_id,
      },
      rawData: "",
      headers: {},
    } as any)
    expect(result).toEqual({ action: "not_supported" })
  })
})

describe("the payment's record, written before Medusa writes it (issue 42)", () => {
  /**
   * Medusa's rows and payment, as the payment module's own services read
   * and write them: a capture or refund row names its payment, and the
   * payment's data is what was written last.
   */
  function medusaStore() {
    const rows = new Map<string, { kind: "capture" | "refund"; amount: string; paymentId: string }>()
    const written: Array<{ id: string; data: Data }> = []
    const rowService = (kind: "capture" | "refund") => ({
      retrieve: async (id: string) => {
        const row = rows.get(id)
        if (!row || row.kind !== kind) throw new Error(`${kind} ${id} was not found`)
        return { id, raw_amount: { value: row.amount, precision: 20 }, payment: { id: row.paymentId } }
      },
      list: async ({ payment_id }: { payment_id: string }) =>
        [...rows].filter(([, row]) => row.kind === kind && row.paymentId === payment_id).map(([id]) => ({ id })),
    })
    const medusa = env.provider(
      {},
      {
        captureService: rowService("capture"),
        refundService: rowService("refund"),
        paymentService: {
          update: async (update: { id: string; data: Data }) => written.push(update),
          retrieve: async (id: string) => ({ id, data: written.filter((w) => w.id === id).at(-1)?.data ?? null }),
        },
      }
    )
    return { rows, written, medusa }
  }

  /**
   * Medusa's refund and capture workflows take no lock on the payment, and
   * pass the provider the payment's data as Medusa read it: a refund running
   * beside another follow-on (the owner's void, the sweep's settling, a
   * second refund) had an older copy, computed from it, and Medusa stored
   * that answer over the newer one, so the payment's log lost what was made
   * in between.
   */
  it("computes a refund from the payment as stored, not from Medusa's older copy: a refund made in between keeps its entry", async () => {
    const { rows, medusa } = medusaStore()
    const { data } = await authorizedPayment()
    rows.set("capt_cur", { kind: "capture", amount: "30", paymentId: "pay_cur" })
    const captured = (await medusa.capturePayment({ data, context: { idempotency_key: "capt_cur" } } as any)).data as unknown as Data
    rows.set("ref_a", { kind: "refund", amount: "10", paymentId: "pay_cur" })
    await medusa.refundPayment({ data: captured, amount: 10, context: { idempotency_key: "ref_a" } } as any)

    // Medusa read the payment before ref_a was written: its copy has no refund.
    rows.set("ref_b", { kind: "refund", amount: "8", paymentId: "pay_cur" })
    const second = (await medusa.refundPayment({ data: captured, amount: 8, context: { idempotency_key: "ref_b" } } as any))
      .data as unknown as Data

    const refunds = second.transactions.filter((t) => t.operation === "refund" && t.decision === "ACCEPT")
    expect(refunds.map((t) => [t.key, t.amount])).toEqual([
      ["ref_a", 10],
      ["ref_b", 8],
    ])
  })

  it("refuses a second capture from Medusa's older copy without asking the service again", async () => {
    const { rows, medusa } = medusaStore()
    const { data } = await authorizedPayment()
    rows.set("capt_one", { kind: "capture", amount: "10", paymentId: "pay_two" })
    await medusa.capturePayment({ data, context: { idempotency_key: "capt_one" } } as any)
    const sent = env.sandbox.requests().filter((r) => r.path === "/capture").length

    rows.set("capt_two", { kind: "capture", amount: "12", paymentId: "pay_two" })
    await expect(medusa.capturePayment({ data, context: { idempotency_key: "capt_two" } } as any)).rejects.toThrow(
      "one capture per approval"
    )
    expect(env.sandbox.requests().filter((r) => r.path === "/capture").length).toBe(sent)
  })

  it("writes a capture's and a refund's answer onto the payment as soon as the service has acted", async () => {
    const { rows, written, medusa } = medusaStore()
    const { data } = await authorizedPayment()
    rows.set("capt_rec", { kind: "capture", amount: "30", paymentId: "pay_rec" })
    const captured = (await medusa.capturePayment({ data, context: { idempotency_key: "capt_rec" } } as any)).data as unknown as Data
    rows.set("ref_rec", { kind: "refund", amount: "10", paymentId: "pay_rec" })
    const refunded = (await medusa.refundPayment({ data: captured, amount: 10, context: { idempotency_key: "ref_rec" } } as any))
      .data as unknown as Data

    expect(written).toEqual([
      { id: "pay_rec", data: captured },
      { id: "pay_rec", data: refunded },
    ])
    expect(written[1].data.transactions.at(-1)).toMatchObject({ operation: "refund", key: "ref_rec", decision: "ACCEPT" })
  })
})
