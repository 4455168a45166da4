import {
  CardServiceError,
  amountsEqual,
  fitsCurrencyDigits,
  fromMinorUnits,
  fromServiceAmount,
  toMinorUnits,
  toServiceAmount,
  toVoidAmount,
} from "../../../src/lib"

/** A stand-in for Medusa's BigNumber class, which src/lib must not import. */
class FakeMedusaBigNumber {
  constructor(private readonly value_: string) {}
  get raw() {
    return { value: this.value_, precision: 20 }
  }
  get numeric() {
    return Number(this.value_)
  }
  toJSON() {
    return Number(this.value_)
  }
  valueOf() {
    return Number(this.value_)
  }
}

describe("toServiceAmount: major units rounded half-up to ISO 4217 digits", () => {
  it.each([
    // [amount, currency, expected]
    [1000, "jpy", 1000],
    [1000.5, "jpy", 1001],
    [999.4, "JPY", 999],
    [15000.49, "krw", 15000],
    [10.5, "eur", 10.5],
    [0.1 + 0.2, "eur", 0.3],
    [2.675, "eur", 2.68],
    [1.005, "eur", 1.01],
    [1.015, "usd", 1.02],
    [19.99, "usd", 19.99],
    [1.2345, "kwd", 1.235],
    [1.2344, "kwd", 1.234],
    [0.0005, "bhd", 0.001],
    [123456789.125, "eur", 123456789.13],
  ])("%p %s -> %p", (amount, currency, expected) => {
    expect(toServiceAmount(amount, currency)).toBe(expected)
  })

  it("accepts numeric strings, bigint and numeric currency codes", () => {
    expect(toServiceAmount("2.675", "eur")).toBe(2.68)
    expect(toServiceAmount(" 10.5 ", "978")).toBe(10.5)
    expect(toServiceAmount(1000n, "jpy")).toBe(1000)
    expect(toServiceAmount("1e3", "usd")).toBe(1000)
  })

  it("reads Medusa's raw BigNumber objects from their exact decimal text", () => {
    expect(toServiceAmount({ value: "2.675", precision: 20 }, "eur")).toBe(2.68)
    expect(toServiceAmount({ value: "10.500000000000000000" }, "eur")).toBe(
      10.5
    )
    expect(toServiceAmount({ value: 1.2345 }, "kwd")).toBe(1.235)
  })

  it("reads a Medusa BigNumber instance through raw, not through the float", () => {
    expect(toServiceAmount(new FakeMedusaBigNumber("2.675"), "eur")).toBe(2.68)
    expect(toServiceAmount({ numeric: 12.3 }, "eur")).toBe(12.3)
    expect(
      toServiceAmount({ toJSON: () => 7.125, valueOf: () => 0 }, "usd")
    ).toBe(7.13)
    expect(toServiceAmount({ valueOf: () => "5.5" }, "usd")).toBe(5.5)
  })

  it.each([NaN, Infinity, "abc", "", {}, null])(
    "rejects %p before anything is sent",
    (bad) => {
      let error: unknown
      try {
        toServiceAmount(bad as never, "eur")
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(CardServiceError)
      expect((error as CardServiceError).category).toBe("invalid_request")
    }
  )

  it.each(["xyz", "", "001", "euro"])(
    "rejects the unknown currency %p",
    (code) => {
      expect(() => toServiceAmount(1, code)).toThrow(/unknown currency/)
    }
  )
})

describe("toVoidAmount: a string with exactly the currency's digits (2.4)", () => {
  it.each([
    [10.5, "eur", "10.50"],
    [10, "usd", "10.00"],
    [2.675, "eur", "2.68"],
    [0.1 + 0.2, "usd", "0.30"],
    [1000, "jpy", "1000"],
    [1000.5, "krw", "1001"],
    [1.2345, "kwd", "1.235"],
    [1, "bhd", "1.000"],
    [{ value: "3.1" }, "eur", "3.10"],
    ["10.50", "eur", "10.50"],
  ])("%p %s -> %p", (amount, currency, expected) => {
    expect(toVoidAmount(amount as never, currency)).toBe(expected)
  })
})

describe("fromServiceAmount, minor units and equality", () => {
  it.each([
    [10.5, "eur", 10.5],
    ["10.50", "eur", 10.5],
    ["1000", "jpy", 1000],
    ["1.234", "kwd", 1.234],
    [0.30000000000000004, "usd", 0.3],
  ])("fromServiceAmount(%p, %s) -> %p", (amount, currency, expected) => {
    expect(fromServiceAmount(amount, currency)).toBe(expected)
  })

  it.each([
    [10.5, "eur", 1050n],
    [2.675, "eur", 268n],
    [1000, "jpy", 1000n],
    [1.2345, "kwd", 1235n],
    [0.1 + 0.2, "usd", 30n],
  ])("toMinorUnits(%p, %s) -> %p", (amount, currency, expected) => {
    expect(toMinorUnits(amount, currency)).toBe(expected)
  })

  it("compares amounts exactly in minor units", () => {
    expect(amountsEqual(0.1 + 0.2, 0.3, "eur")).toBe(true)
    expect(
      amountsEqual({ value: "10.500000000000000000" }, "10.50", "eur")
    ).toBe(true)
    expect(amountsEqual(10.5, 10.51, "eur")).toBe(false)
    expect(amountsEqual(1000.4, 1000, "jpy")).toBe(true)
  })

  it.each([
    ["eur", 10.5],
    ["jpy", 1000],
    ["krw", 15000],
    ["usd", 19.99],
    ["kwd", 1.234],
    ["bhd", 0.005],
  ])("round trips through the service forms in %s", (currency, amount) => {
    const service = toServiceAmount(amount, currency)
    expect(fromServiceAmount(service, currency)).toBe(amount)
    expect(fromServiceAmount(toVoidAmount(amount, currency), currency)).toBe(
      amount
    )
    expect(fromMinorUnits(toMinorUnits(amount, currency), currency)).toBe(
      amount
    )
    expect(JSON.stringify({ amount: service })).toBe(`{"amount":${amount}}`)
  })

  it("tells whether an amount already fits the currency's digits", () => {
    expect(fitsCurrencyDigits(10.5, "eur")).toBe(true)
    expect(fitsCurrencyDigits(10.555, "eur")).toBe(false)
    expect(fitsCurrencyDigits(1000.5, "jpy")).toBe(false)
    expect(fitsCurrencyDigits(1.234, "kwd")).toBe(true)
  })
})
