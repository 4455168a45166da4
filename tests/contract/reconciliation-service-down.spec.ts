import { CardServiceError, type CardServiceErrorCategory } from "../../src/lib/card-service-error"
import { isServiceDown } from "../../src/reconciliation/service-down"

/**
 * When the sweep stops a pass and backs off (service-down.ts): the service
 * is unreachable or failing. Any other error is one session's and the pass
 * goes on to the next; stopping for it would leave the rest of the batch
 * unswept, and going on through an outage would knock on a service that is
 * down once a session.
 */

const error = (category: CardServiceErrorCategory, httpStatus?: number) =>
  new CardServiceError({
    category,
    operation: "retrieve",
    retrySafe: true,
    detail: "what happened",
    ...(httpStatus !== undefined ? { httpStatus } : {}),
  })

describe("whether an error means the card service is down (isServiceDown)", () => {
  it.each([
    ["unreachable or an E-flag failure", error("service_error")],
    ["a timeout", error("timeout")],
    ["HTTP 500", error("invalid_request", 500)],
    ["HTTP 503", error("not_allowed_in_state", 503)],
  ])("stops the sweep for %s", (_name, e) => {
    expect(isServiceDown(e)).toBe(true)
  })

  it.each([
    ["a decline", error("declined")],
    ["an invalid request (HTTP 400)", error("invalid_request", 400)],
    ["HTTP 499", error("invalid_request", 499)],
    ["refused credentials (HTTP 401)", error("credentials", 401)],
    ["a state the transaction is not in, with no HTTP status", error("not_allowed_in_state")],
  ])("goes on after %s", (_name, e) => {
    expect(isServiceDown(e)).toBe(false)
  })

  it.each([
    ["an error of another kind that looks like one", Object.assign(new Error("down"), { category: "service_error", httpStatus: 503 })],
    ["nothing", undefined],
    ["text", "service_error"],
  ])("goes on after %s", (_name, e) => {
    expect(isServiceDown(e)).toBe(false)
  })
})
