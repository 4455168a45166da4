import { readFileSync } from "node:fs"
import path from "node:path"
import { describeReasonCode } from "../../src/lib/reason-codes"
import { startSandbox, TEST_CARDS, TEST_INPUTS } from "../../src/sandbox"
import { passesLuhn } from "../../src/lib/luhn"
import { brandOfNumber } from "../../src/sandbox/card-rules"

const DOC = readFileSync(
  path.resolve(__dirname, "../../docs/sandbox.md"),
  "utf8"
)

describe("TEST_CARDS", () => {
  it("are unique, Luhn-valid and in their company's range", () => {
    expect(new Set(TEST_CARDS.map((c) => c.number)).size).toBe(
      TEST_CARDS.length
    )
    for (const card of TEST_CARDS) {
      expect([card.number, passesLuhn(card.number)]).toEqual([
        card.number,
        true,
      ])
      expect(brandOfNumber(card.number)).toBe(card.cardType)
      expect(describeReasonCode(card.reasonCode).flag).not.toBeNull()
    }
    expect(passesLuhn(TEST_INPUTS.invalidAccountNumber)).toBe(false)
  })

  it("cover the outcomes the issue asks for, with frictionless and challenge cards", () => {
    const codes = new Set(TEST_CARDS.map((c) => c.reasonCode))
    for (const code of [
      "100",
      "110",
      "150",
      "151",
      "152",
      "202",
      "203",
      "204",
      "205",
      "211",
      "250",
      "400",
      "475",
      "476",
      "480",
      "481",
      "520",
    ]) {
      expect([code, codes.has(code)]).toEqual([code, true])
    }
    for (const type of ["VISA", "MASTER", "JCB"]) {
      for (const threeDs of ["frictionless", "challenge"]) {
        expect(
          TEST_CARDS.some(
            (c) =>
              c.cardType === type &&
              c.threeDs === threeDs &&
              c.reasonCode === "100"
          )
        ).toBe(true)
      }
    }
  })

  it("docs/sandbox.md lists exactly the table", () => {
    // Cells are compared trimmed, so Prettier's column padding does not matter.
    const rows = DOC.split("\n")
      .filter((line) => /^\|\s*`\d{12,19}`/.test(line))
      .map((line) =>
        line
          .split("|")
          .slice(1, -1)
          .map((cell) => cell.trim())
      )
    expect(rows).toEqual(
      TEST_CARDS.map((c) => [
        `\`${c.number}\``,
        c.cardType,
        c.threeDs,
        c.reasonCode,
        c.description,
      ])
    )
  })

  it("seedAuthorization applies the card's outcome", async () => {
    const sandbox = await startSandbox()
    try {
      const partial = TEST_CARDS.find((c) => c.reasonCode === "110")!
      expect(
        sandbox.seedAuthorization({
          cardNumber: partial.number,
          amount: "9.99",
        })
      ).toMatchObject({
        step: "AUTHORIZATION",
        reasonCode: "110",
        amount: 4.99,
      })
      expect(
        sandbox.seedAuthorization({ currency: "392", amount: "500" })
      ).toMatchObject({
        reasonCode: "100",
        amount: 500,
        cardPrefix: "400000",
      })
      expect(() => sandbox.seedAuthorization({ currency: "EUR" })).toThrow(
        /seedAuthorization/
      )
    } finally {
      await sandbox.close()
    }
  })
})
