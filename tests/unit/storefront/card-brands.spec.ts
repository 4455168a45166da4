import { TEST_CARDS } from "../../../src/sandbox/test-cards"
import {
  cardDigits,
  cardTypeFor,
  isPotentiallyValidCardNumber,
  isValidCardNumber,
} from "../../../src/storefront"

describe("cardTypeFor: card-validator's brand -> the service's cardType (section 2.2)", () => {
  it.each([
    ["4111 1111 1111 1111", "VISA"],
    ["41", "VISA"],
    // A lone 4 could still be Elo or another brand: not decided yet.
    ["4", null],
    ["5555555555554444", "MASTER"],
    ["2221000000000009", "MASTER"],
    ["3530111333300000", "JCB"],
    ["378282246310005", "AMEX"],
    ["36259600000004", "DINERS"],
    ["6011111111111117", "DISCOVER"],
    ["", null],
    ["9999 9999 9999 9999", null],
    // UnionPay is a brand card-validator knows but the service does not take.
    ["6212345678901232", null],
  ])("%s -> %s", (number, expected) => {
    expect(cardTypeFor(number)).toBe(expected)
  })

  it("names every sandbox test card's company as the sandbox expects it", () => {
    for (const card of TEST_CARDS) {
      expect([card.number, cardTypeFor(card.number)]).toEqual([
        card.number,
        card.cardType,
      ])
    }
  })
})

describe("isValidCardNumber: brand length and Luhn", () => {
  it.each([
    ["4000000000001000", true],
    ["4000 0000 0000 1000", true],
    ["4000-0000-0000-1000", true],
    ["4000000000001001", false],
    ["400000000000100", false],
    ["", false],
    ["0000000000000000", false],
  ])("%s -> %s", (number, expected) => {
    expect(isValidCardNumber(number)).toBe(expected)
  })

  it("accepts every sandbox test card (all carry a Luhn check digit)", () => {
    expect(
      TEST_CARDS.filter((card) => !isValidCardNumber(card.number))
    ).toEqual([])
  })

  it("calls an unfinished number potentially valid, a wrong complete one not", () => {
    expect(isPotentiallyValidCardNumber("4000 0000")).toBe(true)
    // A Visa number may grow to 19 digits; a Mastercard one stops at 16.
    expect(isPotentiallyValidCardNumber("4000000000001001")).toBe(true)
    expect(isPotentiallyValidCardNumber("5555555555554445")).toBe(false)
  })

  it("keeps digits only", () => {
    expect(cardDigits(" 4000-0000 0000.1000 ")).toBe("4000000000001000")
  })
})
