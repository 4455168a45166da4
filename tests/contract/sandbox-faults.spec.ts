import { CardServiceSandbox, startSandbox, type HeldAnswer } from "../../src/sandbox"
import {
  authorize,
  call,
  callJson,
  MerchantStub,
  orderForm,
  redirectParams,
  startMerchantStub,
  submitOrder,
} from "../helpers/sandbox-http"

describe("fault knobs for the JSON endpoints", () => {
  let sandbox: CardServiceSandbox
  let merchant: MerchantStub
  let code: string
  let auth: string

  beforeAll(async () => {
    sandbox = await startSandbox()
    merchant = await startMerchantStub()
    code = await authorize(sandbox)
    const answer = await submitOrder(
      sandbox,
      orderForm(sandbox, code, merchant)
    )
    auth = redirectParams(answer).get("transactionId")!
  })
  afterEach(() => sandbox.clearFaults())
  afterAll(async () => {
    await sandbox.close()
    await merchant.close()
  })

  const retrieve = () =>
    callJson(
      sandbox,
      code,
      "GET",
      `/payment/retrieve/${sandbox.credentials.merchantId}/${auth}`
    )

  it("answers the next N requests with 500 or 503 without processing them", async () => {
    sandbox.injectFault({ type: "status", status: 503, count: 2 })
    const first = await retrieve()
    expect(first.status).toBe(503)
    expect(first.json).toEqual({ decision: "REJECT", reasonCode: "150" })
    expect((await retrieve()).status).toBe(503)
    expect((await retrieve()).status).toBe(200)
    sandbox.injectFault({ type: "status", status: 500 })
    const authorizeAnswer = await call(sandbox.url, "GET", "/authorize", {
      headers: { clientCode: "sandbox-client", clientSecret: "sandbox-secret" },
    })
    expect(authorizeAnswer.status).toBe(500)
  })

  it("limits a fault to one path", async () => {
    sandbox.injectFault({ type: "status", status: 500, path: "/capture" })
    expect((await retrieve()).status).toBe(200)
    const before = sandbox.transactions().length
    const capture = await callJson(sandbox, code, "POST", "/capture", {})
    expect(capture.status).toBe(500)
    expect(sandbox.transactions().length).toBe(before)
  })

  it("delays the answer of a processed request", async () => {
    sandbox.injectFault({ type: "delay", ms: 200 })
    const started = Date.now()
    expect((await retrieve()).status).toBe(200)
    expect(Date.now() - started).toBeGreaterThanOrEqual(190)
  })

  it("destroys the connection after processing: the operation happened (indeterminate)", async () => {
    sandbox.injectFault({ type: "destroy", path: "/capture" })
    const before = sandbox.transactions().length
    await expect(
      callJson(sandbox, code, "POST", "/capture", {
        merchantId: sandbox.credentials.merchantId,
        merchantReferenceCode: "lost-answer",
        currency: "978",
        amount: 10.5,
        email: "ada@example.com",
        originalTransactionId: auth,
      })
    ).rejects.toThrow()
    const recorded = sandbox.transactions().slice(before)
    expect(recorded).toEqual([
      expect.objectContaining({
        step: "CAPTURE",
        reasonCode: "100",
        captureStatus: "PENDING",
      }),
    ])
  })

  describe("answers held after acting (the crash-point harness)", () => {
    const capture = (reference: string) =>
      callJson(sandbox, code, "POST", "/capture", {
        merchantId: sandbox.credentials.merchantId,
        merchantReferenceCode: reference,
        currency: "978",
        amount: 1,
        email: "ada@example.com",
        originalTransactionId: auth,
      })

    it("acts, tells the holder what it would answer, and answers only when released", async () => {
      const held: HeldAnswer[] = []
      sandbox.holdAnswer({ path: "/payment/retrieve", skip: 1, onHold: (h) => held.push(h) })
      expect((await retrieve()).status).toBe(200)
      expect(held).toHaveLength(0)
      let answered = false
      const second = retrieve().then((answer) => ((answered = true), answer))
      while (!held.length) await new Promise((resolve) => setTimeout(resolve, 10))
      expect(held[0]).toMatchObject({ method: "GET", status: 200, payload: expect.objectContaining({ transactionId: auth }) })
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(answered).toBe(false)
      held[0].release()
      expect((await second).status).toBe(200)
      // One hold fires once.
      expect((await retrieve()).status).toBe(200)
      expect(held).toHaveLength(1)
    })

    it("holds only the request its match picks, and a dropped answer leaves the operation done", async () => {
      const held: HeldAnswer[] = []
      sandbox.holdAnswer({
        path: "/capture",
        match: ({ body }) => body?.merchantReferenceCode === "held-capture",
        onHold: (h) => held.push(h),
      })
      const before = sandbox.transactions().length
      expect((await capture("other-capture")).status).toBe(200)
      const lost = capture("held-capture")
      while (!held.length) await new Promise((resolve) => setTimeout(resolve, 10))
      expect(held[0].body).toMatchObject({ merchantReferenceCode: "held-capture" })
      held[0].drop()
      await expect(lost).rejects.toThrow()
      expect(sandbox.transactions().slice(before).map((r) => r.merchantReferenceCode)).toEqual(["other-capture", "held-capture"])
    })
  })

  describe("on the browser's form post, only when a fault names /order/start", () => {
    const post = () => submitOrder(sandbox, orderForm(sandbox, code, merchant))

    it("leaves the form post alone for a fault without a path, which the next JSON request takes", async () => {
      sandbox.injectFault({ type: "status", status: 503 })
      expect((await post()).status).toBe(303)
      expect((await retrieve()).status).toBe(503)
    })

    it("answers 500 or 503 with a page and records nothing", async () => {
      sandbox.injectFault({
        type: "status",
        status: 503,
        count: 2,
        path: "/order/start",
      })
      const before = sandbox.transactions().length
      const first = await post()
      expect(first.status).toBe(503)
      expect(first.headers["content-type"]).toContain("text/html")
      expect((await post()).status).toBe(503)
      expect(sandbox.transactions().length).toBe(before)
      expect((await post()).status).toBe(303)
      expect(sandbox.transactions().length).toBe(before + 1)
    })

    it("holds the request before processing it", async () => {
      sandbox.injectFault({ type: "delay", ms: 200, path: "/order/start" })
      const started = Date.now()
      expect((await post()).status).toBe(303)
      expect(Date.now() - started).toBeGreaterThanOrEqual(190)
    })

    it("cuts the connection before processing: no record, no callback", async () => {
      sandbox.injectFault({ type: "destroy", path: "/order/start" })
      const before = {
        records: sandbox.transactions().length,
        callbacks: sandbox.callbacks().length,
      }
      await expect(post()).rejects.toThrow()
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(sandbox.transactions().length).toBe(before.records)
      expect(sandbox.callbacks().length).toBe(before.callbacks)
    })
  })
})
