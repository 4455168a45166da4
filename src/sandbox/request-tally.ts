/**
 * How many requests each endpoint received, for tests and benchmarks that
 * count the calls a merchant makes (issue 13: how many service calls an
 * anonymous request may cause). Retrieve paths are counted together, and
 * paths the sandbox does not serve are counted as "other", so the tally
 * stays small however many ids are asked for.
 */
export class RequestTally {
  private readonly counts = new Map<string, number>()

  count(method: string | undefined, pathname: string): void {
    const key = `${method ?? "GET"} ${endpointOf(pathname)}`
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1)
  }

  /** Requests by `"METHOD endpoint"`, e.g. `{"GET /authorize": 2, "GET /payment/retrieve": 5}`. */
  snapshot(): Record<string, number> {
    return Object.fromEntries(this.counts)
  }

  clear(): void {
    this.counts.clear()
  }
}

const KNOWN = new Set([
  "/authorize",
  "/order/start",
  "/reverse",
  "/capture",
  "/refund",
  "/void",
])

function endpointOf(pathname: string): string {
  if (KNOWN.has(pathname)) return pathname
  for (const prefix of ["/payment/retrieve", "/3ds", "/_sandbox"]) {
    if (pathname === prefix || pathname.startsWith(`${prefix}/`)) return prefix
  }
  return "other"
}

/**
 * When each known transaction was retrieved (section 4.5), and how many
 * retrieves named a transaction the sandbox does not have: for the soak,
 * which bounds how often the sweep asks again about a payment it has settled
 * (issue 39) and counts the lookups that made-up ids cause. Kept per known
 * transaction only, so made-up ids cannot grow it.
 */
export class RetrieveTally {
  private readonly times = new Map<string, number[]>()
  private unknownCount = 0

  note(transactionId: string, at: number): void {
    const times = this.times.get(transactionId)
    if (times) times.push(at)
    else this.times.set(transactionId, [at])
  }

  noteUnknown(): void {
    this.unknownCount++
  }

  /** The times (ms since the epoch) the transaction was retrieved and answered, oldest first. */
  of(transactionId: string): number[] {
    return [...(this.times.get(transactionId) ?? [])]
  }

  /** Retrieves answered 404 because no such transaction was recorded. */
  unknown(): number {
    return this.unknownCount
  }

  clear(): void {
    this.times.clear()
    this.unknownCount = 0
  }
}
