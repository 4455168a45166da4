import { CardServiceSandbox, startSandbox, TEST_CARDS } from "../../src/sandbox"
import {
  answerChallenge,
  authorize,
  MerchantStub,
  orderForm,
  redirectParams,
  startMerchantStub,
  submitOrder,
} from "../helpers/sandbox-http"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe("result callback knobs (section 6, wire-choices delivery)", () => {
  let sandbox: CardServiceSandbox
  let merchant: MerchantStub
  let code: string

  beforeAll(async () => {
    sandbox = await startSandbox()
    code = await authorize(sandbox)
  })
  beforeEach(async () => {
    sandbox.resetKnobs()
    merchant = await startMerchantStub()
  })
  afterEach(() => merchant.close())
  afterAll(() => sandbox.close())

  const pay = (overrides: Record<string, string | undefined> = {}) =>
    submitOrder(sandbox, orderForm(sandbox, code, merchant, overrides))

  const deliveriesFor = (reference: string) =>
    sandbox.callbacks().filter((d) => d.merchantReferenceCode === reference)

  /** The sandbox records an attempt once the merchant's answer is in, so wait on its log. */
  const waitForAttempts = (reference: string, count: number) =>
    sandbox.waitForCallbacks(
      (all) =>
        all.filter((d) => d.merchantReferenceCode === reference).length >= count
    )

  it("by default the merchant has the callback before the browser is redirected", async () => {
    const answer = await pay()
    expect(answer.status).toBe(303)
    expect(merchant.received).toHaveLength(1)
    expect(merchant.received[0].contentType).toBe("application/json")
    expect(merchant.received[0].fields.transactionId).toBe(
      redirectParams(answer).get("transactionId")
    )
    const [delivery] = sandbox.callbacks().slice(-1)
    expect(delivery).toMatchObject({
      status: 200,
      ok: true,
      attempt: 1,
      copy: 1,
      dropped: false,
    })
  })

  it("retries a non-2xx answer the configured number of times at the interval", async () => {
    sandbox.setCallbackKnobs({ retries: 2, retryIntervalMs: 50 })
    merchant.statusFor = (n) => (n < 2 ? 500 : 204)
    const fields = orderForm(sandbox, code, merchant)
    await submitOrder(sandbox, fields)
    await waitForAttempts(fields.merchantReferenceCode, 3)
    const attempts = deliveriesFor(fields.merchantReferenceCode)
    expect(attempts.map((d) => [d.attempt, d.status, d.ok])).toEqual([
      [1, 500, false],
      [2, 500, false],
      [3, 204, true],
    ])
    expect(attempts[1].at - attempts[0].at).toBeGreaterThanOrEqual(45)
  })

  it("gives up after the retries and records every failed attempt", async () => {
    sandbox.setCallbackKnobs({ retries: 1, retryIntervalMs: 10 })
    merchant.statusFor = () => 503
    const fields = orderForm(sandbox, code, merchant)
    await submitOrder(sandbox, fields)
    await waitForAttempts(fields.merchantReferenceCode, 2)
    await sleep(100)
    expect(
      deliveriesFor(fields.merchantReferenceCode).map((d) => d.status)
    ).toEqual([503, 503])
    expect(merchant.received).toHaveLength(2)
  })

  it("retries a network error", async () => {
    sandbox.setCallbackKnobs({ retries: 1, retryIntervalMs: 10 })
    const fields = orderForm(sandbox, code, merchant, {
      callbackLocation: "http://127.0.0.1:1/callback/",
    })
    await submitOrder(sandbox, fields)
    await waitForAttempts(fields.merchantReferenceCode, 2)
    const attempts = deliveriesFor(fields.merchantReferenceCode)
    expect(attempts.every((d) => d.status === undefined && d.error)).toBe(true)
  })

  it("delivers duplicates when asked", async () => {
    sandbox.setCallbackKnobs({ duplicates: 3 })
    const fields = orderForm(sandbox, code, merchant)
    await submitOrder(sandbox, fields)
    const received = await merchant.waitForCallbacks(3)
    expect(new Set(received.map((r) => r.raw)).size).toBe(1)
    await waitForAttempts(fields.merchantReferenceCode, 3)
    expect(
      deliveriesFor(fields.merchantReferenceCode).map((d) => d.copy)
    ).toEqual([1, 2, 3])
  })

  it("drops the callback when asked, and lists it as dropped", async () => {
    sandbox.setCallbackKnobs({ drop: true })
    const fields = orderForm(sandbox, code, merchant)
    const answer = await submitOrder(sandbox, fields)
    expect(answer.status).toBe(303)
    await sleep(100)
    expect(merchant.received).toHaveLength(0)
    expect(deliveriesFor(fields.merchantReferenceCode)).toEqual([
      expect.objectContaining({ dropped: true, ok: false }),
    ])
  })

  it("delays the callback without holding the browser", async () => {
    sandbox.setCallbackKnobs({ delayMs: 150 })
    const started = Date.now()
    const answer = await pay()
    expect(answer.status).toBe(303)
    expect(Date.now() - started).toBeLessThan(120)
    expect(merchant.received).toHaveLength(0)
    await merchant.waitForCallbacks(1)
    expect(Date.now() - started).toBeGreaterThanOrEqual(140)
  })

  it("sends the callback only after the redirect when afterRedirect is set", async () => {
    sandbox.setCallbackKnobs({ afterRedirect: true, delayMs: 50 })
    const answer = await pay()
    expect(answer.status).toBe(303)
    expect(merchant.received).toHaveLength(0)
    const [callback] = await merchant.waitForCallbacks(1)
    expect(callback.fields.transactionId).toBe(
      redirectParams(answer).get("transactionId")
    )
  })

  it("afterRedirect also applies after a 3DS challenge", async () => {
    sandbox.setCallbackKnobs({ afterRedirect: true, delayMs: 30 })
    const challengeCard = TEST_CARDS.find(
      (c) => c.threeDs === "challenge" && c.reasonCode === "100"
    )!
    const answer = await pay({ cardAccountNumber: challengeCard.number })
    const done = await answerChallenge(
      sandbox,
      String(answer.headers.location),
      "pass"
    )
    expect(done.status).toBe(303)
    expect(merchant.received).toHaveLength(0)
    await merchant.waitForCallbacks(1)
  })

  it("sends a form-encoded callback when asked", async () => {
    sandbox.setCallbackKnobs({ format: "form" })
    await pay({ isAuthenticate: "N" })
    const [callback] = await merchant.waitForCallbacks(1)
    expect(callback.contentType).toBe("application/x-www-form-urlencoded")
    expect(callback.fields).toMatchObject({
      decision: "ACCEPT",
      reasonCode: "100",
      eci: "05",
    })
  })

  it("callbackFormat 'form' at start-up is the default format", async () => {
    const formSandbox = await startSandbox({ callbackFormat: "form" })
    try {
      const formCode = await authorize(formSandbox)
      await submitOrder(formSandbox, orderForm(formSandbox, formCode, merchant))
      const [callback] = await merchant.waitForCallbacks(1)
      expect(callback.contentType).toBe("application/x-www-form-urlencoded")
    } finally {
      await formSandbox.close()
    }
  })

  it("applies knobs per merchantReferenceCode", async () => {
    const dropped = orderForm(sandbox, code, merchant)
    sandbox.setCallbackKnobs({ drop: true }, dropped.merchantReferenceCode)
    await submitOrder(sandbox, dropped)
    const normal = orderForm(sandbox, code, merchant)
    await submitOrder(sandbox, normal)
    const [callback] = await merchant.waitForCallbacks(1)
    await sleep(50)
    expect(merchant.received).toHaveLength(1)
    expect(callback.fields.merchantReferenceCode).toBe(
      normal.merchantReferenceCode
    )
  })

  it("the knobs object can be assigned directly at runtime", async () => {
    sandbox.callbackKnobs.duplicates = 2
    await pay()
    await merchant.waitForCallbacks(2)
  })

  it("close() cancels pending callback timers", async () => {
    const short = await startSandbox({ callbackKnobs: { delayMs: 200 } })
    const shortCode = await authorize(short)
    await submitOrder(short, orderForm(short, shortCode, merchant))
    await short.close()
    await sleep(300)
    expect(merchant.received).toHaveLength(0)
  })
})
