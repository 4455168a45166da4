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
    // Everything else is a final no for this attempt.
    ["481", "error"],
    ["476", "error"],
    ["203", "error"],
    ["204", "error"],
    ["110", "error"],
    ["100", "error"],
    ["999", "error"],
  ])("%s -> %s", (code, status) => {
    expect(statusForUnapproved(code)).toBe(status)
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
    "every %s code maps to error, except 475 and 480",
    (_, codes) => {
      for (const code of codes) {
        const expected =
          code === "475"
            ? "requires_more"
            : code === "480"
              ? "pending"
              : "error"
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
    ["failed", "error"],
  ] as const)("%s -> %s", (state, status) => {
    expect(statusForState(state)).toBe(status)
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
