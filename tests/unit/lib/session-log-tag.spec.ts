import { redactSessionIds, sessionLogTag } from "../../../src/lib/log-redaction"

/**
 * Issue 39: a session id opens the pay page with the shopper's email, phone
 * and address, and log lines printed it. A log line keeps enough of it to
 * find the session in the admin, and not enough to open the page.
 */
describe("sessionLogTag: a session id in a log line", () => {
  const id = "payses_01JDQ8Z3W6C4M2N7P9R5T1V3XY"

  it("keeps the kind of id and its last six characters, which the admin shows in full", () => {
    expect(sessionLogTag(id)).toBe("payses_…T1V3XY")
    expect(id.endsWith(sessionLogTag(id).slice("payses_…".length))).toBe(true)
  })

  it("leaves out the 20 characters that would let anyone open the pay page", () => {
    const tag = sessionLogTag(id)
    expect(tag).not.toContain(id.slice("payses_".length, -6))
    expect(tag.length).toBeLessThan(id.length - 10)
  })

  it.each([
    ["payses_01ABC\ninjected", "payses_…jected"],
    ["payses_x y/../z", "payses_…y????z"],
    ["", "payses_…"],
  ])("turns what no id holds into ?, so a request cannot forge a log line: %p", (given, expected) => {
    expect(sessionLogTag(given)).toBe(expected)
    expect(sessionLogTag(given)).not.toMatch(/[\n\r]/)
  })

  it("tags every session id inside a message, and leaves the rest of it", () => {
    expect(redactSessionIds(`payment session ${id} of order order_01X was not authorized (${id})`)).toBe(
      "payment session payses_…T1V3XY of order order_01X was not authorized (payses_…T1V3XY)"
    )
    expect(redactSessionIds("transaction 7001 not found")).toBe("transaction 7001 not found")
  })
})
