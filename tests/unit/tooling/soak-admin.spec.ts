import { AUTHORIZE_ONLY_PROVIDER_ID, CARD_PROVIDER_ID } from "../../../scripts/lib/load-cluster"
import { AFTER_CHECKOUT_SHARE, MANUAL_CAPTURE_ACTIONS, ownerPlans, providerFor, type AdminAction } from "../../../scripts/lib/soak-admin"

// bench:soak's store owner (issue 40): the actions after the checkout are
// drawn from a stream of the run's seed of their own.

describe("ownerPlans", () => {
  const draw = (seed: number, n: number, earlier: (i: number) => AdminAction | null = () => null) => {
    const plan = ownerPlans(seed)
    return Array.from({ length: n }, (_, i) => plan(earlier(i)))
  }

  it("draws the same plans for the same seed, and others for another", () => {
    expect(draw(61518, 500)).toEqual(draw(61518, 500))
    expect(draw(61518, 500)).not.toEqual(draw(61519, 500))
  })

  it("keeps the action the older draw gave, and stays in step whether or not a checkout had one", () => {
    const withEarlier = draw(7, 300, (i) => (i % 10 === 0 ? "cancel" : null))
    const without = draw(7, 300)
    withEarlier.forEach((plan, i) => {
      if (i % 10 === 0) expect(plan?.action).toBe("cancel")
      else expect(plan).toEqual(without[i])
    })
  })

  it("gives each action about its share, with draws in [0, 1)", () => {
    const plans = draw(12345, 40_000)
    for (const [action, share] of Object.entries(AFTER_CHECKOUT_SHARE)) {
      const n = plans.filter((p) => p?.action === action).length
      expect(n / plans.length).toBeGreaterThan(share * 0.85)
      expect(n / plans.length).toBeLessThan(share * 1.15)
    }
    const total = Object.values(AFTER_CHECKOUT_SHARE).reduce((sum, s) => sum + s, 0)
    expect(plans.filter((p) => p === null).length / plans.length).toBeCloseTo(1 - total, 1)
    expect(plans.every((plan) => (plan?.draws ?? []).every((d) => d >= 0 && d < 1))).toBe(true)
  })

  it("has the orders the owner captures by hand paid with the authorize-only provider", () => {
    for (const action of MANUAL_CAPTURE_ACTIONS) expect(providerFor({ action, draws: [] })).toBe(AUTHORIZE_ONLY_PROVIDER_ID)
    for (const action of ["refund-twice", "cancel", "return-refund", "exchange"] as const) {
      expect(providerFor({ action, draws: [] })).toBe(CARD_PROVIDER_ID)
    }
    expect(providerFor(null)).toBe(CARD_PROVIDER_ID)
  })
})
