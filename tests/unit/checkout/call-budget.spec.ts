import {
  AnonymousCallBudget,
  SESSION_BURST,
  SESSION_REFILL_MS,
  TokenBucket,
} from "../../../src/checkout/call-budget"

function clock(start = 1_000_000) {
  let now = start
  return { now: () => now, advance: (ms: number) => (now += ms) }
}

describe("TokenBucket", () => {
  it("gives its capacity at once, then one token per refill period", () => {
    const time = clock()
    const bucket = new TokenBucket(3, 1000, time.now)

    const first = [bucket.take(), bucket.take(), bucket.take(), bucket.take()]
    time.advance(999)
    const early = bucket.take()
    time.advance(1)
    const onTime = bucket.take()

    expect(first).toEqual([true, true, true, false])
    expect(early).toBe(false)
    expect(onTime).toBe(true)
  })

  it("never holds more than its capacity, however long it waits", () => {
    const time = clock()
    const bucket = new TokenBucket(2, 10, time.now)
    time.advance(1_000_000)

    expect([bucket.take(), bucket.take(), bucket.take()]).toEqual([
      true,
      true,
      false,
    ])
  })
})

describe("AnonymousCallBudget", () => {
  it("bounds one session to its burst, then to one call per refill period", () => {
    const time = clock()
    const budget = new AnonymousCallBudget(1000, time.now)

    const allowed = Array.from({ length: 50 }, () =>
      budget.take("payses_A")
    ).filter(Boolean).length
    time.advance(SESSION_REFILL_MS)
    const later = [budget.take("payses_A"), budget.take("payses_A")]

    expect(allowed).toBe(SESSION_BURST)
    expect(later).toEqual([true, false])
    expect(budget.take("payses_B")).toBe(true)
  })

  it("bounds all sessions together to five seconds' worth of the rate, then the rate", () => {
    const time = clock()
    const budget = new AnonymousCallBudget(4, time.now)

    const burst = Array.from({ length: 100 }, (_, i) =>
      budget.take(`payses_${i}`)
    ).filter(Boolean).length
    time.advance(1000)
    const nextSecond = Array.from({ length: 100 }, (_, i) =>
      budget.take(`payses_x${i}`)
    ).filter(Boolean).length

    expect(burst).toBe(20)
    expect(nextSecond).toBe(4)
  })

  it("does not charge a session for calls the overall bound refused", () => {
    const time = clock()
    const budget = new AnonymousCallBudget(1, time.now)
    const first = Array.from({ length: 5 }, () => budget.take("payses_A"))
    const refused = Array.from({ length: 20 }, () =>
      budget.take("payses_A")
    ).filter(Boolean).length

    time.advance(5000)
    const afterRefill = Array.from({ length: 5 }, () => budget.take("payses_A"))

    expect(first.every(Boolean)).toBe(true)
    expect(refused).toBe(0)
    // The session still had half its burst; only the overall bound had run out.
    expect(afterRefill).toEqual([true, true, true, true, true])
  })
})
