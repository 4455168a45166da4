import { passesLuhn } from "../../../src/lib/luhn"

// Worked examples of the Luhn check (ISO/IEC 7812): every digit counts, every
// second one from the right is doubled, a doubled digit over 9 loses 9.
describe("passesLuhn", () => {
  it.each([
    ["79927398713", true],
    ["4000000000001000", true],
    ["5200000000001005", true],
    ["18", true], // 1 doubled is 2, + 8 = 10
    ["59", true], // 5 doubled is 10, less 9 is 1, + 9 = 10
    ["91", true], // 9 doubled is 18, less 9 is 9, + 1 = 10
    ["0", true],
    ["79927398710", false],
    ["09927398713", false], // only the first digit differs from a valid number
    ["4000000000001001", false],
    ["81", false], // the doubling falls on the second digit from the right, not the first
    ["19", false],
    ["5", false],
  ])("%s: %s", (digits, valid) => {
    expect(passesLuhn(digits)).toBe(valid)
  })
})
