import { parseReturnParams } from "../../../src/storefront"

const BASE = "https://shop.test/checkout/card-service"

describe("parseReturnParams: the query the return route puts on the storefront's URL", () => {
  it.each([
    [
      `${BASE}?session_id=payses_1&status=paid&order_id=order_9`,
      {
        status: "paid",
        orderId: "order_9",
        sessionId: "payses_1",
        secondPaymentReleased: false,
      },
    ],
    // A second tab paid for an order already paid: that payment was reversed.
    [
      `${BASE}?session_id=payses_1&status=paid&order_id=order_9&second_payment=released`,
      {
        status: "paid",
        orderId: "order_9",
        sessionId: "payses_1",
        secondPaymentReleased: true,
      },
    ],
    [
      `${BASE}?session_id=payses_1&status=failed&reason_code=476&reason=3-D+Secure+failed&retry_url=${encodeURIComponent("https://api.test/card-service/pay/payses_1")}&cart_id=cart_1`,
      {
        status: "failed",
        reasonCode: "476",
        reason: "3-D Secure failed",
        retryUrl: "https://api.test/card-service/pay/payses_1",
        cartId: "cart_1",
        sessionId: "payses_1",
      },
    ],
    [
      `${BASE}?session_id=payses_1&status=pending&cart_id=cart_1`,
      { status: "pending", cartId: "cart_1", sessionId: "payses_1" },
    ],
    [
      `${BASE}?status=failed`,
      {
        status: "failed",
        reasonCode: "unknown",
        reason: "The payment did not go through.",
        retryUrl: null,
        cartId: null,
        sessionId: null,
      },
    ],
    [`${BASE}`, { status: "unknown", sessionId: null }],
    [
      `${BASE}?status=shipped&session_id=payses_1`,
      { status: "unknown", sessionId: "payses_1" },
    ],
    // "paid" without an order id is not a paid return: nothing to show.
    [`${BASE}?status=paid`, { status: "unknown", sessionId: null }],
  ])("%s", (url, expected) => {
    expect(parseReturnParams(url, { allowedOrigins: ["https://api.test"] })).toEqual(expected)
  })

  it("drops a retry link on a foreign origin, keeps the storefront's own and the allowed ones", () => {
    const failedWith = (retry: string) =>
      `${BASE}?status=failed&reason_code=201&retry_url=${encodeURIComponent(retry)}`
    const allowed = { allowedOrigins: ["https://api.test/"] }

    expect(parseReturnParams(failedWith("https://evil.test/pay"), allowed)).toMatchObject({ retryUrl: null })
    expect(parseReturnParams(failedWith("https://api.test.evil.test/pay"), allowed)).toMatchObject({ retryUrl: null })
    expect(parseReturnParams(failedWith("https://api.test/pay/payses_1"))).toMatchObject({ retryUrl: null })
    expect(parseReturnParams(failedWith("https://api.test/pay/payses_1"), allowed)).toMatchObject({
      retryUrl: "https://api.test/pay/payses_1",
    })
    expect(parseReturnParams(failedWith("https://shop.test/cart"))).toMatchObject({
      retryUrl: "https://shop.test/cart",
    })
  })

  it("takes a URL, URLSearchParams, a bare query or a location-like object", () => {
    const query = "status=paid&order_id=order_1&session_id=payses_2"
    const expected = {
      status: "paid",
      orderId: "order_1",
      sessionId: "payses_2",
      secondPaymentReleased: false,
    }
    expect(parseReturnParams(new URL(`${BASE}?${query}`))).toEqual(expected)
    expect(parseReturnParams(new URLSearchParams(query))).toEqual(expected)
    expect(parseReturnParams(`?${query}`)).toEqual(expected)
    expect(parseReturnParams(`${BASE}?${query}#top`)).toEqual(expected)
    expect(parseReturnParams({ search: `?${query}` })).toEqual(expected)
  })

  it("drops a retry link that is not http(s), so it cannot run script", () => {
    const result = parseReturnParams(
      `${BASE}?status=failed&reason_code=201&retry_url=${encodeURIComponent("javascript:alert(1)")}`
    )
    expect(result).toMatchObject({ status: "failed", retryUrl: null })
  })
})
