import {
  CardServiceStorefrontError,
  fetchCardServiceForm,
  FetchLike,
  pollCardServiceSession,
} from "../../../src/storefront"

type Call = { url: string; init: Parameters<FetchLike>[1] }

/** A fetch that answers from a list, recording what it was asked. */
function fakeFetch(answers: Array<{ status: number; body?: unknown } | Error>) {
  const calls: Call[] = []
  const fetch: FetchLike = async (url, init) => {
    calls.push({ url, init })
    const answer = answers.length > 1 ? answers.shift()! : answers[0]
    if (answer instanceof Error) throw answer
    return {
      ok: answer.status >= 200 && answer.status < 300,
      status: answer.status,
      json: async () => {
        if (answer.body === undefined)
          throw new SyntaxError("Unexpected end of JSON input")
        return answer.body
      },
    }
  }
  return { fetch, calls }
}

const FORM = {
  action: "https://cards.test/order/start",
  method: "POST",
  enctype: "application/x-www-form-urlencoded",
  fields: { merchantReferenceCode: "ref-1", amount: "30.00", firstName: "Ada" },
  card_fields: [
    "cardAccountNumber",
    "cardType",
    "cardExpirationMonth",
    "cardExpirationYear",
  ],
}
const options = {
  backendUrl: "https://api.shop.test/",
  publishableKey: "pk_123",
  sessionId: "payses_01",
}

describe("fetchCardServiceForm", () => {
  it("asks the store route with the publishable key, uncached and without cookies", async () => {
    const { fetch, calls } = fakeFetch([{ status: 200, body: { form: FORM } }])
    const descriptor = await fetchCardServiceForm({ ...options, fetch })
    expect(descriptor).toEqual(FORM)
    expect(calls).toHaveLength(1)
    expect(calls[0].url).toBe(
      "https://api.shop.test/store/card-service/sessions/payses_01/form"
    )
    expect(calls[0].init).toMatchObject({
      method: "GET",
      headers: { "x-publishable-api-key": "pk_123" },
      cache: "no-store",
      credentials: "omit",
    })
  })

  it("escapes the session id in the path", async () => {
    const { fetch, calls } = fakeFetch([{ status: 200, body: { form: FORM } }])
    await fetchCardServiceForm({ ...options, sessionId: "../../admin", fetch })
    expect(calls[0].url).toBe(
      "https://api.shop.test/store/card-service/sessions/..%2F..%2Fadmin/form"
    )
  })

  it.each([
    [
      404,
      { type: "not_found", message: "Card-service payment session not found" },
      "session_not_found",
    ],
    [
      400,
      { type: "not_allowed", message: "This payment session is already paid" },
      "already_paid",
    ],
    [
      400,
      {
        type: "not_allowed",
        message:
          "This payment session's data was altered; start a new payment session",
      },
      "session_altered",
    ],
    [
      400,
      {
        type: "not_allowed",
        message:
          "Publishable API key required in the request header: x-publishable-api-key.",
      },
      "publishable_key",
    ],
    [
      400,
      { type: "invalid_data", message: "something else" },
      "request_refused",
    ],
    [
      500,
      { type: "unknown_error", message: "An unknown error occurred." },
      "backend_unavailable",
    ],
    [502, undefined, "backend_unavailable"],
  ])("answers HTTP %s %j with a %s error", async (status, body, code) => {
    const { fetch } = fakeFetch([{ status, body }])
    const error = await fetchCardServiceForm({ ...options, fetch }).catch(
      (e) => e
    )
    expect(error).toBeInstanceOf(CardServiceStorefrontError)
    expect(error).toMatchObject({ code, status })
  })

  it("turns a network failure into backend_unavailable", async () => {
    const { fetch } = fakeFetch([new TypeError("Failed to fetch")])
    await expect(
      fetchCardServiceForm({ ...options, fetch })
    ).rejects.toMatchObject({
      code: "backend_unavailable",
      status: null,
    })
  })

  it.each([
    [{}],
    [{ form: { ...FORM, action: "javascript:alert(1)" } }],
    [{ form: { ...FORM, method: "GET" } }],
    [{ form: { ...FORM, fields: { amount: 30 } } }],
  ])("refuses a descriptor of the wrong shape: %j", async (body) => {
    const { fetch } = fakeFetch([{ status: 200, body }])
    await expect(
      fetchCardServiceForm({ ...options, fetch })
    ).rejects.toMatchObject({
      code: "invalid_response",
    })
  })

  it("needs an absolute backend URL and a session id", async () => {
    const { fetch } = fakeFetch([{ status: 200, body: { form: FORM } }])
    await expect(
      fetchCardServiceForm({ ...options, backendUrl: "/api", fetch })
    ).rejects.toThrow(/backendUrl/)
    await expect(
      fetchCardServiceForm({ ...options, sessionId: "", fetch })
    ).rejects.toThrow(/sessionId/)
  })
})

describe("pollCardServiceSession", () => {
  const session = (outcome: string, extra: object = {}) => ({
    status: 200,
    body: {
      session: {
        id: "payses_01",
        status: "pending",
        outcome,
        order_id: null,
        cart_id: "cart_1",
        failure: null,
        pay_url: "https://api.shop.test/card-service/pay/payses_01",
        ...extra,
      },
    },
  })

  it("asks until the session is paid, through pending answers and a passing outage", async () => {
    const { fetch, calls } = fakeFetch([
      session("pending"),
      { status: 503, body: { message: "down" } },
      session("paid", { order_id: "order_1", status: "authorized" }),
    ])
    const seen: string[] = []
    const result = await pollCardServiceSession({
      ...options,
      fetch,
      intervalMs: 100,
      timeoutMs: 5_000,
      onUpdate: (s) => seen.push(s.outcome),
    })
    expect(result).toMatchObject({ outcome: "paid", order_id: "order_1" })
    expect(calls.map((c) => c.url)).toEqual(
      Array(3).fill(
        "https://api.shop.test/store/card-service/sessions/payses_01"
      )
    )
    expect(seen).toEqual(["pending", "paid"])
  })

  it("stops at a failure and hands back its reason", async () => {
    const { fetch } = fakeFetch([
      session("failed", { failure: { code: "201", message: "declined" } }),
    ])
    await expect(
      pollCardServiceSession({ ...options, fetch, intervalMs: 100 })
    ).resolves.toMatchObject({ outcome: "failed", failure: { code: "201" } })
  })

  it("returns the last pending state when the time runs out", async () => {
    // On a fake clock (Date and timers), so a busy machine changes nothing:
    // asks every 100 ms, once more at the 350 ms deadline, then stops.
    jest.useFakeTimers({ now: new Date("2030-01-01T00:00:00Z") })
    try {
      const { fetch: answer } = fakeFetch([session("pending")])
      const started = Date.now()
      const askedAt: number[] = []
      const fetch: FetchLike = (url, init) => {
        askedAt.push(Date.now() - started)
        return answer(url, init)
      }
      let finished = false
      const polling = pollCardServiceSession({
        ...options,
        fetch,
        intervalMs: 100,
        timeoutMs: 350,
      }).finally(() => {
        finished = true
      })
      await jest.advanceTimersByTimeAsync(349)
      expect(finished).toBe(false)
      await jest.advanceTimersByTimeAsync(1)
      const result = await polling
      expect(result.outcome).toBe("pending")
      expect(askedAt).toEqual([0, 100, 200, 300, 350])
      expect(Date.now() - started).toBe(350)
    } finally {
      jest.useRealTimers()
    }
  })

  it("throws an unknown session at once", async () => {
    const { fetch, calls } = fakeFetch([
      { status: 404, body: { message: "not found" } },
    ])
    await expect(
      pollCardServiceSession({
        ...options,
        fetch,
        intervalMs: 100,
        timeoutMs: 5_000,
      })
    ).rejects.toMatchObject({ code: "session_not_found" })
    expect(calls).toHaveLength(1)
  })

  it("stops when aborted", async () => {
    const { fetch } = fakeFetch([session("pending")])
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 150)
    await expect(
      pollCardServiceSession({
        ...options,
        fetch,
        intervalMs: 100,
        timeoutMs: 10_000,
        signal: controller.signal,
      })
    ).rejects.toMatchObject({ code: "aborted" })
  })
})
