import { networkInterfaces } from "node:os"
import { isLoopback } from "../../src/sandbox/control-handler"
import { CardServiceSandbox, startSandbox } from "../../src/sandbox"
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

/**
 * The test controls over HTTP (issue 14): what a black-box test or the demo
 * uses to lose callbacks or break retrieve in a sandbox it did not start.
 */

const JSON_HEADERS = { "content-type": "application/json" }

const post = (sandbox: CardServiceSandbox, path: string, body?: unknown) =>
  call(sandbox.url, "POST", path, {
    headers: body === undefined ? {} : JSON_HEADERS,
    body: body === undefined ? undefined : JSON.stringify(body),
  })

describe("sandbox control endpoints", () => {
  let sandbox: CardServiceSandbox
  let merchant: MerchantStub

  beforeAll(async () => {
    sandbox = await startSandbox()
    merchant = await startMerchantStub()
  })
  afterEach(() => {
    sandbox.resetKnobs()
    sandbox.reset()
  })
  afterAll(async () => {
    await sandbox.close()
    await merchant.close()
  })

  it("adds a round trip to every request but the controls' own, set by /_sandbox/latency and undone by reset (#43)", async () => {
    const timed = async (request: () => Promise<unknown>) => {
      const started = performance.now()
      await request()
      return performance.now() - started
    }
    const set = await post(sandbox, "/_sandbox/latency", { ms: 150, jitterMs: 10 })
    expect(set.status).toBe(200)
    expect(set.json).toEqual({ latency: { ms: 150, jitterMs: 10 } })

    expect(await timed(() => authorize(sandbox))).toBeGreaterThanOrEqual(139)
    expect(await timed(() => call(sandbox.url, "GET", "/"))).toBeGreaterThanOrEqual(139)
    // The controls answer at once: a test steering a slow sandbox is not slowed.
    expect(await timed(() => post(sandbox, "/_sandbox/callback-knobs", {}))).toBeLessThan(100)

    const refused = await post(sandbox, "/_sandbox/latency", { ms: -5 })
    expect(refused.status).toBe(400)
    expect(refused.json.message).toBe("ms must be a whole number from 0 to 60000")

    expect((await post(sandbox, "/_sandbox/reset")).status).toBe(200)
    expect(sandbox.latency).toEqual({ ms: 0, jitterMs: 0 })
    expect(await timed(() => authorize(sandbox))).toBeLessThan(100)
  })

  it("merges callback knobs into the global knobs: a dropped callback never reaches the merchant", async () => {
    const answer = await post(sandbox, "/_sandbox/callback-knobs", {
      drop: true,
      retries: 0,
    })
    expect(answer.status).toBe(200)
    expect(answer.json.callbackKnobs).toMatchObject({ drop: true, retries: 0 })
    expect(sandbox.callbackKnobs.drop).toBe(true)
    // Untouched knobs keep their values (merge, not replace).
    expect(sandbox.callbackKnobs.format).toBe("json")

    const code = await authorize(sandbox)
    const before = merchant.received.length
    await submitOrder(sandbox, orderForm(sandbox, code, merchant))
    const deliveries = await sandbox.waitForCallbacks(1)
    expect(deliveries[0]).toMatchObject({ dropped: true })
    expect(merchant.received.length).toBe(before)
  })

  it("queues one fault as injectFault takes it: retrieve answers 503 once", async () => {
    const code = await authorize(sandbox)
    const approved = await submitOrder(
      sandbox,
      orderForm(sandbox, code, merchant)
    )
    const id = redirectParams(approved).get("transactionId")!
    const path = `/payment/retrieve/${sandbox.credentials.merchantId}/${id}`

    const answer = await post(sandbox, "/_sandbox/faults", {
      type: "status",
      status: 503,
      path: "/payment/retrieve",
    })
    expect(answer.status).toBe(200)
    expect((await callJson(sandbox, code, "GET", path)).status).toBe(503)
    expect((await callJson(sandbox, code, "GET", path)).status).toBe(200)
  })

  it("resets knobs, faults and recorded state", async () => {
    await post(sandbox, "/_sandbox/callback-knobs", { drop: true })
    await post(sandbox, "/_sandbox/faults", { type: "status", status: 500 })
    sandbox.seedAuthorization()
    const answer = await post(sandbox, "/_sandbox/reset")
    expect(answer.status).toBe(200)
    expect(sandbox.callbackKnobs.drop).toBe(false)
    expect(sandbox.transactions()).toEqual([])
    // The queued 500 is gone: /authorize answers normally.
    expect(await authorize(sandbox)).toEqual(expect.any(String))
  })

  it.each([
    [{ drop: "yes" }, "drop must be true or false"],
    [{ retries: -1 }, "retries must be a whole number"],
    [{ format: "xml" }, "format must be"],
    [{ secret: 1 }, 'unknown knob "secret"'],
    [[], "JSON object"],
  ])(
    "refuses bad knobs %j with a message naming the field",
    async (body, message) => {
      const answer = await post(sandbox, "/_sandbox/callback-knobs", body)
      expect(answer.status).toBe(400)
      expect(answer.json.message).toContain(message)
    }
  )

  it.each([
    [{ type: "status", status: 404 }, "status must be 500 or 503"],
    [{ type: "delay" }, "ms must be"],
    [{ type: "explode" }, "type must be"],
    [{ type: "destroy", ms: 5 }, 'unknown field "ms"'],
    [{ type: "status", status: 503, count: 0 }, "count must be"],
  ])("refuses bad faults %j", async (body, message) => {
    const answer = await post(sandbox, "/_sandbox/faults", body)
    expect(answer.status).toBe(400)
    expect(answer.json.message).toContain(message)
    // Nothing was queued.
    expect(await authorize(sandbox)).toEqual(expect.any(String))
  })

  it("refuses what a web page could send without a preflight, and other methods", async () => {
    const form = await call(sandbox.url, "POST", "/_sandbox/callback-knobs", {
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ drop: true }),
    })
    expect(form.status).toBe(415)
    const reset = await call(sandbox.url, "POST", "/_sandbox/reset", {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "a=b",
    })
    expect(reset.status).toBe(415)
    expect(sandbox.callbackKnobs.drop).toBe(false)
    expect((await call(sandbox.url, "GET", "/_sandbox/reset")).status).toBe(405)
    expect((await post(sandbox, "/_sandbox/unknown", {})).status).toBe(404)
  })

  it.each([
    ["127.0.0.1", true],
    ["127.10.0.3", true],
    ["::1", true],
    ["::ffff:127.0.0.1", true],
    ["192.0.2.2", false],
    ["::ffff:10.0.0.1", false],
    ["fd00::2", false],
    [undefined, false],
  ])("treats %s as loopback: %s", (address, expected) => {
    expect(isLoopback(address)).toBe(expected)
  })

  it("answers 403 to a caller that is not on loopback", async () => {
    const external = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && i.family === "IPv4" && !i.internal)
    // The test needs a non-loopback address of this machine to call from.
    expect(external).toBeDefined()
    const open = await startSandbox({ host: "0.0.0.0" })
    try {
      const url = `http://${external!.address}:${open.port}`
      const answer = await call(url, "POST", "/_sandbox/callback-knobs", {
        headers: JSON_HEADERS,
        body: JSON.stringify({ drop: true }),
      })
      expect(answer.status).toBe(403)
      expect(open.callbackKnobs.drop).toBe(false)
      // The ordinary endpoints still answer from there.
      expect((await call(url, "GET", "/")).status).toBe(200)
    } finally {
      await open.close()
    }
  })
})
