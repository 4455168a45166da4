import { CardServiceError } from "../../../src/lib/card-service-error"
import { OPERATIONS } from "../../../src/lib/card-service-operations"
import {
  codeRejectedTwice,
  codeUnavailable,
  readDocument,
  readVerdict,
  serverError,
  transportError,
  type WireResponse,
} from "../../../src/lib/response-mapping"

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
    ["names none for a null body", null, undefined],
  ])("%s, so it can be reconciled", (_name, json, transactionId) => {
    const error = errorOf({ status: 200, json })
    expect(error).toMatchObject({ category: "invalid_response", retrySafe: false })
    expect(error.transactionId).toBe(transactionId)
  })

  it("quotes at most 200 characters of the service's text", () => {
    const error = errorOf({ status: 429, json: { error: "x".repeat(1000) } })
    expect(error.message).toContain("x".repeat(200))
    expect(error.message).not.toContain("x".repeat(201))
  })

  it("quotes the service's own text on a 429 with the client's secrets removed", () => {
    const error = errorOf({ status: 429, json: { error: "too many", message: "key S3CR3T" } })
    expect(error.message).toContain("too many")
    expect(error.message).toContain("key ***")
    expect(error.message).not.toContain("S3CR3T")
  })
})

/** The error a call throws, or a failure of the test when it returns. */
function thrown(call: () => unknown): CardServiceError {
  try {
    call()
  } catch (error) {
    if (error instanceof CardServiceError) return error
    throw error
  }
  throw new Error("returned instead of throwing")
}

const accept = { decision: "ACCEPT", reasonCode: "100", transactionId: "tx-2", originalTransactionId: "auth-1" }

describe("readVerdict for an ACCEPT and for REJECTs", () => {
  it("returns an ACCEPT's result", () => {
    expect(readVerdict("capture", { status: 200, json: accept }, scrub)).toMatchObject({ transactionId: "tx-2" })
  })

  it.each<[string, WireResponse, Partial<CardServiceError>]>([
    ["a decline (202)", { status: 200, json: { ...accept, decision: "REJECT", reasonCode: "202" } }, { category: "declined", retrySafe: true, decision: "REJECT", reasonCode: "202" }],
    ["an E-flag error (150): it may have acted", { status: 200, json: { ...accept, decision: "REJECT", reasonCode: "150" } }, { category: "service_error", retrySafe: false }],
    ["a REJECT with a success code", { status: 200, json: { ...accept, decision: "REJECT", reasonCode: "100" } }, { category: "invalid_response", retrySafe: false }],
    ["a REJECT without an id", { status: 200, json: { decision: "REJECT", reasonCode: "202" } }, { category: "declined", httpStatus: 200 }],
    ["a REJECT carried by a 400", { status: 400, json: { decision: "REJECT", reasonCode: "102" } }, { category: "invalid_request", httpStatus: 400 }],
    ["a REJECT carried by a 503", { status: 503, json: { decision: "REJECT", reasonCode: "150" } }, { category: "service_error", retrySafe: false, httpStatus: 503 }],
    ["an ACCEPT carried by a 500", { status: 500, json: accept }, { category: "indeterminate", retrySafe: false }],
  ])("%s", (_name, response, expected) => {
    expect(errorOf(response)).toMatchObject(expected)
  })

  it("keeps no empty transaction id from a REJECT", () => {
    expect(errorOf({ status: 200, json: { ...accept, decision: "REJECT", reasonCode: "202", transactionId: "" } }).transactionId).toBeUndefined()
  })
})

describe("readDocument (authorize, retrieve)", () => {
  it("returns a 200's document", () => {
    expect(readDocument(OPERATIONS.authorize, { status: 200, json: { Authorization: "code" } }, scrub)).toEqual({ Authorization: "code" })
  })

  it.each<[string, () => unknown, Partial<CardServiceError>]>([
    ["a 200 that does not fit: safe to ask again", () => readDocument(OPERATIONS.authorize, { status: 200, json: {} }, scrub, "tx-7"), { category: "invalid_response", retrySafe: true, httpStatus: 200, transactionId: "tx-7" }],
    ["a named refusal (401 to authorize)", () => readDocument(OPERATIONS.authorize, { status: 401, json: {} }, scrub), { category: "credentials", retrySafe: true, httpStatus: 401 }],
    ["a named refusal (404 to retrieve)", () => readDocument(OPERATIONS.retrieve, { status: 404, json: {} }, scrub, "tx-8"), { category: "invalid_request", httpStatus: 404, transactionId: "tx-8" }],
    ["an unnamed 4xx", () => readDocument(OPERATIONS.retrieve, { status: 409, json: {} }, scrub), { category: "invalid_request", retrySafe: true, httpStatus: 409 }],
    ["a 5xx", () => readDocument(OPERATIONS.retrieve, { status: 502, json: {} }, scrub), { category: "service_error", retrySafe: true, httpStatus: 502 }],
    ["a 500", () => readDocument(OPERATIONS.retrieve, { status: 500, json: {} }, scrub), { category: "service_error", retrySafe: true, httpStatus: 500 }],
    ["a redirect", () => readDocument(OPERATIONS.retrieve, { status: 302, json: {} }, scrub), { category: "invalid_response", httpStatus: 302 }],
    ["a 404 for an operation that names no refusals", () => readDocument(OPERATIONS.capture, { status: 404, json: {} }, scrub), { category: "invalid_request", httpStatus: 404 }],
  ])("%s", (_name, call, expected) => {
    expect(thrown(call)).toMatchObject(expected)
  })

  it("quotes the service on a refusal that says so, scrubbed, and not on one that does not", () => {
    const says = { error: "denied", message: "for S3CR3T" }
    const credentials = thrown(() => readDocument(OPERATIONS.authorize, { status: 403, json: says }, scrub))
    const missing = thrown(() => readDocument(OPERATIONS.retrieve, { status: 404, json: says }, scrub))
    expect(credentials.message).toContain("for ***")
    expect(credentials.message).not.toContain("S3CR3T")
    expect(missing.message).not.toContain("denied")
  })
})

describe("transportError", () => {
  const failure = (sent: boolean, timeout: boolean) => ({ sent, timeout, code: "ECODE", error: new Error("x") })
  const safe = { name: "retrieve" as const, retrySafe: true }
  const unsafe = { name: "capture" as const, retrySafe: false }

  it.each<[string, typeof safe | typeof unsafe, ReturnType<typeof failure>, Partial<CardServiceError>]>([
    ["a safe request that timed out after sending", safe, failure(true, true), { category: "timeout", retrySafe: true }],
    ["a safe request whose connection failed after sending", safe, failure(true, false), { category: "service_error", retrySafe: true }],
    ["a safe request that never reached the service", safe, failure(false, true), { category: "service_error", retrySafe: true }],
    ["an unsafe request never sent: safe to send again", unsafe, failure(false, false), { category: "service_error", retrySafe: true }],
    ["an unsafe request sent, then lost: the outcome is unknown", unsafe, failure(true, true), { category: "indeterminate", retrySafe: false }],
  ])("%s", (_name, operation, what, expected) => {
    const error = transportError(operation, what, 2)
    expect(error).toMatchObject({ operation: operation.name, ...expected })
    expect(error.cause).toBe(what.error)
  })

  it("says an unsafe request that was never sent was not sent (so it may be sent again)", () => {
    expect(transportError(unsafe, failure(false, false), 1).message).toContain("nothing was sent")
  })

  it("counts its tries in words", () => {
    expect(transportError(safe, failure(true, false), 1).message).toContain("1 try")
    expect(transportError(safe, failure(true, false), 3).message).toContain("3 tries")
  })
})

describe("errors made after the answer", () => {
  it("a 5xx after the last try keeps the service's verdict and its text, scrubbed", () => {
    const error = serverError("retrieve", { status: 503, json: { decision: "REJECT", reasonCode: "150", error: "S3CR3T down" } }, 3, scrub)
    expect(error).toMatchObject({ category: "service_error", retrySafe: true, httpStatus: 503, decision: "REJECT", reasonCode: "150" })
    expect(error.message).toContain("*** down")
    expect(error.message).not.toContain("S3CR3T")
    expect(serverError("retrieve", { status: 500, json: "x" }, 1, scrub)).toMatchObject({ decision: undefined, reasonCode: undefined })
  })

  it("no verification code: not sent, safe to retry, the cause kept", () => {
    const cause = new CardServiceError({ category: "credentials", operation: "authorize", retrySafe: true, httpStatus: 401, detail: "refused" })
    const error = codeUnavailable("capture", cause)
    expect(error).toMatchObject({ category: "credentials", operation: "capture", retrySafe: true, httpStatus: 401 })
    expect(error.cause).toBe(cause)
  })

  it("a fresh code refused again: the merchant settings are wrong", () => {
    expect(codeRejectedTwice("capture", { status: 401, json: {} }, scrub)).toMatchObject({ category: "credentials", retrySafe: true, httpStatus: 401 })
  })
})

// What an error tells the operator to do next is part of its job (it is
// what the admin shows with the payment): the guidance, not its wording.
describe("the operator's next step in the error", () => {
  const sent = (timeout: boolean) => ({ sent: true, timeout, code: "ECODE", error: null })
  it.each<[string, () => CardServiceError, string[], string[]]>([
    ["a 5xx without a verdict to a money operation", () => errorOf({ status: 500, json: {} }), ["reconcile by retrieve"], []],
    ["an unexpected status", () => errorOf({ status: 302, json: {} }), ["302", "reconcile by retrieve"], []],
    ["a money operation lost after sending", () => transportError({ name: "capture", retrySafe: false }, sent(true), 1), ["timed out", "reconcile by retrieve"], []],
    ["a safe request whose connection failed", () => transportError({ name: "retrieve", retrySafe: true }, sent(false), 1), ["connection failed"], ["reconcile"]],
    ["a safe request that reached nothing", () => transportError({ name: "retrieve", retrySafe: true }, { ...sent(false), sent: false }, 1), ["could not reach the service"], []],
    ["no verification code", () => codeUnavailable("capture", new CardServiceError({ category: "credentials", operation: "authorize", retrySafe: true, detail: "refused" })), ["not sent"], []],
    ["a fresh code refused again", () => codeRejectedTwice("capture", { status: 401, json: {} }, scrub), ["verifyId", "merchantId"], []],
    ["a 429", () => errorOf({ status: 429, json: {} }), ["limiting requests"], []],
    ["a money answer that does not fit", () => errorOf({ status: 200, json: { decision: "ACCEPT" } }), ["does not fit the interface", "reconcile by retrieve"], []],
    ["a document that does not fit", () => thrown(() => readDocument(OPERATIONS.authorize, { status: 200, json: {} }, scrub)), ["does not fit the interface"], ["reconcile"]],
    ["a REJECT with a success code", () => errorOf({ status: 200, json: { ...accept, decision: "REJECT", reasonCode: "100" } }), ["success reason code"], []],
    ["a decline", () => errorOf({ status: 200, json: { ...accept, decision: "REJECT", reasonCode: "202" } }), ["rejected by the service"], ["success reason code"]],
  ])("%s", (_name, make, says, saysNot) => {
    const { message } = make()
    for (const text of says) expect(message).toContain(text)
    for (const text of saysNot) expect(message).not.toContain(text)
  })
})
