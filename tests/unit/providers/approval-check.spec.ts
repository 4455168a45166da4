import type { TransactionRecord } from "../../../src/lib/wire-schemas"
import { checkApproval } from "../../../src/providers/card-service/approval-check"
import { authorizationRecord } from "../../helpers/transaction-records"

const session = {
  session_id: "payses_01",
  currency: "978",
  currency_code: "eur",
  amount_minor: "1050",
}

const approval: TransactionRecord = authorizationRecord({
  merchantReferenceCode: "01.nonce.mac",
  transactionId: "100000000000000000001",
  amount: 10.5,
  cardPrefix: "400000",
  cardSuffix: "1000",
})

/** Only "01.nonce.mac" belongs, and only to payses_01. */
const belongs = (reference: string, sessionId: string) =>
  reference === "01.nonce.mac" && sessionId === "payses_01"

describe("checkApproval", () => {
  it("approves a successful AUTHORIZATION of this session for its amount and currency", () => {
    expect(checkApproval(approval, session, belongs)).toEqual({
      outcome: "approved",
    })
  })

  it("compares the approved amount exactly, never rounded first: 17.395 is not 17.40", () => {
    const cart = { ...session, amount_minor: "1740" }
    expect(checkApproval({ ...approval, amount: 17.395 }, cart, belongs)).toMatchObject({
      outcome: "mismatch",
    })
    expect(checkApproval({ ...approval, amount: 17.4 }, cart, belongs)).toEqual({ outcome: "approved" })
  })

  it("compares amounts in minor units, not as floats", () => {
    const jpy = {
      ...session,
      currency: "392",
      currency_code: "jpy",
      amount_minor: "1000",
    }
    expect(
      checkApproval(
        { ...approval, currencyCode: "392", amount: 1000 },
        jpy,
        belongs
      ).outcome
    ).toBe("approved")
    const kwd = {
      ...session,
      currency: "414",
      currency_code: "kwd",
      amount_minor: "1234",
    }
    expect(
      checkApproval(
        { ...approval, currencyCode: "414", amount: 1.234 },
        kwd,
        belongs
      ).outcome
    ).toBe("approved")
  })

  it.each<[string, Partial<TransactionRecord>]>([
    ["another session's reference", { merchantReferenceCode: "02.nonce.mac" }],
    [
      "a reference the plugin never made",
      { merchantReferenceCode: "order-42" },
    ],
    // Foreign wins over everything else: nothing about it is ours to act on.
    [
      "another session's declined payment",
      { merchantReferenceCode: "x", status: "declined", reasonCode: "203" },
    ],
    [
      "another session's approval for another amount",
      { merchantReferenceCode: "x", amount: 1 },
    ],
  ])("foreign: %s", (_, change) => {
    expect(
      checkApproval({ ...approval, ...change }, session, belongs).outcome
    ).toBe("foreign")
  })

  it.each<[string, Partial<TransactionRecord>, RegExp]>([
    ["another amount", { amount: 10.49 }, /amount differs/],
    ["a larger amount", { amount: 105 }, /amount differs/],
    ["another currency", { currencyCode: "840" }, /currency 840.*EUR \(978\)/],
    [
      "a 110 partial approval",
      { reasonCode: "110", amount: 5.25 },
      /part of the amount.*110/,
    ],
  ])("mismatch: %s", (_, change, reason) => {
    const verdict = checkApproval({ ...approval, ...change }, session, belongs)
    expect(verdict.outcome).toBe("mismatch")
    expect(verdict).toMatchObject({ reason: expect.stringMatching(reason) })
  })

  it.each<[string, Partial<TransactionRecord>, string, RegExp]>([
    ["declined", { status: "declined", reasonCode: "203" }, "203", /declined/],
    [
      "declined for review",
      { status: "declined", reasonCode: "480" },
      "480",
      /declined/,
    ],
    [
      "enrolled, not authenticated",
      { status: "declined", reasonCode: "475" },
      "475",
      /declined/,
    ],
    ["an error", { status: "error", reasonCode: "150" }, "150", /failed/],
    // isAuthenticate=N only authenticates: no money is held, so it pays for nothing.
    [
      "an AUTHENTICATION step",
      { step: "AUTHENTICATION" },
      "100",
      /AUTHENTICATION, not an approval/,
    ],
    ["a CAPTURE named as the payment", { step: "CAPTURE" }, "100", /CAPTURE/],
    [
      "a declined authentication",
      { step: "AUTHENTICATION", status: "declined", reasonCode: "476" },
      "476",
      /AUTHENTICATION/,
    ],
  ])("unapproved: %s", (_, change, reasonCode, reason) => {
    expect(checkApproval({ ...approval, ...change }, session, belongs)).toEqual(
      {
        outcome: "unapproved",
        reasonCode,
        reason: expect.stringMatching(reason),
      }
    )
  })

  it("a declined record with another amount is unapproved, not a mismatch to reverse", () => {
    expect(
      checkApproval(
        { ...approval, status: "declined", reasonCode: "204", amount: 1 },
        session,
        belongs
      ).outcome
    ).toBe("unapproved")
  })
})
