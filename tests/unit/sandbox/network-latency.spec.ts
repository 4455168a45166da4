import { drawDelay, parseLatency } from "../../../src/sandbox/network-latency"

describe("the sandbox's network latency", () => {
  it("adds the round trip, give or take the jitter drawn per request, never below 0", () => {
    expect(drawDelay({ ms: 100, jitterMs: 0 })).toBe(100)
    expect(drawDelay({ ms: 100, jitterMs: 20 }, () => 0)).toBe(80)
    expect(drawDelay({ ms: 100, jitterMs: 20 }, () => 0.5)).toBe(100)
    expect(drawDelay({ ms: 100, jitterMs: 20 }, () => 0.999999)).toBe(120)
    expect(drawDelay({ ms: 10, jitterMs: 50 }, () => 0)).toBe(0)
    expect(drawDelay({ ms: 0, jitterMs: 0 })).toBe(0)
  })

  it("spreads the jitter over the whole band", () => {
    const draws = Array.from({ length: 2000 }, () => drawDelay({ ms: 200, jitterMs: 50 }))
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(150)
    expect(Math.max(...draws)).toBeLessThanOrEqual(250)
    expect(Math.min(...draws)).toBeLessThan(160)
    expect(Math.max(...draws)).toBeGreaterThan(240)
  })

  it("takes ms and jitterMs as whole numbers up to a minute, and names what it refuses", () => {
    expect(parseLatency({ ms: 100, jitterMs: 20 })).toEqual({ ms: 100, jitterMs: 20 })
    expect(parseLatency({ jitterMs: 5 })).toEqual({ jitterMs: 5 })
    expect(parseLatency({})).toEqual({})
    expect(parseLatency({ ms: -1 })).toBe("ms must be a whole number from 0 to 60000")
    expect(parseLatency({ ms: 1.5 })).toBe("ms must be a whole number from 0 to 60000")
    expect(parseLatency({ jitterMs: 60_001 })).toBe("jitterMs must be a whole number from 0 to 60000")
    expect(parseLatency({ ms: "100" })).toBe("ms must be a whole number from 0 to 60000")
    expect(parseLatency({ latency: 100 })).toBe('unknown field "latency"; known: ms, jitterMs')
    expect(parseLatency([100])).toMatch(/^the body must be a JSON object/)
  })
})
