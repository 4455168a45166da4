import { reconcileSchedule } from "../../../src/jobs/card-service-reconcile"
import { parseOptions } from "../../../src/providers/card-service/options"

const valid = {
  clientCode: "client",
  clientSecret: "secret",
  verifyId: "verify",
  merchantId: "merchant",
  testUrl: "https://test.card.example",
  backendUrl: "https://api.shop.example",
  storefrontUrl: "https://shop.example",
}

describe("the sweep's settings", () => {
  it.each([
    [undefined, "* * * * *"],
    ["", "* * * * *"],
    ["   ", "* * * * *"],
    ["*/5 * * * *", "*/5 * * * *"],
    ["0 */2 * * * *", "0 */2 * * * *"],
    ["off", "off"],
  ])("CARD_SERVICE_RECONCILE_SCHEDULE=%j runs on %j", (given, expected) => {
    expect(reconcileSchedule({ CARD_SERVICE_RECONCILE_SCHEDULE: given })).toBe(
      expected
    )
  })

  it.each(["every minute", "* * *", "1 2 3 4 5 6 7"])(
    "refuses %j with a message naming the variable",
    (given) => {
      expect(() =>
        reconcileSchedule({ CARD_SERVICE_RECONCILE_SCHEDULE: given })
      ).toThrow(/CARD_SERVICE_RECONCILE_SCHEDULE must be a cron expression/)
    }
  )

  it("defaults to on, with 15 minutes of grace; blank environment values are unset", () => {
    expect(parseOptions(valid)).toMatchObject({
      reconcile: true,
      reconcileGraceMs: 900_000,
    })
    expect(
      parseOptions({ ...valid, reconcile: "", reconcileGraceMs: "" })
    ).toMatchObject({ reconcile: true, reconcileGraceMs: 900_000 })
  })

  it("reads the switch and the grace period from environment strings", () => {
    expect(
      parseOptions({ ...valid, reconcile: "false", reconcileGraceMs: "60000" })
    ).toMatchObject({ reconcile: false, reconcileGraceMs: 60_000 })
  })

  it("names the environment variable of a bad grace period", () => {
    expect(() => parseOptions({ ...valid, reconcileGraceMs: "soon" })).toThrow(
      /reconcileGraceMs: must be a whole number of milliseconds above 0 \(CARD_SERVICE_RECONCILE_GRACE_MS/
    )
  })
})
