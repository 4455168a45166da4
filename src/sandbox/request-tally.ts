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
