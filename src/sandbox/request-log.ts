import { RequestTally } from "./request-tally"
/**
 * What the sandbox was asked, when, and how long it took to answer: for tests
 * that must wait until a request has reached the service, and for the load
 * benchmark's split of a checkout's time. Paths only (no bodies, no headers):
 * nothing secret or card-related is kept.
 */
export type SandboxRequest = {
  method: string
  /** The path without the query string. */
  path: string
  /** Wall-clock time the request arrived (ms since the epoch). */
  startedAt: number
  /** Time to the last byte of the answer; absent while it is running or if it was never answered. */
  ms?: number
  status?: number
}

/** The newest requests are kept; a long-running sandbox does not grow without bound. */
const KEPT = 20_000

export class RequestLog {
  private entries: SandboxRequest[] = []
  /** Every request counted per endpoint, kept whole when old entries are dropped. */
  readonly tally = new RequestTally()

  /** Notes a request as it arrives; the returned function notes its answer. */
  start(method: string, path: string): (status: number) => void {
    this.tally.count(method, path)
    const entry: SandboxRequest = { method, path, startedAt: Date.now() }
    this.entries.push(entry)
    if (this.entries.length > KEPT) this.entries.splice(0, this.entries.length - KEPT)
    return (status) => {
      entry.status = status
      entry.ms = Date.now() - entry.startedAt
    }
  }

  all(): SandboxRequest[] {
    return [...this.entries]
  }

  clear(): void {
    this.entries = []
    this.tally.clear()
  }
}
