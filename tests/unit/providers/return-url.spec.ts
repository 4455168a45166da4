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

describe("allowedReturnUrl for the demo's storefront, http://localhost:8000", () => {
  const local = {
    ...options,
    storefrontUrl: "http://localhost:8000",
    allowedReturnOrigins: [],
  }

  it("admits the storefront's own origin, path and query kept", () => {
    expect(allowedReturnUrl(local, "http://localhost:8000/thanks?step=2")).toBe(
      "http://localhost:8000/thanks?step=2"
    )
  })

  // Each starts with the allowed origin's characters: a prefix match would let it through.
  it.each([
    [
      "another host that starts with the storefront's",
      "http://localhost:8000.evil.com/",
    ],
    [
      "the storefront's origin as user info of another host",
      "http://localhost:8000@evil.com/",
    ],
    ["a longer port", "http://localhost:80001/"],
    ["another port", "http://localhost:8001/"],
    ["the default port", "http://localhost/"],
    ["https instead of http", "https://localhost:8000/"],
    ["another name for the same machine", "http://127.0.0.1:8000/"],
    ["a subdomain of localhost", "http://shop.localhost:8000/"],
  ])("refuses %s: %s", (_, candidate) => {
    expect(allowedReturnUrl(local, candidate)).toBeNull()
    expect(returnTarget(local, { return_to: candidate }).href).toBe(
      "http://localhost:8000/checkout/return"
    )
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
