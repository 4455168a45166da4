/**
 * Faults for the JSON endpoints, so client tests can meet what the network
 * and a busy service do (wire-choices "Follow-ons": 500/503, delays, dropped
 * connections are service errors to the client), and for the browser's form
 * post to /order/start when a fault names that path.
 */
export type FaultSpec =
  /** Answer with this status and `{"decision":"REJECT","reasonCode":"150"}` without processing. */
  | { type: "status"; status: 500 | 503; count?: number; path?: string }
  /** Process the request, then hold the answer for `ms`. */
  | { type: "delay"; ms: number; count?: number; path?: string }
  /**
   * Process the request, then destroy the connection without answering: the
   * operation happened but the client never learns it ("indeterminate").
   */
  | { type: "destroy"; count?: number; path?: string }

type Pending = { spec: FaultSpec; remaining: number }

export class FaultQueue {
  private pending: Pending[] = []

  add(spec: FaultSpec): void {
    this.pending.push({
      spec,
      remaining: Math.max(1, Math.floor(spec.count ?? 1)),
    })
  }

  clear(): void {
    this.pending = []
  }

  /** Takes the first fault that applies to this path, counting it down. */
  take(pathname: string): FaultSpec | undefined {
    return this.takeWhere(
      (spec) =>
        !spec.path ||
        pathname === spec.path ||
        pathname.startsWith(`${spec.path}/`)
    )
  }

  /**
   * Takes the first fault that names exactly this path: a fault without a
   * path is for the JSON endpoints, not for the browser's pages.
   */
  takeNamed(pathname: string): FaultSpec | undefined {
    return this.takeWhere((spec) => spec.path === pathname)
  }

  private takeWhere(
    applies: (spec: FaultSpec) => boolean
  ): FaultSpec | undefined {
    const index = this.pending.findIndex(({ spec }) => applies(spec))
    if (index < 0) {
      return undefined
    }
    const entry = this.pending[index]
    entry.remaining -= 1
    if (entry.remaining <= 0) {
      this.pending.splice(index, 1)
    }
    return entry.spec
  }
}
