import {
  CARD_SERVICE_ERROR_CATEGORIES,
  CardServiceError,
  categorize,
  describeReasonCode,
} from "../../../src/lib"

describe("CardServiceError", () => {
  it("carries the section 7 flag and meaning and says them in its message", () => {
    const e = new CardServiceError({
      category: "not_allowed_in_state",
      operation: "capture",
      retrySafe: true,
      decision: "REJECT",
      reasonCode: "237",
      httpStatus: 200,
      transactionId: "tx-9",
      detail: "rejected by the service",
    })
    expect(e).toBeInstanceOf(Error)
    expect(e.name).toBe("CardServiceError")
    expect(e.flag).toBe("DINVALIDDATA")
    expect(e.reasonMeaning).toBe(
      "Decline: the authorization was already reversed"
    )
    expect(e.message).toBe(
      "card service capture: rejected by the service (reason 237 DINVALIDDATA: Decline: the authorization was already reversed) [HTTP 200] [transaction tx-9]"
    )
    expect(e.toJSON()).toMatchObject({
      category: "not_allowed_in_state",
      reasonCode: "237",
      retrySafe: true,
    })
  })

  it("has type guards for the cases a caller handles specially", () => {
    const indeterminate = new CardServiceError({
      category: "indeterminate",
      operation: "refund",
      retrySafe: false,
      detail: "x",
    })
    const notFound = new CardServiceError({
      category: "invalid_request",
      operation: "retrieve",
      retrySafe: true,
      httpStatus: 404,
      detail: "x",
    })
    expect(CardServiceError.isIndeterminate(indeterminate)).toBe(true)
    expect(CardServiceError.isIndeterminate(notFound)).toBe(false)
    expect(CardServiceError.isNotFound(notFound)).toBe(true)
    expect(CardServiceError.is(new Error("x"))).toBe(false)
    expect(CARD_SERVICE_ERROR_CATEGORIES).toHaveLength(8)
  })

  it.each([
    ["100", "success"],
    ["110", "partial"],
    ["102", "invalid_request"],
    ["246", "not_allowed_in_state"],
    ["150", "service_error"],
    ["250", "service_error"],
    ["490", "declined"],
    ["777", "declined"],
  ])("reason code %s is %s", (code, category) => {
    expect(categorize(code)).toBe(category)
    expect(describeReasonCode(code).category).toBe(category)
  })
})
