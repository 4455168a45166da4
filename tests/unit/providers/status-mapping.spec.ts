import {
  categorize,
  describeReasonCode,
  REASON_CODES,
} from "../../../src/lib/reason-codes"
import {
  reasonText,
  statusForState,
  statusForUnapproved,
} from "../../../src/providers/card-service/status-mapping"

describe("statusForUnapproved: reason code -> session status", () => {
  it.each([
    // Enrolled in payer authentication: the shopper must authenticate first.
    ["475", "requires_more"],
    // Under review: not a final verdict.
    ["480", "pending"],
    // Everything else ends this attempt, not the session: the shopper pays
    // again on it, and a storefront that looks for the cart's pending
    // session (Medusa's starter) still finds it.
    ["481", "pending"],
    ["476", "pending"],
    ["203", "pending"],
    ["204", "pending"],
    ["110", "pending"],
    ["100", "pending"],
    ["999", "pending"],
  ])("%s -> %s", (code, status) => {
    expect(statusForUnapproved(code)).toBe(status)
  })

  it("480 is an order on hold where Medusa places them (pending_authorization), and only 480", () => {
    expect(statusForUnapproved("480", true)).toBe("pending_authorization")
    expect(statusForUnapproved("481", true)).toBe("pending")
    expect(statusForUnapproved("475", true)).toBe("requires_more")
    expect(statusForUnapproved("100", true)).toBe("pending")
  })

  // One row per code of the section 7 table, grouped by the category callers branch on.
  const byCategory = Object.keys(REASON_CODES).reduce<Record<string, string[]>>(
    (groups, code) => {
      ;(groups[categorize(code)] ??= []).push(code)
      return groups
    },
    {}
  )

  it("the table has codes of every category", () => {
    expect(Object.keys(byCategory).sort()).toEqual([
      "declined",
      "invalid_request",
      "not_allowed_in_state",
      "partial",
      "service_error",
      "success",
    ])
  })

  it.each(Object.entries(byCategory))(
    "every %s code keeps the session pending, except 475",
    (_, codes) => {
      for (const code of codes) {
        const expected = code === "475" ? "requires_more" : "pending"
        expect([code, statusForUnapproved(code)]).toEqual([code, expected])
      }
    }
  )
})

describe("statusForState: stored state -> session status", () => {
  it.each([
    ["pending", "pending"],
    ["authorized", "authorized"],
    ["captured", "captured"],
    ["canceled", "canceled"],
  ] as const)("%s -> %s", (state, status) => {
    expect(statusForState(state)).toBe(status)
  })

  it.each([
    // The service's answer to one attempt: the session takes another.
    [{ code: "203", message: "declined" }, "pending"],
    [{ code: "476", message: "3-D Secure failed" }, "pending"],
    // The plugin will not use the session's data again: a new session.
    [{ code: "tampered", message: "altered" }, "error"],
    [{ code: "mismatch", message: "amount" }, "error"],
    [{ code: "foreign_transaction", message: "not ours" }, "error"],
    [null, "error"],
  ] as const)("failed with %j -> %s", (failure, status) => {
    expect(statusForState("failed", failure)).toBe(status)
  })
})

describe("reasonText", () => {
  it.each([
    ["203", undefined, "Decline: general card decline"],
    ["203", "Decline: general card decline", "Decline: general card decline"],
    [
      "204",
      "the issuer says no",
      "Decline: insufficient funds (the issuer says no)",
    ],
    ["999", undefined, "Reason code not in the section 7 table"],
  ])("%s with %j -> %s", (code, message, text) => {
    expect(reasonText(code, message)).toBe(text)
    expect(describeReasonCode(code).code).toBe(code)
  })
})
