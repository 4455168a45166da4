import { authorizationRecord } from "../../helpers/transaction-records"
import { MockAgent, errors } from "undici"
import type { MockInterceptor } from "undici/types/mock-interceptor"
import {
  CardServiceClient,
  CardServiceError,
  type CardServiceClientOptions,
  type FollowOnInput,
  type VoidInput,
} from "../../../src/lib"

const ORIGIN = "https://cards.test"
const SECRET = "s3cr3t-client-password"
const CODE_1 = "verif-code-aaaa-1111"
const CODE_2 = "verif-code-bbbb-2222"

type ReplyOptions = MockInterceptor.MockResponseCallbackOptions

type Seen = {
  method: string
  path: string
  headers: Record<string, string>
  body?: unknown
}

function headersOf(opts: ReplyOptions): Record<string, string> {
  const out: Record<string, string> = {}
  const raw = opts.headers as Record<string, string> | undefined
  for (const [k, v] of Object.entries(raw ?? {}))
    out[k.toLowerCase()] = String(v)
  return out
}

function record(seen: Seen[], opts: ReplyOptions): void {
  seen.push({
    method: opts.method,
    path: opts.path,
    headers: headersOf(opts),
    body: typeof opts.body === "string" ? JSON.parse(opts.body) : undefined,
  })
}

function setup(overrides: Partial<CardServiceClientOptions> = {}) {
  const agent = new MockAgent()
  agent.disableNetConnect()
  const pool = agent.get(ORIGIN)
  const logs: string[] = []
  const log = (level: string) => (msg: string) => logs.push(`${level} ${msg}`)
  const client = new CardServiceClient({
    baseUrl: ORIGIN,
    clientCode: "client-code-1",
    clientSecret: SECRET,
    verifyId: "verify-1",
    merchantId: "mid-42",
    dispatcher: agent,
    retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 2 },
    logger: {
      debug: log("debug"),
      info: log("info"),
      warn: log("warn"),
      error: log("error"),
    },
    ...overrides,
  })
  const seen: Seen[] = []
  const errorsSeen: unknown[] = []
  return { agent, pool, client, seen, logs, errorsSeen }
}

type Setup = ReturnType<typeof setup>

/** GET /authorize answering the given codes in turn (the last one persists). */
function authorize(s: Setup, codes: string[] = [CODE_1], delayMs = 0) {
  let i = 0
  const scope = s.pool
    .intercept({ path: "/authorize", method: "GET" })
    .reply(200, (opts) => {
      record(s.seen, opts)
      const code = codes[Math.min(i, codes.length - 1)]
      i++
      return { Authorization: code }
    })
  if (delayMs) scope.delay(delayMs)
  scope.persist()
}

const followOn: FollowOnInput = {
  merchantReferenceCode: "order_01",
  currency: "978",
  amount: 10.5,
  email: "shopper@example.com",
  originalTransactionId: "auth-1",
}

const voidInput: VoidInput = {
  merchantReferenceCode: "order_01",
  currency: "978",
  amount: "10.50",
  email: "shopper@example.com",
  transactionId: "cap-1",
  type: "CAPTURE",
}

const accept = (
  transactionId = "tx-new",
  originalTransactionId = "auth-1"
) => ({
  decision: "ACCEPT",
  reasonCode: "100",
  transactionId,
  originalTransactionId,
})

const reject = (reasonCode: string) => ({
  decision: "REJECT",
  reasonCode,
  transactionId: "tx-rej",
  originalTransactionId: "auth-1",
})

async function caught(
  promise: Promise<unknown>,
  s?: Setup
): Promise<CardServiceError> {
  try {
    await promise
  } catch (e) {
    s?.errorsSeen.push(e)
    expect(e).toBeInstanceOf(CardServiceError)
    // Every error any test sees is checked for secrets in that test, so the
    // check holds for whichever subset of tests runs (a file-level afterAll
    // counting errors failed whenever only some tests ran).
    const error = e as CardServiceError
    expectNoSecrets([error.message, JSON.stringify(error.toJSON())])
    return error
  }
  throw new Error("expected a CardServiceError")
}

function count(seen: Seen[], path: string): number {
  return seen.filter((r) => r.path === path).length
}

function expectNoSecrets(texts: string[]): void {
  for (const text of texts) {
    expect(text).not.toContain(SECRET)
    expect(text).not.toContain(CODE_1)
    expect(text).not.toContain(CODE_2)
    expect(text).not.toMatch(/4111\s?1111\s?1111\s?1111/)
  }
}

describe("CardServiceClient operations: request shape and response parsing", () => {
  it("GET /authorize sends clientCode and clientSecret and caches the code", async () => {
    const s = setup()
    authorize(s)
    await expect(s.client.getVerificationCode()).resolves.toBe(CODE_1)
    await expect(s.client.getVerificationCode()).resolves.toBe(CODE_1)
    expect(s.seen).toHaveLength(1)
    expect(s.seen[0]).toMatchObject({
      method: "GET",
      path: "/authorize",
      headers: {
        clientcode: "client-code-1",
        clientsecret: SECRET,
        "content-type": "application/json",
      },
      body: undefined,
    })
  })

  it.each([
    ["reverse", "/reverse"],
    ["capture", "/capture"],
    ["refund", "/refund"],
  ] as const)(
    "%s POSTs the 2.3 fields with merchantId and the 4.3 headers",
    async (op, path) => {
      const s = setup()
      authorize(s)
      s.pool.intercept({ path, method: "POST" }).reply(200, (opts) => {
        record(s.seen, opts)
        return { ...accept(), extraField: "tolerated" }
      })
      const result = await s.client[op](followOn)
      expect(result).toMatchObject({ ...accept(), extraField: "tolerated" })
      const sent = s.seen.find((r) => r.path === path)!
      expect(sent.method).toBe("POST")
      expect(sent.headers).toMatchObject({
        verifyid: "verify-1",
        authorization: CODE_1,
        "content-type": "application/json",
      })
      expect(sent.headers).not.toHaveProperty("clientsecret")
      expect(sent.body).toEqual({
        merchantId: "mid-42",
        merchantReferenceCode: "order_01",
        currency: "978",
        amount: 10.5,
        email: "shopper@example.com",
        originalTransactionId: "auth-1",
      })
    }
  )

  it("void POSTs the 2.4 fields with a string amount and type", async () => {
    const s = setup()
    authorize(s)
    s.pool.intercept({ path: "/void", method: "POST" }).reply(200, (opts) => {
      record(s.seen, opts)
      return accept("void-1", "cap-1")
    })
    await expect(s.client.void(voidInput)).resolves.toMatchObject({
      decision: "ACCEPT",
      transactionId: "void-1",
      originalTransactionId: "cap-1",
    })
    const sent = s.seen.find((r) => r.path === "/void")!
    expect(sent.headers).toMatchObject({
      verifyid: "verify-1",
      authorization: CODE_1,
    })
    expect(sent.body).toEqual({
      merchantId: "mid-42",
      merchantReferenceCode: "order_01",
      currency: "978",
      amount: "10.50",
      email: "shopper@example.com",
      transactionId: "cap-1",
      type: "CAPTURE",
    })
  })

  it("converts an alpha currency to the numeric code before sending", async () => {
    const s = setup()
    authorize(s)
    s.pool
      .intercept({ path: "/capture", method: "POST" })
      .reply(200, (opts) => {
        record(s.seen, opts)
        return accept()
      })
    await s.client.capture({ ...followOn, currency: "eur" })
    expect(s.seen.find((r) => r.path === "/capture")!.body).toMatchObject({
      currency: "978",
    })
  })

  it("keeps a path prefix of baseUrl", async () => {
    const s = setup({ baseUrl: `${ORIGIN}/api/v1/` })
    s.pool
      .intercept({ path: "/api/v1/authorize", method: "GET" })
      .reply(200, { Authorization: CODE_1 })
    s.pool
      .intercept({ path: "/api/v1/capture", method: "POST" })
      .reply(200, accept())
    await expect(s.client.capture(followOn)).resolves.toMatchObject({
      decision: "ACCEPT",
    })
  })

  it("retrieve GETs /payment/retrieve/<merchantId>/<transactionId> and parses the 2.1 record", async () => {
    const s = setup()
    authorize(s)
    const record21 = {
      merchantReferenceCode: "order_01",
      transactionId: "cap-1",
      originalTransactionId: "auth-1",
      step: "CAPTURE",
      reasonCode: "100",
      status: "successful",
      captureStatus: "PENDING",
      message: "ok",
      approvalCode: "A1",
      cardType: "VISA",
      currencyCode: "978",
      amount: 10.5,
      cardPrefix: "411111",
      cardSuffix: "1111",
      somethingNew: true,
    }
    s.pool
      .intercept({ path: "/payment/retrieve/mid-42/cap%201", method: "GET" })
      .reply(200, (opts) => {
        record(s.seen, opts)
        return record21
      })
    await expect(s.client.retrieve("cap 1")).resolves.toEqual(record21)
    const sent = s.seen.find((r) => r.path.startsWith("/payment"))!
    expect(sent.method).toBe("GET")
    expect(sent.body).toBeUndefined()
    expect(sent.headers).toMatchObject({
      verifyid: "verify-1",
      authorization: CODE_1,
      "content-type": "application/json",
    })
  })

  it("retrieve accepts the optional fields missing (MASTERCARD: no cardPrefix; no payout: no captureStatus)", async () => {
    const s = setup()
    authorize(s)
    s.pool
      .intercept({ path: "/payment/retrieve/mid-42/auth-1", method: "GET" })
      .reply(200, {
        merchantReferenceCode: "order_01",
        transactionId: "auth-1",
        originalTransactionId: "",
        step: "AUTHORIZATION",
        reasonCode: "100",
        status: "successful",
        cardType: "MASTER",
        currencyCode: "392",
        amount: 1000,
        cardSuffix: "4444",
      })
    const rec = await s.client.retrieve("auth-1")
    expect(rec.cardPrefix).toBeUndefined()
    expect(rec.captureStatus).toBeUndefined()
    expect(rec.amount).toBe(1000)
  })

  it("testConnection forces a fresh GET /authorize and reports latency", async () => {
    const s = setup()
    // The service takes 40 ms to answer: the latency reported is that
    // exchange, so it is at least the 40 ms (less a timer's 1 ms rounding)
    // and at most the time the whole call took, seen from outside.
    authorize(s, [CODE_1, CODE_2], 40)
    await s.client.getVerificationCode()
    const started = performance.now()
    const result = await s.client.testConnection()
    const outside = performance.now() - started
    expect(result.ok).toBe(true)
    expect(result.latencyMs).toBeGreaterThanOrEqual(39)
    expect(result.latencyMs).toBeLessThanOrEqual(outside + 0.05)
    expect(count(s.seen, "/authorize")).toBe(2)
    await expect(s.client.getVerificationCode()).resolves.toBe(CODE_2)
  })

  it("freshVerificationCode asks GET /authorize every time and never makes a form's code the server's own", async () => {
    const s = setup()
    authorize(s, [CODE_1, CODE_2])
    await expect(s.client.getVerificationCode()).resolves.toBe(CODE_1)
    await expect(s.client.freshVerificationCode()).resolves.toBe(CODE_2)
    expect(count(s.seen, "/authorize")).toBe(2)
    // CODE_2 went into a browser form: the server keeps its own code.
    await expect(s.client.getVerificationCode()).resolves.toBe(CODE_1)
    expect(count(s.seen, "/authorize")).toBe(2)
  })

  it("a form code minted before the server has a code does not become the server's", async () => {
    const s = setup()
    authorize(s, [CODE_1, CODE_2])
    await expect(s.client.freshVerificationCode()).resolves.toBe(CODE_1)
    await expect(s.client.getVerificationCode()).resolves.toBe(CODE_2)
    expect(count(s.seen, "/authorize")).toBe(2)
  })

  it("testConnection throws a credentials error on refused credentials", async () => {
    const s = setup()
    s.pool
      .intercept({ path: "/authorize", method: "GET" })
      .reply(401, { error: "invalid_client", message: "unknown client" })
    const e = await caught(s.client.testConnection(), s)
    expect(e.category).toBe("credentials")
    expect(e.httpStatus).toBe(401)
    expect(e.message).toMatch(/invalid_client/)
  })
})

describe("request validation: a bad request is our bug and is never sent", () => {
  it.each([
    ["unknown currency", { currency: "xyz" }, /currency/],
    ["amount with too many digits", { amount: 10.555 }, /amount/],
    ["zero amount", { amount: 0 }, /amount/],
    [
      "empty originalTransactionId",
      { originalTransactionId: "" },
      /originalTransactionId/,
    ],
    ["bad email", { email: "nope" }, /email/],
    ["JPY with decimals", { currency: "392", amount: 1000.5 }, /amount/],
  ])("%s", async (_name, patch, field) => {
    const s = setup()
    const e = await caught(
      s.client.capture({ ...followOn, ...patch } as FollowOnInput),
      s
    )
    expect(e.category).toBe("invalid_request")
    expect(e.retrySafe).toBe(true)
    expect(e.message).toMatch(field)
    expect(e.message).toMatch(/not sent/)
    expect(s.seen).toHaveLength(0)
  })

  it.each([
    [{ amount: "10.5" }, /exactly/],
    [{ amount: 10.5 as unknown as string }, /amount/],
    [{ type: "AUTHORIZATION" as "CAPTURE" }, /type/],
  ])("void %p", async (patch, field) => {
    const s = setup()
    const e = await caught(s.client.void({ ...voidInput, ...patch }), s)
    expect(e.category).toBe("invalid_request")
    expect(e.message).toMatch(field)
  })

  it("retrieve refuses an empty transaction id", async () => {
    const s = setup()
    const e = await caught(s.client.retrieve(""), s)
    expect(e.category).toBe("invalid_request")
  })

  it("bad options are refused without echoing the secret", () => {
    expect(
      () =>
        new CardServiceClient({
          baseUrl: "not a url",
          clientCode: "c",
          clientSecret: SECRET,
          verifyId: "",
          merchantId: "m",
        })
    ).toThrow(/baseUrl.*verifyId|verifyId.*baseUrl/s)
    let refusal: unknown
    try {
      new CardServiceClient({
        baseUrl: "x",
        clientCode: "",
        clientSecret: SECRET,
        verifyId: "v",
        merchantId: "m",
      })
    } catch (e) {
      refusal = e
    }
    // Checked outside the catch: a constructor that accepted these options
    // must fail the test, not skip the check.
    expect(refusal).toBeInstanceOf(Error)
    const message = (refusal as Error).message
    expect(message).toMatch(/baseUrl/)
    expect(message).toMatch(/clientCode/)
    expect(message).not.toContain(SECRET)
  })
})

describe("error categories", () => {
  it.each([
    ["203", "declined", true, "DCARDREFUSED"],
    ["204", "declined", true, "DCARDREFUSED"],
    ["481", "declined", true, "DREJECT"],
    ["101", "invalid_request", true, "DMISSINGFIELD"],
    ["102", "invalid_request", true, "DINVALIDDATA"],
    ["241", "invalid_request", true, "DINVALIDDATA"],
    ["235", "not_allowed_in_state", true, "DINVALIDDATA"],
    ["237", "not_allowed_in_state", true, "DINVALIDDATA"],
    ["242", "not_allowed_in_state", true, "DNOAUTH"],
    ["246", "not_allowed_in_state", true, "DNOTVOIDABLE"],
    ["150", "service_error", false, "ESYSTEM"],
    ["151", "service_error", false, "ETIMEOUT"],
    ["152", "service_error", false, "ETIMEOUT"],
    ["250", "service_error", false, "ETIMEOUT"],
    ["999", "declined", true, null],
  ])(
    "REJECT %s -> %s (retrySafe %p)",
    async (code, category, retrySafe, flag) => {
      const s = setup()
      authorize(s)
      s.pool
        .intercept({ path: "/capture", method: "POST" })
        .reply(200, reject(code))
      const e = await caught(s.client.capture(followOn), s)
      expect(e.category).toBe(category)
      expect(e.retrySafe).toBe(retrySafe)
      expect(e.decision).toBe("REJECT")
      expect(e.reasonCode).toBe(code)
      expect(e.flag ?? null).toBe(flag)
      expect(e.transactionId).toBe("tx-rej")
      expect(e.operation).toBe("capture")
      expect(e.httpStatus).toBe(200)
      expect(e.message).toContain("capture")
      expect(e.message).toContain(code)
      if (e.reasonMeaning) expect(e.message).toContain(e.reasonMeaning)
      expectNoSecrets([e.message])
    }
  )

  it("a 400 with the 2.5 shape (malformed body, wire-choices) is invalid_request", async () => {
    const s = setup()
    authorize(s)
    s.pool
      .intercept({ path: "/refund", method: "POST" })
      .reply(400, { decision: "REJECT", reasonCode: "102" })
    const e = await caught(s.client.refund(followOn), s)
    expect(e).toMatchObject({
      category: "invalid_request",
      httpStatus: 400,
      reasonCode: "102",
      retrySafe: true,
    })
  })

  it("a 5xx carrying a 2.5 REJECT 150 is a service_error with the verdict", async () => {
    const s = setup()
    authorize(s)
    s.pool
      .intercept({ path: "/capture", method: "POST" })
      .reply(503, { decision: "REJECT", reasonCode: "150" })
    const e = await caught(s.client.capture(followOn), s)
    expect(e).toMatchObject({
      category: "service_error",
      httpStatus: 503,
      reasonCode: "150",
      retrySafe: false,
    })
  })

  it("a 5xx with no parsable 2.5 body after sending a capture is indeterminate", async () => {
    const s = setup()
    authorize(s)
    s.pool
      .intercept({ path: "/capture", method: "POST" })
      .reply(502, "<html>Bad gateway</html>")
    const e = await caught(s.client.capture(followOn), s)
    expect(e).toMatchObject({
      category: "indeterminate",
      httpStatus: 502,
      retrySafe: false,
    })
    expect(CardServiceError.isIndeterminate(e)).toBe(true)
    expect(e.message).toMatch(/retrieve/)
  })

  it("a 404 on retrieve is invalid_request and isNotFound", async () => {
    const s = setup()
    authorize(s)
    s.pool
      .intercept({ path: "/payment/retrieve/mid-42/nope", method: "GET" })
      .reply(404, { error: "not_found" })
    const e = await caught(s.client.retrieve("nope"), s)
    expect(e).toMatchObject({
      category: "invalid_request",
      httpStatus: 404,
      retrySafe: true,
    })
    expect(CardServiceError.isNotFound(e)).toBe(true)
  })

  it("a 401 on /authorize is a credentials error and is not retried", async () => {
    const s = setup()
    s.pool
      .intercept({ path: "/authorize", method: "GET" })
      .reply(401, (opts) => {
        record(s.seen, opts)
        return { error: "invalid_client", message: `bad secret ${SECRET}` }
      })
      .persist()
    const e = await caught(s.client.capture(followOn), s)
    expect(e.category).toBe("credentials")
    expect(e.operation).toBe("capture")
    expect(e.message).toMatch(/not sent/)
    expect(count(s.seen, "/authorize")).toBe(1)
    expectNoSecrets([e.message])
  })

  it("a connect failure before sending a capture is a retry-safe service_error", async () => {
    const s = setup()
    authorize(s)
    const refused = Object.assign(
      new Error("connect ECONNREFUSED 127.0.0.1:443"),
      { code: "ECONNREFUSED" }
    )
    s.pool
      .intercept({ path: "/capture", method: "POST" })
      .replyWithError(refused)
    const e = await caught(s.client.capture(followOn), s)
    expect(e).toMatchObject({ category: "service_error", retrySafe: true })
    expect(e.message).toMatch(/ECONNREFUSED/)
  })

  it("a connect timeout is a retry-safe service_error too", async () => {
    const s = setup()
    authorize(s)
    s.pool
      .intercept({ path: "/refund", method: "POST" })
      .replyWithError(new errors.ConnectTimeoutError())
    const e = await caught(s.client.refund(followOn), s)
    expect(e).toMatchObject({ category: "service_error", retrySafe: true })
  })

  it("a 200 with an unexpected body is invalid_response naming the fields", async () => {
    const s = setup()
    authorize(s)
    s.pool.intercept({ path: "/capture", method: "POST" }).reply(200, {
      decision: "MAYBE",
      reasonCode: "100",
      originalTransactionId: "auth-1",
    })
    const e = await caught(s.client.capture(followOn), s)
    expect(e.category).toBe("invalid_response")
    expect(e.retrySafe).toBe(false)
    expect(e.message).toMatch(/decision/)
    expect(e.message).toMatch(/transactionId/)
  })

  it("a 200 that is not JSON is invalid_response", async () => {
    const s = setup()
    authorize(s)
    s.pool.intercept({ path: "/void", method: "POST" }).reply(200, "OK")
    const e = await caught(s.client.void(voidInput), s)
    expect(e.category).toBe("invalid_response")
  })

  it("a retrieve record with a mistyped field is invalid_response naming it", async () => {
    const s = setup()
    authorize(s)
    s.pool
      .intercept({ path: "/payment/retrieve/mid-42/t1", method: "GET" })
      .reply(200, {
        merchantReferenceCode: "o",
        transactionId: "t1",
        originalTransactionId: "",
        step: "CAPTURE",
        reasonCode: "100",
        status: "ok?",
        captureStatus: "DONE",
        cardType: "VISA",
        currencyCode: "978",
        amount: "lots",
        cardSuffix: "1111",
      })
    const e = await caught(s.client.retrieve("t1"), s)
    expect(e.category).toBe("invalid_response")
    expect(e.retrySafe).toBe(true)
    expect(e.message).toMatch(/status/)
    expect(e.message).toMatch(/captureStatus/)
    expect(e.message).toMatch(/amount/)
  })

  it("an /authorize answer without Authorization is invalid_response", async () => {
    const s = setup()
    s.pool
      .intercept({ path: "/authorize", method: "GET" })
      .reply(200, { token: "x" })
    const e = await caught(s.client.getVerificationCode(), s)
    expect(e.category).toBe("invalid_response")
    expect(e.message).toMatch(/Authorization/)
  })

  it("ACCEPT with 110 (partial approval) is a result, REJECT with 100 is invalid_response", async () => {
    const s = setup()
    authorize(s)
    s.pool
      .intercept({ path: "/capture", method: "POST" })
      .reply(200, { ...accept(), reasonCode: "110" })
    await expect(s.client.capture(followOn)).resolves.toMatchObject({
      reasonCode: "110",
    })
    s.pool
      .intercept({ path: "/capture", method: "POST" })
      .reply(200, reject("100"))
    const e = await caught(s.client.capture(followOn), s)
    expect(e.category).toBe("invalid_response")
  })
})

describe("verification code: single flight and refresh once", () => {
  it("200 concurrent operations cause exactly one GET /authorize", async () => {
    const s = setup()
    authorize(s, [CODE_1], 20)
    s.pool
      .intercept({ path: "/capture", method: "POST" })
      .reply(200, (opts) => {
        record(s.seen, opts)
        return accept()
      })
      .persist()
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        s.client.capture({ ...followOn, merchantReferenceCode: `order_${i}` })
      )
    )
    expect(results).toHaveLength(200)
    expect(count(s.seen, "/authorize")).toBe(1)
    expect(count(s.seen, "/capture")).toBe(200)
    expect(
      s.seen
        .filter((r) => r.path === "/capture")
        .every((r) => r.headers.authorization === CODE_1)
    ).toBe(true)
  })

  it("a rejected code is refreshed once and the request replayed once", async () => {
    const s = setup()
    authorize(s, [CODE_1, CODE_2])
    s.pool
      .intercept({ path: "/capture", method: "POST" })
      .reply<object>((opts) => {
        record(s.seen, opts)
        const ok = headersOf(opts).authorization === CODE_2
        return ok
          ? { statusCode: 200, data: accept() }
          : {
              statusCode: 401,
              data: { error: "invalid_authorization", message: "expired" },
            }
      })
      .persist()
    await expect(s.client.capture(followOn)).resolves.toMatchObject({
      decision: "ACCEPT",
    })
    expect(count(s.seen, "/authorize")).toBe(2)
    expect(
      s.seen
        .filter((r) => r.path === "/capture")
        .map((r) => r.headers.authorization)
    ).toEqual([CODE_1, CODE_2])
    // The refreshed code is the one cached from now on.
    await s.client.capture(followOn)
    expect(count(s.seen, "/authorize")).toBe(2)
  })

  it("100 concurrent callers hitting an expired code refresh it once", async () => {
    const s = setup()
    authorize(s, [CODE_1, CODE_2], 5)
    s.pool
      .intercept({ path: "/payment/retrieve/mid-42/t1", method: "GET" })
      .reply<object>((opts) => {
        record(s.seen, opts)
        return headersOf(opts).authorization === CODE_2
          ? {
              statusCode: 200,
              data: authorizationRecord(),
            }
          : { statusCode: 401, data: { error: "invalid_authorization" } }
      })
      .persist()
    await s.client.getVerificationCode()
    await Promise.all(
      Array.from({ length: 100 }, () => s.client.retrieve("t1"))
    )
    expect(count(s.seen, "/authorize")).toBe(2)
  })

  it("a code rejected twice becomes a clear credentials error without leaking it", async () => {
    const s = setup()
    authorize(s, [CODE_1, CODE_2])
    s.pool
      .intercept({ path: "/capture", method: "POST" })
      .reply(401, (opts) => {
        record(s.seen, opts)
        const code = headersOf(opts).authorization
        return {
          error: "invalid_authorization",
          message: `code ${code} not valid`,
        }
      })
      .persist()
    const e = await caught(s.client.capture(followOn), s)
    expect(e).toMatchObject({
      category: "credentials",
      httpStatus: 401,
      operation: "capture",
    })
    expect(e.message).toMatch(/verifyId/)
    expect(count(s.seen, "/authorize")).toBe(2)
    expect(count(s.seen, "/capture")).toBe(2)
    expectNoSecrets([e.message])
  })

  it("a failed /authorize is not cached: the next call tries again", async () => {
    const s = setup({ retry: { attempts: 1 } })
    s.pool.intercept({ path: "/authorize", method: "GET" }).reply(503, "down")
    s.pool
      .intercept({ path: "/authorize", method: "GET" })
      .reply(200, { Authorization: CODE_1 })
    const e = await caught(s.client.getVerificationCode(), s)
    expect(e.category).toBe("service_error")
    await expect(s.client.getVerificationCode()).resolves.toBe(CODE_1)
  })

  it("never expires the code on a timer", async () => {
    jest.useFakeTimers({
      doNotFake: ["nextTick", "setImmediate", "queueMicrotask"],
    })
    try {
      const s = setup()
      authorize(s, [CODE_1, CODE_2])
      await s.client.getVerificationCode()
      jest.advanceTimersByTime(24 * 60 * 60 * 1000)
      await expect(s.client.getVerificationCode()).resolves.toBe(CODE_1)
      expect(count(s.seen, "/authorize")).toBe(1)
    } finally {
      jest.useRealTimers()
    }
  })
})

describe("an oversized answer is not read to the end", () => {
  const huge = `{"pad":"${"x".repeat(2 * 1024 * 1024)}"}`

  it("a capture answered with over 1 MiB is indeterminate and not repeated", async () => {
    const s = setup()
    authorize(s)
    let calls = 0
    s.pool
      .intercept({ path: "/capture", method: "POST" })
      .reply(200, () => {
        calls++
        return huge
      })
      .persist()
    const e = await caught(s.client.capture(followOn), s)
    expect(e).toMatchObject({ category: "indeterminate", retrySafe: false })
    expect(e.message).toContain("CARD_SERVICE_RESPONSE_TOO_LARGE")
    expect(calls).toBe(1)
  })

  it("a retrieve answered with over 1 MiB is retried, then a service_error", async () => {
    const s = setup()
    authorize(s)
    let calls = 0
    s.pool
      .intercept({ path: "/payment/retrieve/mid-42/t1", method: "GET" })
      .reply(200, () => {
        calls++
        return huge
      })
      .persist()
    const e = await caught(s.client.retrieve("t1"), s)
    expect(e).toMatchObject({ category: "service_error", retrySafe: true })
    expect(e.message).toMatch(/CARD_SERVICE_RESPONSE_TOO_LARGE.*3 tries/)
    expect(calls).toBe(3)
  })
})

describe("retries: only GETs, only transport failures and 5xx", () => {
  it("GET /authorize is retried after a socket error and a 503", async () => {
    const s = setup()
    s.pool
      .intercept({ path: "/authorize", method: "GET" })
      .replyWithError(new errors.SocketError("other side closed"))
    s.pool.intercept({ path: "/authorize", method: "GET" }).reply(503, "busy")
    s.pool
      .intercept({ path: "/authorize", method: "GET" })
      .reply(200, { Authorization: CODE_1 })
    await expect(s.client.getVerificationCode()).resolves.toBe(CODE_1)
    expect(
      s.logs.filter((l) => l.startsWith("warn")).length
    ).toBeGreaterThanOrEqual(2)
    s.agent.assertNoPendingInterceptors()
  })

  it("retrieve is retried after a headers timeout and succeeds", async () => {
    const s = setup()
    authorize(s)
    s.pool
      .intercept({ path: "/payment/retrieve/mid-42/t1", method: "GET" })
      .replyWithError(new errors.HeadersTimeoutError())
    s.pool
      .intercept({ path: "/payment/retrieve/mid-42/t1", method: "GET" })
      .reply(200, authorizationRecord())
    await expect(s.client.retrieve("t1")).resolves.toMatchObject({
      transactionId: "t1",
    })
    s.agent.assertNoPendingInterceptors()
  })

  it("retrieve gives up after the configured attempts with a timeout error", async () => {
    const s = setup()
    authorize(s)
    let tries = 0
    for (let i = 0; i < 3; i++) {
      s.pool
        .intercept({ path: "/payment/retrieve/mid-42/t1", method: "GET" })
        .replyWithError(new errors.HeadersTimeoutError())
    }
    s.pool
      .intercept({ path: "/payment/retrieve/mid-42/t1", method: "GET" })
      .reply(200, () => {
        tries++
        return {}
      })
    const e = await caught(s.client.retrieve("t1"), s)
    expect(e).toMatchObject({ category: "timeout", retrySafe: true })
    expect(e.message).toMatch(/3 tries/)
    expect(tries).toBe(0)
  })

  it("retrieve gives up on a persistent 5xx with a service_error", async () => {
    const s = setup()
    authorize(s)
    s.pool
      .intercept({ path: "/payment/retrieve/mid-42/t1", method: "GET" })
      .reply(500, { decision: "REJECT", reasonCode: "150" })
      .times(3)
    const e = await caught(s.client.retrieve("t1"), s)
    expect(e).toMatchObject({
      category: "service_error",
      httpStatus: 500,
      reasonCode: "150",
      retrySafe: true,
    })
    s.agent.assertNoPendingInterceptors()
  })

  it("a 4xx on a GET is not retried", async () => {
    const s = setup()
    authorize(s)
    s.pool
      .intercept({ path: "/payment/retrieve/mid-42/t1", method: "GET" })
      .reply(404, { error: "not_found" })
    s.pool
      .intercept({ path: "/payment/retrieve/mid-42/t1", method: "GET" })
      .reply(200, {})
    await caught(s.client.retrieve("t1"), s)
    expect(s.agent.pendingInterceptors()).toHaveLength(1)
  })

  it.each([
    ["headers timeout", () => new errors.HeadersTimeoutError()],
    ["body timeout", () => new errors.BodyTimeoutError()],
    [
      "connection reset",
      () => Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }),
    ],
    ["socket closed", () => new errors.SocketError("other side closed")],
  ])(
    "a capture that fails with %s after sending is NOT retried and is indeterminate",
    async (_name, make) => {
      const s = setup()
      authorize(s)
      let repeats = 0
      s.pool
        .intercept({ path: "/capture", method: "POST" })
        .replyWithError(make())
      s.pool
        .intercept({ path: "/capture", method: "POST" })
        .reply(200, () => {
          repeats++
          return accept()
        })
        .persist()
      const e = await caught(s.client.capture(followOn), s)
      expect(e).toMatchObject({
        category: "indeterminate",
        retrySafe: false,
        operation: "capture",
      })
      expect(e.message).toMatch(/reconcile by retrieve/)
      expect(repeats).toBe(0)
    }
  )

  it.each(["reverse", "refund"] as const)(
    "%s with a 503 is not retried",
    async (op) => {
      const s = setup()
      authorize(s)
      let repeats = 0
      s.pool.intercept({ path: `/${op}`, method: "POST" }).reply(503, "")
      s.pool
        .intercept({ path: `/${op}`, method: "POST" })
        .reply(200, () => {
          repeats++
          return accept()
        })
        .persist()
      const e = await caught(s.client[op](followOn), s)
      expect(e.category).toBe("indeterminate")
      expect(repeats).toBe(0)
    }
  )

  it("a void that times out is indeterminate and not repeated", async () => {
    const s = setup()
    authorize(s)
    s.pool
      .intercept({ path: "/void", method: "POST" })
      .replyWithError(new errors.HeadersTimeoutError())
    const e = await caught(s.client.void(voidInput), s)
    expect(e.category).toBe("indeterminate")
    s.agent.assertNoPendingInterceptors()
  })

  it("a closed client refuses before sending", async () => {
    const s = setup()
    authorize(s)
    await s.client.getVerificationCode()
    await s.client.close()
    const e = await caught(s.client.capture(followOn), s)
    expect(e).toMatchObject({ category: "service_error", retrySafe: true })
  })
})

describe("secrets stay out of errors and logs", () => {
  it("no error or log line of a busy session contains the secret, a code or a card number", async () => {
    const s = setup()
    authorize(s, [CODE_1, CODE_2])
    s.pool
      .intercept({ path: "/capture", method: "POST" })
      .reply(401, {
        error: "invalid_authorization",
        message: `code ${CODE_1} expired; secret ${SECRET}; card 4111111111111111`,
      })
      .times(2)
    s.pool
      .intercept({ path: "/refund", method: "POST" })
      .reply(500, { error: "boom", message: `card 4111 1111 1111 1111` })
    s.pool
      .intercept({ path: "/void", method: "POST" })
      .reply(200, reject("203"))
    s.pool
      .intercept({ path: "/payment/retrieve/mid-42/t1", method: "GET" })
      .reply(400, { error: `bad ${CODE_2}` })
    const all = [
      await caught(s.client.capture(followOn), s),
      await caught(s.client.refund(followOn), s),
      await caught(s.client.void(voidInput), s),
      await caught(s.client.retrieve("t1"), s),
    ]
    const texts = [
      ...all.map((e) => e.message),
      ...all.map((e) => JSON.stringify(e.toJSON())),
      ...s.logs,
    ]
    expect(s.logs.length).toBeGreaterThan(0)
    expectNoSecrets(texts)
  })
})
