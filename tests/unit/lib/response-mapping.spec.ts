import { CardServiceError } from "../../../src/lib/card-service-error"
import { readVerdict, type WireResponse } from "../../../src/lib/response-mapping"

// What a caller may do next after a 2.5 answer (capture, refund, reverse):
// the error's category and retrySafe decide between retrying, reconciling
// and giving up. The client's own spec covers the common answers end to end;
// these are the rarer statuses and bodies, as pure inputs.
const scrub = (text: string) => text.replaceAll("S3CR3T", "***")

function errorOf(response: WireResponse): CardServiceError {
  try {
    readVerdict("capture", response, scrub)
  } catch (error) {
    if (error instanceof CardServiceError) return error
    throw error
  }
  throw new Error("readVerdict returned instead of throwing")
}

describe("readVerdict for answers without an ACCEPT", () => {
  it.each<[string, WireResponse, Partial<CardServiceError>]>([
    ["a 4xx without a verdict: refused before acting", { status: 404, json: {} }, { category: "invalid_request", retrySafe: true, httpStatus: 404 }],
    ["the lowest 4xx", { status: 400, json: "no json" }, { category: "invalid_request", retrySafe: true, httpStatus: 400 }],
    ["the highest 4xx", { status: 499, json: undefined }, { category: "invalid_request", retrySafe: true, httpStatus: 499 }],
    ["a 429: the service is limiting requests", { status: 429, json: {} }, { category: "service_error", retrySafe: true, httpStatus: 429 }],
    ["a 5xx without a verdict: it may have acted", { status: 500, json: {} }, { category: "indeterminate", retrySafe: false, httpStatus: 500 }],
    ["a status no one expects (a redirect)", { status: 302, json: {} }, { category: "invalid_response", retrySafe: false, httpStatus: 302 }],
    [
      "a REJECT for part of the amount (110)",
      { status: 200, json: { decision: "REJECT", reasonCode: "110", transactionId: "tx-1", originalTransactionId: "auth-1" } },
      { category: "declined", reasonCode: "110", transactionId: "tx-1" },
    ],
  ])("%s", (_name, response, expected) => {
    expect(errorOf(response)).toMatchObject(expected)
  })

  it.each<[string, unknown, string | undefined]>([
    ["names the transaction a malformed 200 carries", { decision: "ACCEPT", transactionId: "tx-9" }, "tx-9"],
    ["names none for an empty id", { decision: "ACCEPT", transactionId: "" }, undefined],
    ["names none for an id that is no string", { decision: "ACCEPT", transactionId: 9 }, undefined],
    ["names none for a body that is no object", "tx-9", undefined],
  ])("%s, so it can be reconciled", (_name, json, transactionId) => {
    const error = errorOf({ status: 200, json })
    expect(error).toMatchObject({ category: "invalid_response", retrySafe: false })
    expect(error.transactionId).toBe(transactionId)
  })

  it("quotes the service's own text on a 429 with the client's secrets removed", () => {
    const error = errorOf({ status: 429, json: { error: "too many", message: "key S3CR3T" } })
    expect(error.message).toContain("too many")
    expect(error.message).toContain("key ***")
    expect(error.message).not.toContain("S3CR3T")
  })
})
