import { createTranslator, failureMessageKey } from "../../../src/lib/i18n"

describe("failureMessageKey: what a shopper reads for a failure code", () => {
  it.each([
    ["203", "failure.declined"],
    ["204", "failure.declined"],
    // Lost, stolen, negative file, denied parties: a plain decline on purpose.
    ["205", "failure.declined"],
    ["221", "failure.declined"],
    ["700", "failure.declined"],
    ["202", "failure.expired"],
    ["231", "failure.cardDetails"],
    ["240", "failure.cardDetails"],
    ["476", "failure.authentication"],
    ["475", "failure.authentication"],
    ["457", "failure.address"],
    ["150", "failure.tryLater"],
    ["250", "failure.tryLater"],
    ["207", "failure.tryLater"],
    ["480", "failure.review"],
    ["102", "failure.generic"],
    ["104", "failure.generic"],
    ["999", "failure.declined"],
    ["mismatch", "failure.mismatch"],
    ["cart_changed", "failure.cartChanged"],
    ["tampered", "failure.restart"],
    ["no_cart", "failure.restart"],
    ["balance_changed", "failure.mismatch"],
    ["balance_closed", "failure.restart"],
    ["foreign_transaction", "failure.generic"],
    ["anything else", "failure.generic"],
  ])("%s -> %s", (code, key) => {
    expect(failureMessageKey(code)).toBe(key)
  })

  it("never shows the issuer's wording or the code", () => {
    const text = createTranslator({ candidates: ["en"] })
    for (const code of ["202", "203", "205", "476", "150"]) {
      const sentence = text.t(failureMessageKey(code))
      expect(sentence).not.toMatch(/decline:|\d{3}|stolen|lost/i)
    }
    expect(text.t(failureMessageKey("203"))).toBe(
      "Your bank declined the payment. Try another card."
    )
  })
})
