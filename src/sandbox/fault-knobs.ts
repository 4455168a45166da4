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

/** A JSON request whose answer the sandbox holds after acting on it (AnswerHolds). */
export type HeldAnswer = {
  method: string
  pathname: string
  /** The request's JSON body (POST), undefined for a GET. */
  body: Record<string, unknown> | undefined
  /** What the sandbox would answer. */
  status: number
  payload: unknown
  /** The client's port of the connection (which process asked, for the harness). */
  remotePort: number | undefined
  /** Sends the answer now. */
  release(): void
  /** Cuts the connection without an answer: the operation happened, the client never learns it. */
  drop(): void
}

export type HoldSpec = {
  /** The endpoint (`/capture`) or a path prefix (`/payment/retrieve/<id>`). */
  path: string
  /** Lets the first `skip` matching requests through (default 0). */
  skip?: number
  /** Only requests for which this holds are counted and held. */
  match?: (request: { pathname: string; body: Record<string, unknown> | undefined }) => boolean
  /** Called with the held answer; nothing is sent until it releases or drops it. */
  onHold: (held: HeldAnswer) => void
}

/**
 * Answers held after the service acted (in process only: the crash-point
 * harness, scripts/bench-crash-points.ts). The request is processed and
 * recorded exactly as without a hold; only its answer waits for the holder,
 * who can kill the client in the meantime. One hold fires once.
 */
export class AnswerHolds {
  private pending: { spec: HoldSpec; seen: number }[] = []

  add(spec: HoldSpec): void {
    this.pending.push({ spec, seen: 0 })
  }

  clear(): void {
    this.pending = []
  }

  /** The hold this request fires, counting it, or undefined. */
  take(pathname: string, body: Record<string, unknown> | undefined): HoldSpec | undefined {
    const index = this.pending.findIndex(({ spec }) => {
      const onPath = pathname === spec.path || pathname.startsWith(`${spec.path}/`)
      return onPath && (!spec.match || spec.match({ pathname, body }))
    })
    if (index < 0) return undefined
    const entry = this.pending[index]
    if (entry.seen < (entry.spec.skip ?? 0)) {
      entry.seen += 1
      return undefined
    }
    this.pending.splice(index, 1)
    return entry.spec
  }
}
