import { PaymentRecord, persistently } from "../../../src/providers/card-service/payment-record"

/**
 * bench:crash-points, `capture service:/capture#1 db-drop`: the database
 * dropped the instance's connections while the service captured; the
 * provider's one write of the answer failed on a dead pooled connection, and
 * the capture was remembered nowhere. The write is tried again.
 */
describe("the provider's record of a follow-on", () => {
  const data = { state: "captured" } as never

  function paymentService(failures: number) {
    const written: unknown[] = []
    let left = failures
    return {
      written,
      update: jest.fn(async (row: unknown) => {
        if (left-- > 0) throw new Error("Connection terminated unexpectedly")
        written.push(row)
      }),
      retrieve: jest.fn(async () => ({ metadata: { card_service: { capture: { status: "capture_pending" } }, other: 1 } })),
    }
  }

  it("is written on a later try when the first fails on a dropped connection", async () => {
    const payments = paymentService(2)
    await new PaymentRecord({ paymentService: payments }).write("pay_1", data)
    expect(payments.update).toHaveBeenCalledTimes(3)
    expect(payments.written).toEqual([{ id: "pay_1", data }])
  })

  it("gives up quietly after four tries: Medusa's own write comes next", async () => {
    const payments = paymentService(10)
    await expect(new PaymentRecord({ paymentService: payments }).write("pay_1", data)).resolves.toBeUndefined()
    expect(payments.update).toHaveBeenCalledTimes(4)
    expect(payments.written).toEqual([])
  })

  it("marks a cancel on a later try too, keeping the payment's other metadata", async () => {
    const payments = paymentService(1)
    await new PaymentRecord({ paymentService: payments }).markCancel("pay_1", { requested_at: "2026-11-28T07:00:00.000Z" })
    expect(payments.written).toEqual([
      {
        id: "pay_1",
        metadata: {
          other: 1,
          card_service: { capture: { status: "capture_pending" }, cancel: { requested_at: "2026-11-28T07:00:00.000Z" } },
        },
      },
    ])
  })

  it("reads the payment's data as stored now, and Medusa's copy where the payment cannot be read", async () => {
    const stored = { state: "captured", transactions: [{ key: "ref_a" }] }
    const record = new PaymentRecord({
      paymentService: { update: jest.fn(), retrieve: jest.fn(async () => ({ id: "pay_1", data: stored })) },
    })
    expect((await record.current("pay_1", { state: "captured", transactions: [] })).data).toBe(stored)
    expect((await record.current(null, data)).data).toBe(data)
    const failing = new PaymentRecord({
      paymentService: { update: jest.fn(), retrieve: jest.fn(async () => { throw new Error("Connection terminated unexpectedly") }) },
    })
    expect((await failing.current("pay_1", data)).data).toBe(data)
    expect((await new PaymentRecord({}).current("pay_1", data)).data).toBe(data)
  })

  it("runs the action as it is where Medusa booted no locking module (a provider built outside Medusa)", async () => {
    await expect(new PaymentRecord({}).underLock("pay_1", async () => 7)).resolves.toBe(7)
  })

  it("persistently returns the first success, and throws the last failure", async () => {
    let calls = 0
    await expect(persistently(async () => ++calls, 3, 1)).resolves.toBe(1)
    await expect(persistently(async () => { throw new Error(`try ${++calls}`) }, 3, 1)).rejects.toThrow("try 4")
  })
})
