import { creditLineNeeded, openChangeRefusal } from "../../../src/providers/card-service/order-change-guard"

/**
 * Medusa's refund route adds a credit line (an order change of its own) for
 * the part of a refund the order does not already owe the customer; only
 * then can an open order change make it fail after the money has gone.
 */
describe("whether Medusa's refund route needs an order change", () => {
  it("does for a refund of an order that owes the customer nothing", () => {
    expect(creditLineNeeded({ pending_difference: 0 }, 10)).toBe(true)
    expect(creditLineNeeded(undefined, 10)).toBe(true)
  })

  it("does for an order the customer still owes money on", () => {
    expect(creditLineNeeded({ pending_difference: 5 }, 10)).toBe(true)
  })

  it("does not for a refund no larger than what the order owes the customer", () => {
    expect(creditLineNeeded({ pending_difference: -10 }, 10)).toBe(false)
    expect(creditLineNeeded({ pending_difference: -12.5 }, 10)).toBe(false)
  })

  it("does for the part beyond what the order owes, read from the raw value first", () => {
    expect(creditLineNeeded({ pending_difference: -10 }, 10.01)).toBe(true)
    expect(creditLineNeeded({ raw_pending_difference: { value: "-3", precision: 20 }, pending_difference: -30 }, 5)).toBe(true)
  })

  it("refuses nothing where the application's query cannot be read (a provider built outside Medusa)", async () => {
    await expect(openChangeRefusal("paycol_1", 10)).resolves.toBeNull()
    await expect(openChangeRefusal(null, 10)).resolves.toBeNull()
  })
})
