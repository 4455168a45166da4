import BigNumberJs from "bignumber.js"
import { CardServiceError } from "../../../src/lib/card-service-error"
import { exactMinorUnits, fromMinorUnits, toDecimal } from "../../../src/lib/money"

// The shapes Medusa hands amounts in, and the lossless source each one is
// read from: a BigNumber's raw value, not its float.
describe("toDecimal reads the exact value", () => {
  it.each<[string, unknown, string]>([
    ["Medusa's raw value before its float", { raw: { value: "17.395" }, numeric: 17.39 }, "17.395"],
    ["a bignumber.js value before its float", { bigNumber: new BigNumberJs("1.005"), numeric: 1 }, "1.005"],
    ["valueOf when toJSON gives no number", { toJSON: () => ({ nested: true }), valueOf: () => 12.5 }, "12.5"],
    ["a string with spaces around it", " 10.50 ", "10.5"],
    ["a raw value with spaces around it", { raw: { value: "\t7.25\n" } }, "7.25"],
  ])("%s", (_name, amount, exact) => {
    expect(toDecimal(amount as never).toFixed()).toBe(exact)
  })

  it("so an approval of 17.395 is not one of 17.40", () => {
    expect(exactMinorUnits({ raw: { value: "17.395" }, numeric: 17.4 } as never, "eur")).toBeNull()
  })
})

describe("toDecimal refuses what is no amount", () => {
  it.each<[string, unknown]>([
    ["null", null],
    ["undefined", undefined],
    ["a plain object", {}],
    ["an empty string", ""],
    ["infinity", Infinity],
  ])("%s: an invalid request, safe to retry once corrected", (_name, amount) => {
    let error: unknown
    try {
      toDecimal(amount as never)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(CardServiceError)
    expect(error).toMatchObject({ category: "invalid_request", retrySafe: true, operation: "convert amount" })
  })
})

describe("fromMinorUnits", () => {
  it.each<[bigint | number, string, number]>([
    [1050n, "eur", 10.5],
    [1234, "kwd", 1.234],
    [1000, "jpy", 1000],
  ])("%s %s is %s", (minor, currency, major) => {
    expect(fromMinorUnits(minor, currency)).toBe(major)
  })
})
