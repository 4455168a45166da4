import {
  currencyDigits,
  parseMajorAmount,
} from "../../../src/sandbox/amount-rules"

// The HTTP paths type-check the body before these run (a JSON number as
// currency is refused as a non-string field first), so what these functions
// refuse on their own is pinned here: every caller, including the in-process
// seedAuthorization, relies on it.
describe("currencyDigits: an ISO 4217 numeric code as a String (section 8)", () => {
  it.each<[unknown, number | undefined]>([
    ["978", 2],
    ["392", 0],
    ["048", 3],
    // currency-codes looks codes up by String(code): a number would find the euro.
    [978, undefined],
    [undefined, undefined],
  ])("%p has %p minor-unit digits", (code, digits) => {
    expect(currencyDigits(code)).toBe(digits)
  })
})

describe("parseMajorAmount: only a number or its plain decimal text", () => {
  it.each<[unknown, number | undefined]>([
    [10.5, 1050],
    ["10.50", 1050],
    // An array prints as its element; it is not an amount.
    [["10"], undefined],
    [true, undefined],
  ])("%p is %p minor units of EUR", (raw, minor) => {
    expect(parseMajorAmount(raw, 2)).toBe(minor)
  })
})
