import {
  CardServiceError,
  currencyDigits,
  fromNumericCurrency,
  isKnownCurrency,
  resolveCurrency,
  stateForCountry,
  toCountryAlpha2,
  toNumericCurrency,
} from "../../../src/lib"

describe("currency codes (ISO 4217 from currency-codes)", () => {
  it.each([
    ["eur", "978", 2],
    ["usd", "840", 2],
    ["jpy", "392", 0],
    ["krw", "410", 0],
    ["kwd", "414", 3],
    ["bhd", "048", 3],
    ["GBP", "826", 2],
  ])("%s is %s with %i digits", (alpha, numeric, digits) => {
    expect(toNumericCurrency(alpha)).toBe(numeric)
    expect(fromNumericCurrency(numeric)).toBe(alpha.toLowerCase())
    expect(currencyDigits(alpha)).toBe(digits)
    expect(currencyDigits(numeric)).toBe(digits)
    expect(resolveCurrency(numeric).alpha).toBe(alpha.toUpperCase())
  })

  it.each(["xyz", "", "eu", "9999", "000"])(
    "refuses the unknown currency %p with a clear error",
    (code) => {
      expect(isKnownCurrency(code)).toBe(false)
      let error: unknown
      try {
        toNumericCurrency(code)
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(CardServiceError)
      expect((error as CardServiceError).category).toBe("invalid_request")
      expect((error as CardServiceError).message).toMatch(/unknown currency/)
    }
  )

  it("refuses an unknown numeric code", () => {
    expect(() => fromNumericCurrency("001")).toThrow(/unknown ISO 4217 numeric/)
  })
})

describe("countries (ISO 3166-1 from i18n-iso-countries)", () => {
  it.each([
    ["us", "US"],
    ["US", "US"],
    [" ca ", "CA"],
    ["de", "DE"],
    ["jp", "JP"],
    ["USA", "US"],
    ["deu", "DE"],
  ])("%p -> %p", (input, expected) => {
    expect(toCountryAlpha2(input)).toBe(expected)
  })

  it.each(["xx", "", "u", "12", "zzz"])("refuses %p", (input) => {
    expect(() => toCountryAlpha2(input)).toThrow(/unknown country/)
  })

  it.each([
    ["us", "CA", "CA"],
    ["us", "us-ca", "CA"],
    ["CA", "on", "ON"],
    ["ca", "ca-qc", "QC"],
    ["de", "BY", undefined],
    ["gb", "eng", undefined],
    ["us", "", undefined],
    ["us", null, undefined],
    ["us", undefined, undefined],
  ])(
    "stateForCountry(%p, %p) -> %p (2.2: only US and CA)",
    (country, state, expected) => {
      expect(stateForCountry(country, state)).toBe(expected)
    }
  )
})
