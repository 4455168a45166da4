import {
  PaymentResultSchema,
  TransactionRecordSchema,
  describeIssues,
} from "../../../src/lib"

describe("PaymentResultSchema (2.5 result at the callback)", () => {
  it("parses an approved payment and tolerates extra fields", () => {
    const r = PaymentResultSchema.safeParse({
      decision: "ACCEPT",
      reasonCode: "100",
      transactionId: "tx-1",
      originalTransactionId: "",
      merchantReferenceCode: "order_01",
      somethingNew: 1,
    })
    expect(r.success).toBe(true)
    expect(r.data).toMatchObject({
      decision: "ACCEPT",
      reasonCode: "100",
      somethingNew: 1,
    })
  })

  it("parses the 3DS fields of an authentication-only result (isAuthenticate N)", () => {
    const body = {
      decision: "ACCEPT",
      reasonCode: "100",
      transactionId: "tx-2",
      originalTransactionId: "",
      xid: "x",
      eci: "05",
      commerceIndicator: "vbv",
      cavvAlgorithm: "2",
      paresStatus: "Y",
      paSpecificationVersion: "2.2.0",
      directoryServerTransactionID: "ds-1",
      cavv: "AAAB",
    }
    expect(PaymentResultSchema.parse(body)).toEqual(body)
  })

  it("accepts a form-encoded body (every value text) and a numeric reason code", () => {
    const form = Object.fromEntries(
      new URLSearchParams("decision=REJECT&reasonCode=476&transactionId=tx-3")
    )
    expect(PaymentResultSchema.parse(form)).toMatchObject({
      reasonCode: "476",
      originalTransactionId: "",
    })
    expect(
      PaymentResultSchema.parse({ ...form, reasonCode: 476 }).reasonCode
    ).toBe("476")
  })

  it("names the fields of a body that does not fit", () => {
    const r = PaymentResultSchema.safeParse({ decision: "OK", eci: 5 })
    expect(r.success).toBe(false)
    const text = describeIssues(r.error!)
    expect(text).toMatch(/decision/)
    expect(text).toMatch(/reasonCode/)
    expect(text).toMatch(/transactionId/)
    expect(text).toMatch(/eci/)
  })
})

describe("TransactionRecordSchema (2.1)", () => {
  it("reads a numeric-string amount as a number", () => {
    const r = TransactionRecordSchema.parse({
      merchantReferenceCode: "o",
      transactionId: "t",
      originalTransactionId: "",
      step: "REFUND",
      reasonCode: "100",
      status: "successful",
      captureStatus: "VOIDED",
      cardType: "VISA",
      currencyCode: "414",
      amount: "1.234",
      cardSuffix: "1111",
    })
    expect(r.amount).toBe(1.234)
  })
})
