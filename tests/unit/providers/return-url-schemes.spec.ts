import { allowedReturnUrl } from "../../../src/providers/card-service/return-url"

// A plain-http storefront (local development) and the edges of what is
// allowed back to it: the shopper is sent to an allowed return URL only.
const options = {
  storefrontUrl: "http://localhost:8000",
  allowedReturnOrigins: [],
  returnPath: "/checkout/return",
}

describe("allowedReturnUrl for an http storefront", () => {
  const longest = `http://localhost:8000/${"a".repeat(2048 - "http://localhost:8000/".length)}`

  it.each([
    ["a page of the storefront", "http://localhost:8000/order/confirmed", "http://localhost:8000/order/confirmed"],
    ["a URL of exactly 2048 characters", longest, longest],
    ["a URL one character longer", `${longest}a`, null],
    // A blob: URL's origin is its inner URL's: only http(s) URLs are taken.
    ["a blob: URL of the storefront's origin", "blob:http://localhost:8000/8d9c2a6e", null],
  ])("%s", (_, candidate, expected) => {
    expect(allowedReturnUrl(options, candidate)).toBe(expected)
  })
})
