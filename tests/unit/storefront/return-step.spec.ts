import {
  FetchLike,
  needsNewPaymentSession,
  paymentFailureMessage,
  resolveCardServiceReturn,
} from "../../../src/storefront"

/** A fetch that gives one answer (or throws one error), recording the URLs asked. */
function fakeFetch(answer: { status: number; body?: unknown } | Error) {
  const urls: string[] = []
  const fetch: FetchLike = async (url) => {
    urls.push(url)
    if (answer instanceof Error) throw answer
    return {
      ok: answer.status >= 200 && answer.status < 300,
      status: answer.status,
      json: async () => answer.body,
    }
  }
  return { fetch, urls }
}

const RETURN = "https://shop.test/de/checkout/card-service"
const backend = { backendUrl: "https://api.shop.test", publishableKey: "pk_1" }

function session(overrides: Record<string, unknown>) {
  return {
    status: 200,
    body: {
      session: {
        id: "payses_1",
        status: "pending",
        outcome: "pending",
        order_id: null,
        cart_id: "cart_1",
        failure: null,
        pay_url: "https://api.shop.test/card-service/pay/payses_1",
        ...overrides,
      },
    },
  }
}

describe("resolveCardServiceReturn", () => {
  it("goes to the order only when the backend says paid, whatever the query claims", async () => {
    const paid = fakeFetch(
      session({ outcome: "paid", order_id: "order_1", status: "authorized" })
    )
    await expect(
      resolveCardServiceReturn(`${RETURN}?session_id=payses_1&status=pending`, {
        ...backend,
        fetch: paid.fetch,
      })
    ).resolves.toEqual({
      step: "order",
      orderId: "order_1",
      sessionId: "payses_1",
      countryCode: null,
    })
    expect(paid.urls).toEqual([
      "https://api.shop.test/store/card-service/sessions/payses_1",
    ])

    const forged = fakeFetch(session({}))
    await expect(
      resolveCardServiceReturn(
        `${RETURN}?session_id=payses_1&status=paid&order_id=order_9`,
        { ...backend, fetch: forged.fetch }
      )
    ).resolves.toEqual({
      step: "pending",
      sessionId: "payses_1",
      underReview: false,
    })
  })

  it("sends a decline back to the payment step on the same session", async () => {
    const { fetch } = fakeFetch(
      session({
        outcome: "failed",
        status: "error",
        failure: { code: "203", message: "General card decline" },
      })
    )
    await expect(
      resolveCardServiceReturn(`${RETURN}?session_id=payses_1&status=failed`, {
        ...backend,
        fetch,
      })
    ).resolves.toEqual({
      step: "payment",
      code: "203",
      newSession: false,
      sessionId: "payses_1",
      countryCode: null,
    })
  })

  it("asks for a new session after tampering", async () => {
    const { fetch } = fakeFetch(
      session({
        outcome: "failed",
        failure: { code: "tampered", message: "altered" },
      })
    )
    await expect(
      resolveCardServiceReturn(`${RETURN}?session_id=payses_1`, {
        ...backend,
        fetch,
      })
    ).resolves.toMatchObject({
      step: "payment",
      code: "tampered",
      newSession: true,
    })
  })

  it("keeps a payment under review (480) on the pending page", async () => {
    const { fetch } = fakeFetch(
      session({ failure: { code: "480", message: "review" } })
    )
    await expect(
      resolveCardServiceReturn(`${RETURN}?session_id=payses_1&status=pending`, {
        ...backend,
        fetch,
      })
    ).resolves.toEqual({
      step: "pending",
      sessionId: "payses_1",
      underReview: true,
    })
  })

  it("sends an unknown session (the cart changed) to the payment step for a new session", async () => {
    const gone = fakeFetch({ status: 404, body: { message: "not found" } })
    await expect(
      resolveCardServiceReturn(
        `${RETURN}?session_id=payses_1&status=failed&reason_code=cart_changed`,
        { ...backend, fetch: gone.fetch }
      )
    ).resolves.toEqual({
      step: "payment",
      code: "cart_changed",
      newSession: true,
      sessionId: "payses_1",
    })
    // A forged reason code does not choose the message for an unknown session.
    await expect(
      resolveCardServiceReturn(
        `${RETURN}?session_id=payses_1&status=failed&reason_code=203`,
        { ...backend, fetch: gone.fetch }
      )
    ).resolves.toMatchObject({ code: "session_not_found", newSession: true })
  })

  it("never throws: an unreachable backend or a 5xx leads to the pending page", async () => {
    for (const answer of [
      new TypeError("fetch failed"),
      { status: 503, body: { message: "busy" } },
      { status: 200, body: { nonsense: true } },
      { status: 401, body: { message: "publishable key" } },
    ]) {
      const { fetch } = fakeFetch(answer)
      await expect(
        resolveCardServiceReturn(
          `${RETURN}?session_id=payses_1&status=paid&order_id=o`,
          {
            ...backend,
            fetch,
          }
        )
      ).resolves.toEqual({
        step: "pending",
        sessionId: "payses_1",
        underReview: false,
      })
    }
  })

  it("without a session id goes to the payment step and asks nothing", async () => {
    const { fetch, urls } = fakeFetch(session({}))
    await expect(
      resolveCardServiceReturn(`${RETURN}?status=paid&order_id=order_1`, {
        ...backend,
        fetch,
      })
    ).resolves.toEqual({
      step: "payment",
      code: "unknown",
      newSession: false,
      sessionId: null,
    })
    expect(urls).toEqual([])
  })
})

describe("paymentFailureMessage", () => {
  it.each([
    ["203", /declined/i],
    ["205", /declined/i],
    ["204", /insufficient funds/i],
    ["202", /expired/i],
    ["476", /3-D Secure/],
    ["150", /no money was taken/i],
    ["250", /no money was taken/i],
    ["cart_changed", /cart changed/i],
    ["tampered", /choose your payment method again/i],
    ["session_not_found", /choose your payment method again/i],
    ["mismatch", /did not match/i],
    ["480", /reviewed/i],
    ["unknown", /did not go through/i],
    ["<script>", /did not go through/i],
    [null, /did not go through/i],
  ])("%s -> %s", (code, expected) => {
    const message = paymentFailureMessage(code)
    expect(message).toMatch(expected)
    expect(message).not.toContain("<")
  })
})

describe("needsNewPaymentSession", () => {
  it.each([
    ["cart_changed", true],
    ["tampered", true],
    ["session_not_found", true],
    ["no_cart", true],
    ["203", false],
    ["mismatch", true],
    [undefined, false],
  ])("%s -> %s", (code, expected) => {
    expect(needsNewPaymentSession(code as string | undefined)).toBe(expected)
  })
})
