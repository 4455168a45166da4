import { authorizationRecord } from "../../helpers/transaction-records"
import { MockAgent, type Dispatcher } from "undici"
import type { MockInterceptor } from "undici/types/mock-interceptor"
import {
  CardServiceClient,
  CardServiceError,
  type CardServiceClientOptions,
  type FollowOnInput,
} from "../../../src/lib"

/**
 * The client's transport rules as the card service and the merchant see
 * them: when a failed request is sent again and after how long, which
 * failures leave a money operation safe to repeat and which make it
 * indeterminate, which credential a request carries, and which codes an
 * error may never show. Unit ring: undici's MockAgent, no network.
 */

const ORIGIN = "https://cards.test"
const SECRET = "s3cr3t-client-password"
const CODE_1 = "verif-code-aaaa-1111"
const CODE_2 = "verif-code-bbbb-2222"
const CODE_3 = "verif-code-cccc-3333"
const RETRIEVE = "/payment/retrieve/mid-42/t1"

type ReplyOptions = MockInterceptor.MockResponseCallbackOptions

const followOn: FollowOnInput = {
  merchantReferenceCode: "order_01",
  currency: "978",
  amount: 10.5,
  email: "shopper@example.com",
  originalTransactionId: "auth-1",
}

const accept = {
  decision: "ACCEPT",
  reasonCode: "100",
  transactionId: "cap-1",
  originalTransactionId: "auth-1",
}

const record21 = authorizationRecord()

function authorizationOf(opts: ReplyOptions): string | undefined {
  const raw = (opts.headers ?? {}) as Record<string, string>
  for (const [k, v] of Object.entries(raw)) {
    if (k.toLowerCase() === "authorization") return String(v)
  }
  return undefined
}

function setup(
  overrides: Partial<CardServiceClientOptions> = {},
  holdPath?: string
) {
  const agent = new MockAgent()
  agent.disableNetConnect()
  const pool = agent.get(ORIGIN)
  const hold = holdFirst(agent, holdPath)
  const client = new CardServiceClient({
    baseUrl: ORIGIN,
    clientCode: "client-code-1",
    clientSecret: SECRET,
    verifyId: "verify-1",
    merchantId: "mid-42",
    dispatcher: hold.dispatcher,
    retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 2 },
    ...overrides,
  })
  return { agent, pool, client, held: hold.held, release: hold.release }
}

/**
 * The agent, except that the first request to `path` is held back until
 * release(): races are ordered by events, not by delays a loaded machine
 * could stretch.
 */
function holdFirst(agent: MockAgent, path?: string) {
  let release: () => void = () => undefined
  let heldNow: () => void = () => undefined
  const gate = new Promise<void>((resolve) => (release = resolve))
  const held = new Promise<void>((resolve) => (heldNow = resolve))
  let holding = path !== undefined
  const dispatcher = {
    dispatch(
      opts: Dispatcher.DispatchOptions,
      handler: Dispatcher.DispatchHandler
    ): boolean {
      if (holding && opts.path === path) {
        holding = false
        heldNow()
        void gate.then(() => agent.dispatch(opts, handler))
        return true
      }
      return agent.dispatch(opts, handler)
    },
  } as unknown as Dispatcher
  return { dispatcher, held, release }
}

/** GET /authorize answering the given codes in turn (the last one persists). */
/** Answers every capture with an acceptance and counts those that arrive. */
function acceptCaptures(pool: ReturnType<MockAgent["get"]>): { calls: () => number } {
  let calls = 0
  pool
    .intercept({ path: "/capture", method: "POST" })
    .reply(200, () => {
      calls++
      return accept
    })
    .persist()
  return { calls: () => calls }
}

/**
 * Captures answered by the code they carry: accepted when `accepts` says so,
 * else 401 invalid_authorization. The codes seen, in order of arrival.
 */
function capturesByCode(
  pool: ReturnType<MockAgent["get"]>,
  accepts: (code: string | undefined) => boolean
): (string | undefined)[] {
  const seen: (string | undefined)[] = []
  pool
    .intercept({ path: "/capture", method: "POST" })
    .reply<object>((opts) => {
      const code = authorizationOf(opts)
      seen.push(code)
      return accepts(code)
        ? { statusCode: 200, data: accept }
        : { statusCode: 401, data: { error: "invalid_authorization" } }
    })
    .persist()
  return seen
}

/** A failed GET /authorize in a sequence of codes served. */
const FETCH_FAILS = 503

function serveCodes(
  pool: ReturnType<MockAgent["get"]>,
  codes: (string | typeof FETCH_FAILS)[],
  delayMs = 0
): { calls: () => number } {
  let i = 0
  const scope = pool
    .intercept({ path: "/authorize", method: "GET" })
    .reply<object>(() => {
      const code = codes[Math.min(i, codes.length - 1)]
      i++
      return code === FETCH_FAILS
        ? { statusCode: 503, data: "down" }
        : { statusCode: 200, data: { Authorization: code } }
    })
  if (delayMs) scope.delay(delayMs)
  scope.persist()
  return { calls: () => i }
}

async function caught(promise: Promise<unknown>): Promise<CardServiceError> {
  let error: unknown
  try {
    await promise
  } catch (e) {
    error = e
  }
  // Checked outside the catch: a call that resolved must fail the test.
  expect(error).toBeInstanceOf(CardServiceError)
  const e = error as CardServiceError
  for (const text of [e.message, JSON.stringify(e.toJSON())]) {
    for (const secret of [SECRET, CODE_1, CODE_2, CODE_3]) {
      expect(text).not.toContain(secret)
    }
  }
  return e
}

function coded(code: string, message = `failed: ${code}`): Error {
  return Object.assign(new Error(message), { code })
}

describe("when a safe request is tried again: jittered exponential backoff, capped", () => {
  afterEach(() => {
    jest.useRealTimers()
    jest.restoreAllMocks()
  })

  it("waits random * min(maxDelayMs, baseDelayMs * 2^(try-1)) before each new try", async () => {
    jest.useFakeTimers({
      doNotFake: ["nextTick", "setImmediate", "queueMicrotask"],
    })
    // Half of each ceiling: ceilings 100, 200, then 400 capped at 250.
    jest.spyOn(Math, "random").mockReturnValue(0.5)
    const { pool, client } = setup({
      retry: { attempts: 4, baseDelayMs: 100, maxDelayMs: 250 },
    })
    serveCodes(pool, [CODE_1])
    await client.getVerificationCode()
    const sentAt: number[] = []
    const start = Date.now()
    let tries = 0
    pool
      .intercept({ path: RETRIEVE, method: "GET" })
      .reply<object>(() => {
        sentAt.push(Date.now() - start)
        tries++
        return tries < 4
          ? { statusCode: 503, data: "busy" }
          : { statusCode: 200, data: record21 }
      })
      .persist()
    const result = client.retrieve("t1")
    // Nothing is re-sent before its delay is over.
    await jest.advanceTimersByTimeAsync(49)
    expect(sentAt).toEqual([0])
    await jest.advanceTimersByTimeAsync(1000)
    await expect(result).resolves.toMatchObject({ transactionId: "t1" })
    expect(sentAt).toEqual([0, 50, 150, 275])
  })
})

describe("which transport failures leave a capture safe to send again", () => {
  // Failures while connecting or refused before writing: nothing reached the
  // service, so the merchant may send the capture again.
  it.each([
    ["ECONNREFUSED"],
    ["ENOTFOUND"],
    ["EAI_AGAIN"],
    ["EHOSTUNREACH"],
    ["ENETUNREACH"],
    ["EADDRNOTAVAIL"],
    ["UND_ERR_CONNECT_TIMEOUT"],
    ["UND_ERR_CLOSED"],
    ["UND_ERR_INVALID_ARG"],
    ["UND_MOCK_ERR_MOCK_NOT_MATCHED"],
    ["ERR_TLS_CERT_ALTNAME_INVALID"],
    ["ERR_SSL_WRONG_VERSION_NUMBER"],
    ["CERT_HAS_EXPIRED"],
    ["DEPTH_ZERO_SELF_SIGNED_CERT"],
    ["SELF_SIGNED_CERT_IN_CHAIN"],
    ["UNABLE_TO_VERIFY_LEAF_SIGNATURE"],
  ])(
    "%s before sending: a retry-safe service_error, sent once, nothing repeated",
    async (code) => {
      const { pool, client } = setup()
      serveCodes(pool, [CODE_1])
      let repeats = 0
      pool
        .intercept({ path: "/capture", method: "POST" })
        .replyWithError(coded(code))
      pool
        .intercept({ path: "/capture", method: "POST" })
        .reply(200, () => {
          repeats++
          return accept
        })
        .persist()
      const e = await caught(client.capture(followOn))
      expect(e).toMatchObject({
        category: "service_error",
        retrySafe: true,
        operation: "capture",
      })
      expect(e.message).toMatch(/nothing was sent/)
      expect(e.message).toContain(code)
      expect(repeats).toBe(0)
    }
  )

  // Anything else may have reached the service: the capture is indeterminate.
  it.each([
    ["ECONNRESET"],
    ["EPIPE"],
    ["ETIMEDOUT"],
    ["UND_ERR_SOCKET"],
    // Near misses of the TLS handshake rules: not handshake failures.
    ["XERR_TLS_X"],
    ["X_CERT_X"],
  ])("%s: an indeterminate capture, not repeated", async (code) => {
    const { pool, client } = setup()
    serveCodes(pool, [CODE_1])
    pool
      .intercept({ path: "/capture", method: "POST" })
      .replyWithError(coded(code))
    const e = await caught(client.capture(followOn))
    expect(e).toMatchObject({
      category: "indeterminate",
      retrySafe: false,
    })
  })

  it("Node's AggregateError of connect attempts is judged by its first attempt", async () => {
    const { pool, client } = setup()
    serveCodes(pool, [CODE_1])
    const aggregate = new AggregateError(
      [coded("ECONNREFUSED"), coded("ECONNRESET")],
      "all attempts failed"
    )
    pool
      .intercept({ path: "/capture", method: "POST" })
      .replyWithError(aggregate)
    const e = await caught(client.capture(followOn))
    expect(e).toMatchObject({ category: "service_error", retrySafe: true })
    expect(e.message).toContain("ECONNREFUSED")
  })

  it("an error without a code of its own is judged by its cause", async () => {
    const { pool, client } = setup()
    serveCodes(pool, [CODE_1])
    // An empty code and an empty attempt list say nothing: the cause decides.
    const wrapped = Object.assign(
      new Error("fetch failed", { cause: coded("ENOTFOUND") }),
      { code: "", errors: [] }
    )
    pool.intercept({ path: "/capture", method: "POST" }).replyWithError(wrapped)
    const e = await caught(client.capture(followOn))
    expect(e).toMatchObject({ category: "service_error", retrySafe: true })
    expect(e.message).toContain("ENOTFOUND")
  })

  it("a failure nobody can place (no code, no cause) is treated as sent", async () => {
    const { pool, client } = setup()
    serveCodes(pool, [CODE_1])
    pool
      .intercept({ path: "/capture", method: "POST" })
      .replyWithError(Object.assign(new Error("odd"), { code: 42 }))
    const e = await caught(client.capture(followOn))
    expect(e).toMatchObject({ category: "indeterminate", retrySafe: false })
    expect(e.message).toContain("UNKNOWN")
  })
})

describe("which failures of a safe request are timeouts", () => {
  it.each([
    ["UND_ERR_HEADERS_TIMEOUT", "timeout"],
    ["UND_ERR_BODY_TIMEOUT", "timeout"],
    ["ETIMEDOUT", "timeout"],
    ["ECONNRESET", "service_error"],
  ])(
    "a retrieve failing with %s on every try is a %s after all tries",
    async (code, category) => {
      const { pool, client } = setup()
      serveCodes(pool, [CODE_1])
      let tries = 0
      pool
        .intercept({ path: RETRIEVE, method: "GET" })
        .replyWithError(coded(code))
        .times(3)
      pool.intercept({ path: RETRIEVE, method: "GET" }).reply(200, () => {
        tries++
        return record21
      })
      const e = await caught(client.retrieve("t1"))
      expect(e).toMatchObject({ category, retrySafe: true })
      expect(e.message).toMatch(/3 tries/)
      expect(tries).toBe(0)
    }
  )
})

describe("which credential goes where", () => {
  it("a capture whose code cannot be fetched is never sent and names the capture", async () => {
    const { pool, client } = setup({ retry: { attempts: 1 } })
    pool.intercept({ path: "/authorize", method: "GET" }).reply(503, "down")
    const captures = acceptCaptures(pool)
    const e = await caught(client.capture(followOn))
    expect(e).toMatchObject({
      category: "service_error",
      operation: "capture",
      retrySafe: true,
      httpStatus: 503,
    })
    expect(e.message).toMatch(/not sent/)
    expect(captures.calls()).toBe(0)
  })

  it("a replay after a rejected code carries the new code and is sent once more only", async () => {
    const { pool, client } = setup()
    const codes = serveCodes(pool, [CODE_1, CODE_2])
    const seen: (string | undefined)[] = []
    pool
      .intercept({ path: "/refund", method: "POST" })
      .reply<object>((opts) => {
        seen.push(authorizationOf(opts))
        return authorizationOf(opts) === CODE_2
          ? { statusCode: 503, data: { decision: "REJECT", reasonCode: "150" } }
          : { statusCode: 401, data: { error: "invalid_authorization" } }
      })
      .persist()
    // The replay's own failure is the caller's answer: a 503 REJECT 150,
    // not a credentials error, and the refund is not sent a third time.
    const e = await caught(client.refund(followOn))
    expect(e).toMatchObject({ category: "service_error", httpStatus: 503 })
    expect(seen).toEqual([CODE_1, CODE_2])
    expect(codes.calls()).toBe(2)
  })
})

describe("codes the service may echo are scrubbed from errors", () => {
  it("the code replaced by testConnection is scrubbed from a later error", async () => {
    const { pool, client } = setup()
    serveCodes(pool, [CODE_1, CODE_2])
    await client.getVerificationCode()
    await client.testConnection()
    pool
      .intercept({ path: RETRIEVE, method: "GET" })
      .reply(400, { error: `stale ${CODE_1}, current ${CODE_2}` })
    const e = await caught(client.retrieve("t1"))
    expect(e.category).toBe("invalid_request")
    expect(e.message).toContain("stale")
  })

  it("the code before the current one stays scrubbed when the current one is issued again", async () => {
    const { pool, client } = setup()
    serveCodes(pool, [CODE_1, CODE_2, CODE_2])
    await client.getVerificationCode()
    await client.testConnection()
    // The service hands out CODE_2 once more: CODE_1 may still be echoed.
    await client.testConnection()
    pool
      .intercept({ path: RETRIEVE, method: "GET" })
      .reply(400, { error: `old ${CODE_1} new ${CODE_2}` })
    const e = await caught(client.retrieve("t1"))
    expect(e.category).toBe("invalid_request")
    expect(e.message).toContain("old")
  })

  it("a code rejected and replaced is scrubbed from the replay's error", async () => {
    const { pool, client } = setup()
    serveCodes(pool, [CODE_1, CODE_2])
    pool
      .intercept({ path: RETRIEVE, method: "GET" })
      .reply<object>((opts) =>
        authorizationOf(opts) === CODE_1
          ? { statusCode: 401, data: { error: "invalid_authorization" } }
          : {
              statusCode: 400,
              data: { error: `was ${CODE_1} now ${CODE_2}` },
            }
      )
      .persist()
    const e = await caught(client.retrieve("t1"))
    expect(e.category).toBe("invalid_request")
    expect(e.message).toContain("was")
  })
})

describe("the verification code is fetched once and a failed fetch does not undo a newer code", () => {
  it("a fetch failing after testConnection stored a newer code leaves that code in place", async () => {
    const { pool, client, held, release } = setup(
      { retry: { attempts: 1 } },
      "/authorize"
    )
    // The first GET /authorize is held; testConnection's is answered CODE_2;
    // the held one, released after, fails.
    const codes = serveCodes(pool, [CODE_2, FETCH_FAILS, CODE_3])
    const slow = caught(client.getVerificationCode())
    // Raced with the call itself: a call that settles without being held
    // fails the test at once instead of leaving a rejection unobserved.
    await Promise.race([held, slow])
    await expect(client.testConnection()).resolves.toMatchObject({ ok: true })
    release()
    await expect(slow).resolves.toMatchObject({ category: "service_error" })
    // The code testConnection stored is still the client's: no third fetch.
    await expect(client.getVerificationCode()).resolves.toBe(CODE_2)
    expect(codes.calls()).toBe(2)
  })

  it("a late rejection of an older code does not drop the newer one", async () => {
    const { pool, client, held, release } = setup({}, "/capture")
    const codes = serveCodes(pool, [CODE_1, CODE_2, CODE_3])
    await client.getVerificationCode()
    const seen = capturesByCode(pool, (code) => code !== CODE_1)
    // The first capture (CODE_1) is held; the second has CODE_1 rejected,
    // fetches CODE_2 and gets through; then the first is rejected, late.
    const late = client.capture(followOn)
    await Promise.race([held, late])
    await expect(client.capture(followOn)).resolves.toMatchObject(accept)
    release()
    await expect(late).resolves.toMatchObject(accept)
    // CODE_2 stays the client's code: the late 401 cost no third fetch.
    expect(codes.calls()).toBe(2)
    expect(seen).toEqual([CODE_1, CODE_2, CODE_1, CODE_2])
  })
})

describe("a late rejection after a failed refresh", () => {
  it("still fetches a code and replays, while the caller whose refresh failed is told nothing was sent", async () => {
    const { pool, client, held, release } = setup(
      { retry: { attempts: 1 } },
      "/capture"
    )
    // Codes: CODE_1, then a failed fetch, then CODE_2.
    const codes = serveCodes(pool, [CODE_1, FETCH_FAILS, CODE_2])
    await client.getVerificationCode()
    const seen = capturesByCode(pool, (code) => code === CODE_2)
    // The first capture is held; the second has CODE_1 rejected and its
    // refresh fails, leaving the client without a code; then the first is
    // rejected, late.
    const late = client.capture(followOn)
    await Promise.race([held, late])
    const failed = await caught(client.capture(followOn))
    expect(failed).toMatchObject({
      category: "service_error",
      operation: "capture",
      retrySafe: true,
    })
    expect(failed.message).toMatch(/not sent/)
    release()
    await expect(late).resolves.toMatchObject(accept)
    expect(codes.calls()).toBe(3)
    expect(seen).toEqual([CODE_1, CODE_1, CODE_2])
  })
})

describe("closing the client", () => {
  it("leaves an injected dispatcher open for its owner, and may be called twice", async () => {
    const { agent, pool, client } = setup()
    serveCodes(pool, [CODE_1])
    await client.getVerificationCode()
    await client.close()
    await client.close()
    // The caller's dispatcher still answers the caller's own requests.
    pool.intercept({ path: "/other", method: "GET" }).reply(200, "still open")
    const res = await agent.request({
      origin: ORIGIN,
      path: "/other",
      method: "GET",
    })
    expect(await res.body.text()).toBe("still open")
  })

  it("a closed client sends nothing; a capture is refused as not sent", async () => {
    const { pool, client } = setup()
    serveCodes(pool, [CODE_1])
    await client.getVerificationCode()
    const captures = acceptCaptures(pool)
    await client.close()
    const e = await caught(client.capture(followOn))
    expect(e).toMatchObject({ category: "service_error", retrySafe: true })
    expect(e.message).toMatch(/nothing was sent \(CLIENT_CLOSED\)/)
    expect(captures.calls()).toBe(0)
  })
})

describe("retrieve refuses a transaction id that is not one", () => {
  it.each([
    ["blank", "   "],
    ["not a string", 42 as unknown as string],
    ["undefined", undefined as unknown as string],
  ])("%s: invalid_request, nothing sent", async (_name, id) => {
    const { pool, client } = setup()
    const codes = serveCodes(pool, [CODE_1])
    // No retrieve is intercepted: one sent would fail as not matched.
    const e = await caught(client.retrieve(id))
    expect(e).toMatchObject({
      category: "invalid_request",
      operation: "retrieve",
    })
    // The caller is told which argument was wrong.
    expect(e.message).toMatch(/transactionId/)
    expect(codes.calls()).toBe(0)
  })
})
