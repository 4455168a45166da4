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
    // A second copy starts only once the first has given up, so it marks
    // the point after which no further attempt of the first can come.
    sandbox.setCallbackKnobs({ retries: 1, retryIntervalMs: 10, duplicates: 2 })
    merchant.statusFor = () => 503
    const fields = orderForm(sandbox, code, merchant)
    await submitOrder(sandbox, fields)
    await sandbox.waitForCallbacks((all) =>
      all.some(
        (d) =>
          d.merchantReferenceCode === fields.merchantReferenceCode &&
          d.copy === 2 &&
          d.attempt === 2
      )
    )
    expect(
      deliveriesFor(fields.merchantReferenceCode).map((d) => [
        d.copy,
        d.attempt,
        d.status,
      ])
    ).toEqual([
      [1, 1, 503],
      [1, 2, 503],
      [2, 1, 503],
      [2, 2, 503],
    ])
    expect(merchant.received).toHaveLength(4)
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
    // The marker: the next payment's callback, not dropped. A callback goes
    // out before the browser is redirected, so one for the first payment
    // would have reached the merchant before the marker's.
    sandbox.setCallbackKnobs({ drop: false })
    const marker = orderForm(sandbox, code, merchant)
    await submitOrder(sandbox, marker)
    const received = await merchant.waitForCallbacks(1)
    expect(received.map((r) => r.fields.merchantReferenceCode)).toEqual([
      marker.merchantReferenceCode,
    ])
    expect(deliveriesFor(fields.merchantReferenceCode)).toEqual([
      expect.objectContaining({ dropped: true, ok: false }),
    ])
  })

  // The merchant below keeps its answers until released: a sandbox that held
  // the browser for the callback would send no 303 (until the attempt timed
  // out, and then list the attempt as failed), so a 303 with no finished
  // attempt shows the browser was not held, however slow the machine.

  it("delays the callback without holding the browser", async () => {
    sandbox.setCallbackKnobs({ delayMs: 150 })
    const release = merchant.holdAnswers()
    const fields = orderForm(sandbox, code, merchant)
    const started = Date.now()
    const answer = await submitOrder(sandbox, fields)
    expect(answer.status).toBe(303)
    expect(deliveriesFor(fields.merchantReferenceCode)).toEqual([])
    const [callback] = await merchant.waitForCallbacks(1)
    expect(callback.at - started).toBeGreaterThanOrEqual(149)
    release()
    const [delivery] = await waitForAttempts(fields.merchantReferenceCode, 1)
    expect(delivery).toMatchObject({ status: 200, ok: true })
  })

  it("sends the callback only after the redirect when afterRedirect is set", async () => {
    // No delay: afterRedirect alone keeps the browser from waiting.
    sandbox.setCallbackKnobs({ afterRedirect: true })
    const release = merchant.holdAnswers()
    const fields = orderForm(sandbox, code, merchant)
    const answer = await submitOrder(sandbox, fields)
    expect(answer.status).toBe(303)
    expect(deliveriesFor(fields.merchantReferenceCode)).toEqual([])
    release()
    const [callback] = await merchant.waitForCallbacks(1)
    expect(callback.fields.transactionId).toBe(
      redirectParams(answer).get("transactionId")
    )
    await waitForAttempts(fields.merchantReferenceCode, 1)
  })

  it("afterRedirect also applies after a 3DS challenge", async () => {
    sandbox.setCallbackKnobs({ afterRedirect: true })
    const challengeCard = TEST_CARDS.find(
      (c) => c.threeDs === "challenge" && c.reasonCode === "100"
    )!
    const release = merchant.holdAnswers()
    const fields = orderForm(sandbox, code, merchant, {
      cardAccountNumber: challengeCard.number,
    })
    const answer = await submitOrder(sandbox, fields)
    const done = await answerChallenge(
      sandbox,
      String(answer.headers.location),
      "pass"
    )
    expect(done.status).toBe(303)
    expect(deliveriesFor(fields.merchantReferenceCode)).toEqual([])
    release()
    const [callback] = await merchant.waitForCallbacks(1)
    expect(callback.fields.merchantReferenceCode).toBe(
      fields.merchantReferenceCode
    )
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
    // A callback goes out before the browser is redirected: the first
    // payment's, had it been sent, would be in before the second's.
    const received = await merchant.waitForCallbacks(1)
    expect(received.map((r) => r.fields.merchantReferenceCode)).toEqual([
      normal.merchantReferenceCode,
    ])
  })

  it("the knobs object can be assigned directly at runtime", async () => {
    sandbox.callbackKnobs.duplicates = 2
    await pay()
    await merchant.waitForCallbacks(2)
  })

  describe("callbackConnections: how many callbacks are delivered to one merchant at once", () => {
    /** Four payments whose callbacks the merchant holds until `held` of them are in. */
    const fourPaymentsHolding = async (connections: number, held: number) => {
      const limited = await startSandbox({ callbackConnections: connections })
      try {
        const release = merchant.holdAnswers()
        const limitedCode = await authorize(limited)
        const payments = [1, 2, 3, 4].map(() =>
          submitOrder(limited, orderForm(limited, limitedCode, merchant))
        )
        const inFlight = (await merchant.waitForCallbacks(held)).length
        release()
        await Promise.all(payments)
        return { inFlight, delivered: merchant.received.length, connections: merchant.connections }
      } finally {
        await limited.close()
      }
    }

    it("delivers all four at once when allowed four", async () => {
      expect(await fourPaymentsHolding(4, 4)).toEqual({ inFlight: 4, delivered: 4, connections: 4 })
    })

    it("keeps the others waiting for a free connection when allowed two", async () => {
      expect(await fourPaymentsHolding(2, 2)).toEqual({ inFlight: 2, delivered: 4, connections: 2 })
    })

    it.each([0, -1, 1.5, Number.NaN])("refuses %p", async (connections) => {
      await expect((async () => startSandbox({ callbackConnections: connections }))()).rejects.toThrow(
        /callbackConnections must be a whole number of 1 or more/
      )
    })
  })

  it("close() cancels pending callback timers", async () => {
    const closing = await startSandbox({ callbackKnobs: { delayMs: 50 } })
    // The marker: another sandbox's callback, due 300 ms after a payment made
    // later. Once it is in, the closed sandbox's (due first) would be too.
    const marker = await startSandbox({ callbackKnobs: { delayMs: 300 } })
    let closed = false
    try {
      await submitOrder(
        closing,
        orderForm(closing, await authorize(closing), merchant)
      )
      await closing.close()
      closed = true
      const markerFields = orderForm(marker, await authorize(marker), merchant)
      await submitOrder(marker, markerFields)
      const received = await merchant.waitForCallbacks(1)
      expect(received.map((r) => r.fields.merchantReferenceCode)).toEqual([
        markerFields.merchantReferenceCode,
      ])
    } finally {
      await marker.close()
      if (!closed) await closing.close()
    }
  })
})
