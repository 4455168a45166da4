import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Agent, request } from "undici"
import {
  CardServiceClient,
  CardServiceError,
  toServiceAmount,
  toVoidAmount,
  toNumericCurrency,
  type CardServiceClientOptions,
} from "../../src/lib"
import { startSandbox, type CardServiceSandbox } from "../../src/sandbox"

/**
 * The client against the sandbox over real loopback HTTP: the wire choices
 * of docs/wire-choices.md as both sides implement them.
 */

const APPROVED_VISA = "4000000000001000"

let sandbox: CardServiceSandbox
let receiver: Server
let receiverUrl: string
let sandboxLog: string[]
let reference = 0

beforeAll(async () => {
  sandboxLog = []
  sandbox = await startSandbox({
    port: 0,
    logger: {
      debug: (m) => sandboxLog.push(m),
      info: () => undefined,
      warn: () => undefined,
      error: (m) => sandboxLog.push(`error ${m}`),
    },
  })
  // The payment result is POSTed to callbackLocation (section 6); answer 2xx.
  receiver = createServer((req, res) => {
    req.resume()
    req.on("end", () => res.writeHead(200).end())
  })
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/callback/`
})

afterAll(async () => {
  await sandbox?.close()
  await new Promise<void>((resolve) =>
    receiver ? receiver.close(() => resolve()) : resolve()
  )
})

const clients: CardServiceClient[] = []
afterEach(async () => {
  sandbox.resetKnobs()
  await Promise.all(clients.splice(0).map((c) => c.close()))
})

function newClient(
  overrides: Partial<CardServiceClientOptions> = {}
): CardServiceClient {
  const client = new CardServiceClient({
    baseUrl: sandbox.url,
    ...sandbox.credentials,
    retry: { attempts: 3, baseDelayMs: 5, maxDelayMs: 20 },
    ...overrides,
  })
  clients.push(client)
  return client
}

function authorizeCalls(): number {
  return sandboxLog.filter((line) => line.startsWith("GET /authorize ->"))
    .length
}

function nextReference(): string {
  reference += 1
  return `order_${Date.now()}_${reference}`
}

/**
 * Creates an approved authorization as a browser would (section 4.2): a
 * form post with Fetch Metadata of a top-level navigation; the 303 Location
 * carries the transactionId (wire-choices "Payment result delivery").
 */
async function authorizePayment(
  client: CardServiceClient,
  {
    amount = "10.50",
    currency = "eur",
    card = APPROVED_VISA,
    cardType = "VISA",
  } = {}
): Promise<{ transactionId: string; merchantReferenceCode: string }> {
  const merchantReferenceCode = nextReference()
  const form = new URLSearchParams({
    merchantId: sandbox.credentials.merchantId,
    merchantReferenceCode,
    currency: toNumericCurrency(currency),
    cardAccountNumber: card,
    cardType,
    cardExpirationMonth: "12",
    cardExpirationYear: String(new Date().getFullYear() + 3),
    firstName: "Ada",
    lastName: "Lovelace",
    country: "DE",
    city: "Berlin",
    address: "Unter den Linden 1",
    postalCode: "10117",
    phone: "+4930123456",
    email: "ada@example.com",
    callbackLocation: receiverUrl,
    redirectUrl: "http://127.0.0.1:9/return/",
    isWindowed: "N",
    isRedirect: "N",
    isAuthenticate: "Y",
    verifyId: sandbox.credentials.verifyId,
    authorization: await client.getVerificationCode(),
    amount,
  })
  const res = await request(`${sandbox.url}/order/start`, {
    method: "POST",
    body: form.toString(),
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "sec-fetch-mode": "navigate",
      "sec-fetch-dest": "document",
    },
  })
  const text = await res.body.text()
  if (res.statusCode !== 303) {
    throw new Error(
      `order/start answered ${res.statusCode}: ${text.slice(0, 300)}`
    )
  }
  const location = new URL(String(res.headers.location))
  expect(location.searchParams.get("decision")).toBe("ACCEPT")
  return {
    transactionId: location.searchParams.get("transactionId")!,
    merchantReferenceCode,
  }
}

function followOn(
  originalTransactionId: string,
  amount: number,
  currency = "eur"
) {
  return {
    merchantReferenceCode: nextReference(),
    currency: toNumericCurrency(currency),
    amount: toServiceAmount(amount, currency),
    email: "ada@example.com",
    originalTransactionId,
  }
}

async function caught(promise: Promise<unknown>): Promise<CardServiceError> {
  try {
    await promise
  } catch (e) {
    expect(e).toBeInstanceOf(CardServiceError)
    return e as CardServiceError
  }
  throw new Error("expected a CardServiceError")
}

describe("client against the sandbox", () => {
  it("tests the connection and fetches a verification code", async () => {
    const client = newClient()
    // The sandbox holds its answer 60 ms: the latency reported is that
    // round trip, so at least 60 ms (less a timer's 1 ms rounding) and at
    // most the whole call as seen from outside.
    sandbox.injectFault({ type: "delay", ms: 60, path: "/authorize" })
    const started = performance.now()
    const result = await client.testConnection()
    const outside = performance.now() - started
    expect(result.ok).toBe(true)
    expect(result.latencyMs).toBeGreaterThanOrEqual(59)
    expect(result.latencyMs).toBeLessThanOrEqual(outside + 0.05)
    await expect(client.getVerificationCode()).resolves.toEqual(
      expect.any(String)
    )
  })

  it("refuses wrong credentials with a credentials error that hides the secret", async () => {
    const client = newClient({ clientSecret: "definitely-wrong-secret" })
    const e = await caught(client.testConnection())
    expect(e).toMatchObject({ category: "credentials", httpStatus: 401 })
    expect(e.message).not.toContain("definitely-wrong-secret")
  })

  it("captures, retrieves, refunds and voids a refund (EUR)", async () => {
    const client = newClient()
    const auth = await authorizePayment(client)
    const authRecord = await client.retrieve(auth.transactionId)
    expect(authRecord).toMatchObject({
      transactionId: auth.transactionId,
      step: "AUTHORIZATION",
      status: "successful",
      reasonCode: "100",
      currencyCode: "978",
      amount: 10.5,
      cardType: "VISA",
      cardSuffix: "1000",
    })

    const capture = await client.capture(followOn(auth.transactionId, 10.5))
    expect(capture).toMatchObject({
      decision: "ACCEPT",
      reasonCode: "100",
      originalTransactionId: auth.transactionId,
    })
    const captureRecord = await client.retrieve(capture.transactionId)
    expect(captureRecord).toMatchObject({
      step: "CAPTURE",
      captureStatus: "PENDING",
      amount: 10.5,
    })

    const refund = await client.refund(followOn(capture.transactionId, 4.25))
    expect(refund.decision).toBe("ACCEPT")

    const voided = await client.void({
      merchantReferenceCode: nextReference(),
      currency: "978",
      amount: toVoidAmount(4.25, "eur"),
      email: "ada@example.com",
      transactionId: refund.transactionId,
      type: "REFUND",
    })
    expect(voided.decision).toBe("ACCEPT")
    await expect(client.retrieve(refund.transactionId)).resolves.toMatchObject({
      step: "REFUND",
      captureStatus: "VOIDED",
    })
  })

  it("handles zero-decimal and three-decimal currencies (JPY, KWD)", async () => {
    const client = newClient()
    const jpy = await authorizePayment(client, {
      amount: "1000",
      currency: "jpy",
    })
    await expect(
      client.capture(followOn(jpy.transactionId, 1000, "jpy"))
    ).resolves.toMatchObject({
      decision: "ACCEPT",
    })
    const kwd = await authorizePayment(client, {
      amount: "1.234",
      currency: "kwd",
    })
    const capture = await client.capture(
      followOn(kwd.transactionId, 1.234, "kwd")
    )
    await expect(client.retrieve(capture.transactionId)).resolves.toMatchObject(
      {
        currencyCode: "414",
        amount: 1.234,
      }
    )
  })

  it("maps state refusals: a second capture, a capture after reverse, too large a capture", async () => {
    const client = newClient()
    const a = await authorizePayment(client)
    await client.capture(followOn(a.transactionId, 10.5))
    const twice = await caught(client.capture(followOn(a.transactionId, 10.5)))
    expect(twice).toMatchObject({
      category: "not_allowed_in_state",
      decision: "REJECT",
      retrySafe: true,
    })
    expect(twice.transactionId).toEqual(expect.any(String))

    const b = await authorizePayment(client)
    await expect(
      client.reverse(followOn(b.transactionId, 10.5))
    ).resolves.toMatchObject({
      decision: "ACCEPT",
    })
    const afterReverse = await caught(
      client.capture(followOn(b.transactionId, 10.5))
    )
    expect(afterReverse).toMatchObject({
      category: "not_allowed_in_state",
      reasonCode: "237",
    })

    const c = await authorizePayment(client)
    const tooLarge = await caught(client.capture(followOn(c.transactionId, 20)))
    expect(tooLarge).toMatchObject({
      category: "not_allowed_in_state",
      reasonCode: "235",
    })
  })

  it("refuses an unknown original transaction (241) and retrieves nothing for an unknown id (404)", async () => {
    const client = newClient()
    const unknown = await caught(client.capture(followOn("999999", 1)))
    expect(unknown).toMatchObject({
      category: "invalid_request",
      reasonCode: "241",
    })
    const missing = await caught(client.retrieve("no-such-transaction"))
    expect(CardServiceError.isNotFound(missing)).toBe(true)
  })

  it("shares one GET /authorize between 200 concurrent operations", async () => {
    const client = newClient()
    const seed = newClient()
    const auth = await authorizePayment(seed)
    const before = authorizeCalls()
    const records = await Promise.all(
      Array.from({ length: 200 }, () => client.retrieve(auth.transactionId))
    )
    expect(records).toHaveLength(200)
    expect(authorizeCalls() - before).toBe(1)
  })

  it("refreshes an expired verification code once and replays the request", async () => {
    const client = newClient()
    const auth = await authorizePayment(client)
    const before = authorizeCalls()
    sandbox.advanceClock(sandbox.verificationTtlMs + 1000)
    try {
      await expect(
        client.capture(followOn(auth.transactionId, 10.5))
      ).resolves.toMatchObject({
        decision: "ACCEPT",
      })
      expect(authorizeCalls() - before).toBe(1)
    } finally {
      sandbox.setClock(Date.now)
    }
  })

  it("turns a wrong verifyId into a credentials error after one refresh", async () => {
    const client = newClient({ verifyId: "not-our-merchant" })
    const before = authorizeCalls()
    const e = await caught(client.retrieve("anything"))
    expect(e).toMatchObject({ category: "credentials", httpStatus: 401 })
    expect(authorizeCalls() - before).toBe(2)
  })

  it("retries a retrieve through 503s", async () => {
    const client = newClient()
    const auth = await authorizePayment(client)
    sandbox.injectFault({
      type: "status",
      status: 503,
      count: 2,
      path: "/payment/retrieve",
    })
    await expect(client.retrieve(auth.transactionId)).resolves.toMatchObject({
      transactionId: auth.transactionId,
    })
  })

  it("does not retry a capture answered 503 with REJECT 150", async () => {
    const client = newClient()
    const auth = await authorizePayment(client)
    sandbox.injectFault({
      type: "status",
      status: 503,
      count: 1,
      path: "/capture",
    })
    const e = await caught(client.capture(followOn(auth.transactionId, 10.5)))
    expect(e).toMatchObject({
      category: "service_error",
      reasonCode: "150",
      httpStatus: 503,
      retrySafe: false,
    })
    // The fault answered without processing, so the capture can now go through.
    await expect(
      client.capture(followOn(auth.transactionId, 10.5))
    ).resolves.toMatchObject({
      decision: "ACCEPT",
    })
  })

  it("reports a capture whose connection dies after processing as indeterminate, without repeating it", async () => {
    const client = newClient()
    const auth = await authorizePayment(client)
    sandbox.injectFault({ type: "destroy", count: 1, path: "/capture" })
    const e = await caught(client.capture(followOn(auth.transactionId, 10.5)))
    expect(e).toMatchObject({ category: "indeterminate", retrySafe: false })
    const captures = sandbox
      .transactions()
      .filter(
        (t) =>
          t.step === "CAPTURE" && t.originalTransactionId === auth.transactionId
      )
    expect(captures).toHaveLength(1)
    expect(captures[0].reasonCode).toBe("100")
    // Reconciling: the service did capture, so another capture is refused.
    const again = await caught(
      client.capture(followOn(auth.transactionId, 10.5))
    )
    expect(again.category).toBe("not_allowed_in_state")
  })

  /** A capture the service answers after 1.5 s: the client's 200 ms headers timeout makes it indeterminate, and it was sent once. */
  async function expectSlowCaptureIndeterminateOnce(client: CardServiceClient) {
    const auth = await authorizePayment(client)
    sandbox.injectFault({ type: "delay", ms: 1500, count: 1, path: "/capture" })
    const e = await caught(client.capture(followOn(auth.transactionId, 10.5)))
    expect(e).toMatchObject({ category: "indeterminate", retrySafe: false })
    expect(e.message).toMatch(/timed out/)
    const captures = sandbox
      .transactions()
      .filter((t) => t.step === "CAPTURE" && t.originalTransactionId === auth.transactionId)
    expect(captures).toHaveLength(1)
  }

  it("times out a slow capture as indeterminate and sends it exactly once", async () => {
    await expectSlowCaptureIndeterminateOnce(newClient({ timeouts: { headersMs: 200 } }))
  })

  it("holds its timeouts on an injected dispatcher too: a slow capture is indeterminate, sent once", async () => {
    // The caller's Agent has undici's 300 s defaults; the client's 200 ms
    // headers timeout must still apply to each of its requests.
    const agent = new Agent()
    try {
      await expectSlowCaptureIndeterminateOnce(newClient({ dispatcher: agent, timeouts: { headersMs: 200 } }))
    } finally {
      await agent.close()
    }
  })

  it("close() releases the connections of its own pool at once", async () => {
    // A service that keeps connections alive; each closed socket is counted.
    const sockets = new Set<import("node:net").Socket>()
    let closedSockets = 0
    let allClosed: () => void = () => undefined
    const service = createServer((req, res) => {
      req.resume()
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ Authorization: "code-for-close-test" }))
    })
    service.keepAliveTimeout = 60_000
    service.on("connection", (socket) => {
      sockets.add(socket)
      socket.on("close", () => {
        closedSockets += 1
        if (closedSockets === sockets.size) allClosed()
      })
    })
    await new Promise<void>((resolve) =>
      service.listen(0, "127.0.0.1", resolve)
    )
    try {
      const port = (service.address() as AddressInfo).port
      const client = newClient({ baseUrl: `http://127.0.0.1:${port}` })
      await expect(client.getVerificationCode()).resolves.toBe(
        "code-for-close-test"
      )
      expect(sockets.size).toBe(1)
      expect(closedSockets).toBe(0)
      const closed = new Promise<void>((resolve) => (allClosed = resolve))
      await client.close()
      // The service offers 60 s of keep-alive and the pool keeps a socket up
      // to 4 s: a socket gone within 2 s was closed by close().
      const outcome = await Promise.race([
        closed.then(() => "closed"),
        new Promise((resolve) => setTimeout(() => resolve("still open"), 2000)),
      ])
      expect(outcome).toBe("closed")
    } finally {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => service.close(() => resolve()))
    }
  })

  it("reports an unreachable service as a retry-safe service_error", async () => {
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve))
    const port = (probe.address() as AddressInfo).port
    await new Promise<void>((resolve) => probe.close(() => resolve()))
    const client = newClient({ baseUrl: `http://127.0.0.1:${port}` })
    const e = await caught(client.capture(followOn("1", 1)))
    expect(e).toMatchObject({ category: "service_error", retrySafe: true })
    expect(e.message).toMatch(/ECONNREFUSED/)
  })
})
