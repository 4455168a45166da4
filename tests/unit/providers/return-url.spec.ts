import {
  allowedReturnUrl,
  returnTarget,
} from "../../../src/providers/card-service/return-url"

const options = {
  storefrontUrl: "https://shop.example.com",
  allowedReturnOrigins: ["https://pay.example.org"],
  returnPath: "/checkout/return",
}

describe("allowedReturnUrl", () => {
  it.each([
    [
      "the storefront's origin",
      "https://shop.example.com/order?x=1",
      "https://shop.example.com/order?x=1",
    ],
    [
      "an allowed origin",
      "https://pay.example.org/back",
      "https://pay.example.org/back",
    ],
    ["another origin (an open redirect)", "https://evil.example.net/", null],
    [
      "the storefront's host on another port",
      "https://shop.example.com:8443/",
      null,
    ],
    ["plain http for an https storefront", "http://shop.example.com/", null],
    ["a javascript: URL", "javascript:alert(1)", null],
    ["not a URL", "/relative/path", null],
    ["not a string", 42, null],
    ["an over-long URL", `https://shop.example.com/${"a".repeat(2048)}`, null],
  ])("%s", (_, candidate, expected) => {
    expect(allowedReturnUrl(options, candidate)).toBe(expected)
  })
})

describe("returnTarget", () => {
  it("is the session's allowed choice", () => {
    expect(
      returnTarget(options, { return_to: "https://pay.example.org/back" }).href
    ).toBe("https://pay.example.org/back")
  })

  it.each([
    ["no session", null],
    ["no choice", { return_to: null }],
    [
      "a choice that is not allowed",
      { return_to: "https://evil.example.net/" },
    ],
  ])("is the storefront's return path for %s", (_, session) => {
    expect(returnTarget(options, session).href).toBe(
      "https://shop.example.com/checkout/return"
    )
  })
})
