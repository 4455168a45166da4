/**
 * A card service across the internet (issue 43): every request to the
 * sandbox waits `ms`, give or take up to `jitterMs` (uniformly), before the
 * sandbox handles it, as a round trip to a distant service would add. The
 * control endpoints (/_sandbox/) are not delayed; nor are the callbacks the
 * sandbox sends (their timing is the callback knobs' `delayMs`).
 */
export type NetworkLatency = {
  /** The round trip added to each request, in ms. Default 0. */
  ms: number
  /** Up to this much more or less, drawn per request. Default 0. */
  jitterMs: number
}

export const NO_LATENCY: NetworkLatency = { ms: 0, jitterMs: 0 }

/** A round trip longer than a minute is a fault, not a latency (fault knobs). */
const MOST_MS = 60_000

/** The delay for one request: ms ± jitter, never below 0. */
export function drawDelay(latency: NetworkLatency, random: () => number = Math.random): number {
  const jitter = latency.jitterMs > 0 ? (random() * 2 - 1) * latency.jitterMs : 0
  return Math.max(0, Math.round(latency.ms + jitter))
}

/** `{ ms, jitterMs }` as the control endpoint and the command take it; a message naming the bad field otherwise. */
export function parseLatency(body: unknown): Partial<NetworkLatency> | string {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return 'the body must be a JSON object such as {"ms": 100, "jitterMs": 20}'
  }
  const latency: Partial<NetworkLatency> = {}
  for (const [key, value] of Object.entries(body)) {
    if (key !== "ms" && key !== "jitterMs") return `unknown field ${JSON.stringify(key)}; known: ms, jitterMs`
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > MOST_MS) {
      return `${key} must be a whole number from 0 to ${MOST_MS}`
    }
    latency[key] = value
  }
  return latency
}
