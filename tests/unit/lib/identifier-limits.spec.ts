import {
  MAX_RESULT_FIELD_LENGTH,
  MERCHANT_REFERENCE,
  PAYMENT_ID,
  PAYMENT_SESSION_ID,
  REASON_CODE,
  TRANSACTION_ID,
} from "../../../src/lib/identifier-limits"
import { REASON_CODES } from "../../../src/lib/reason-codes"

// The interface shows no field lengths (sections 2.5 and 8): these are the
// plugin's own limits, documented in identifier-limits.ts, pinned here at
// their exact edges so that a loosened or tightened one is noticed.

const alnum = (n: number) => "aZ09".repeat(Math.ceil(n / 4)).slice(0, n)

describe("identifier limits", () => {
  it.each([
    ["a transaction id: 1 to 64 characters", TRANSACTION_ID, "", 64],
    ["a merchant reference: 1 to 50 characters", MERCHANT_REFERENCE, "", 50],
    [
      "a payment session id: payses_ and 1 to 64 characters",
      PAYMENT_SESSION_ID,
      "payses_",
      64,
    ],
    ["a payment id: pay_ and 1 to 64 characters", PAYMENT_ID, "pay_", 64],
  ])("%s, no more, no fewer", (_, rule, prefix, max) => {
    expect(rule.test(`${prefix}${alnum(1)}`)).toBe(true)
    expect(rule.test(`${prefix}${alnum(max as number)}`)).toBe(true)
    expect(rule.test(`${prefix}${alnum((max as number) + 1)}`)).toBe(false)
    expect(rule.test(`${prefix}${alnum((max as number) * 10)}`)).toBe(false)
    expect(rule.test(prefix as string)).toBe(false)
  })

  it.each([
    [
      "a transaction id: letters, digits, - and _",
      TRANSACTION_ID,
      "",
      "-_",
      "./%+ \n<",
    ],
    [
      "a merchant reference: letters, digits, ., - and _",
      MERCHANT_REFERENCE,
      "",
      ".-_",
      "/%+ \n<:",
    ],
    [
      "a payment session id: letters, digits and _",
      PAYMENT_SESSION_ID,
      "payses_",
      "_",
      "-./%+ \n",
    ],
    [
      "a payment id: letters, digits and _",
      PAYMENT_ID,
      "pay_",
      "_",
      "-./%+ \n",
    ],
  ])("%s, nothing else", (_, rule, prefix, extra, refused) => {
    for (const c of `${extra}`) {
      expect(rule.test(`${prefix}a${c}1`)).toBe(true)
    }
    for (const c of `${refused}`) {
      // In the middle, at the start and at the end (anchors on both sides).
      expect(
        [`${prefix}a${c}1`, `${prefix}${c}a1`, `${prefix}a1${c}`].map((v) =>
          rule.test(v)
        )
      ).toEqual([false, false, false])
    }
  })

  it("anchors the prefixes of Medusa's ids", () => {
    expect(PAYMENT_ID.test("xpay_01ABC")).toBe(false)
    expect(PAYMENT_ID.test("ord_01ABC")).toBe(false)
    expect(PAYMENT_ID.test("pay01ABC")).toBe(false)
    expect(PAYMENT_SESSION_ID.test("xpayses_01ABC")).toBe(false)
    expect(PAYMENT_SESSION_ID.test("pay_01ABC")).toBe(false)
    expect(PAYMENT_SESSION_ID.test("payses01ABC")).toBe(false)
  })

  it("admits every reason code of the interface's table (section 7)", () => {
    const codes = Object.keys(REASON_CODES)
    expect(codes.length).toBeGreaterThan(60)
    expect(codes.filter((code) => !REASON_CODE.test(code))).toEqual([])
  })

  it.each([
    ["1", "admitted"],
    ["100", "admitted"],
    ["123456", "admitted"],
    ["1234567", "refused"],
    ["", "refused"],
    ["10a", "refused"],
    ["a100", "refused"],
    ["100a", "refused"],
    [" 100", "refused"],
    ["100 ", "refused"],
    ["-100", "refused"],
    ["1.0", "refused"],
    ["１００", "refused"],
  ])("a reason code %p: %s", (code, verdict) => {
    expect(REASON_CODE.test(code)).toBe(verdict === "admitted")
  })

  it("keeps any other result field to 256 characters", () => {
    expect(MAX_RESULT_FIELD_LENGTH).toBe(256)
  })
})
