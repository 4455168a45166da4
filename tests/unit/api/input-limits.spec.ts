import { inputProblem } from "../../../src/api/card-service/input-limits"

const SESSION = "payses_01JABCDEFGHJKMNPQRSTVWXYZ0"

const request = (
  originalUrl: string,
  query: Record<string, unknown> = {},
  body?: unknown
) => ({
  originalUrl,
  query,
  body,
})

describe("inputProblem: identifiers on the plugin's routes", () => {
  it.each([
    [
      "a callback with a result",
      request(
        `/card-service/callback/${SESSION}/`,
        {},
        {
          transactionId: "1764000000000123",
          reasonCode: "100",
          decision: "ACCEPT",
          merchantReferenceCode: "01JABC.a1b2c3.AbCdEf-_0123",
        }
      ),
    ],
    [
      "a callback whose result has no transaction id",
      request(
        `/card-service/callback/${SESSION}/`,
        {},
        { transactionId: "", originalTransactionId: "" }
      ),
    ],
    [
      "a reason code sent as a number",
      request(`/card-service/callback/${SESSION}/`, {}, { reasonCode: 100 }),
    ],
    [
      "a return with the service's query",
      request(`/card-service/return/${SESSION}/?transactionId=1`, {
        transactionId: "1",
        decision: "ACCEPT",
        reasonCode: "100",
      }),
    ],
    ["the pay page", request(`/card-service/pay/${SESSION}`)],
    ["the pay page's script", request("/card-service/assets/pay-page.js")],
    ["a store form", request(`/store/card-service/sessions/${SESSION}/form`)],
    ["an order's review", request("/admin/card-service/orders/order_01JABC/review")],
    [
      "an admin void",
      request(
        "/admin/card-service/payments/pay_01JABC/void",
        {},
        { transaction_id: "1764000000000123" }
      ),
    ],
    ["the admin settings", request("/admin/card-service/settings")],
  ])("lets %s through", (_, req) => {
    expect(inputProblem(req)).toBeNull()
  })

  it.each([
    [
      "a 60 kB transactionId",
      request(
        `/card-service/callback/${SESSION}/`,
        {},
        { transactionId: "1".repeat(60_000) }
      ),
      /transactionId/,
    ],
    [
      "a transactionId of 65 characters",
      request(
        `/card-service/callback/${SESSION}/`,
        {},
        { transactionId: "1".repeat(65) }
      ),
      /transactionId/,
    ],
    [
      "a path in a transactionId",
      request(`/card-service/return/${SESSION}/`, {
        transactionId: "../authorize",
      }),
      /transactionId/,
    ],
    [
      "a space in a transactionId",
      request(`/card-service/return/${SESSION}/`, { transactionId: "12 34" }),
      /transactionId/,
    ],
    [
      "two transactionIds",
      request(`/card-service/return/${SESSION}/`, {
        transactionId: ["1", "2"],
      }),
      /single text value/,
    ],
    [
      "markup in a reference",
      request(
        `/card-service/callback/${SESSION}/`,
        {},
        { merchantReferenceCode: "<b>" }
      ),
      /merchantReferenceCode/,
    ],
    [
      "a reference over 50 characters",
      request(
        `/card-service/callback/${SESSION}/`,
        {},
        { merchantReferenceCode: "a".repeat(51) }
      ),
      /merchantReferenceCode/,
    ],
    [
      "a reason code that is not digits",
      request(`/card-service/callback/${SESSION}/`, {}, { reasonCode: "10x" }),
      /reasonCode/,
    ],
    [
      "a long 3DS field",
      request(
        `/card-service/callback/${SESSION}/`,
        {},
        { cavv: "x".repeat(257) }
      ),
      /cavv/,
    ],
    [
      "an object in a result",
      request(`/card-service/callback/${SESSION}/`, {}, { eci: { a: 1 } }),
      /eci/,
    ],
    [
      "a session id that is not Medusa's shape",
      request("/card-service/pay/cart_01"),
      /session id/,
    ],
    [
      "a session id of 300 characters",
      request(`/card-service/callback/payses_${"A".repeat(293)}/`),
      /session id/,
    ],
    [
      "a store session id with a space",
      request("/store/card-service/sessions/payses_a%20b/form"),
      /session id/,
    ],
    [
      "an admin payment id of another kind",
      request("/admin/card-service/payments/ord_01/transactions"),
      /payment id/,
    ],
    [
      "an admin order id of another kind",
      request("/admin/card-service/orders/pay_01/review"),
      /order id/,
    ],
    [
      "a malformed escape",
      request("/card-service/callback/payses_%E0%A4%A/"),
      /percent-encoded/,
    ],
    [
      "a malformed escape in the admin",
      request("/admin/card-service/payments/%E0%A4%A/void"),
      /percent-encoded/,
    ],
  ])("refuses %s", (_, req, message) => {
    expect(inputProblem(req)).toMatch(message)
  })

  it("leaves long text alone on the admin and store routes (their own validators judge it)", () => {
    expect(
      inputProblem(
        request(
          "/admin/card-service/settings",
          {},
          { store_name: "x".repeat(1000) }
        )
      )
    ).toBeNull()
  })
})
