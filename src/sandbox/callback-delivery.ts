import { setMaxListeners } from "node:events"
import { Agent, request } from "undici"

/**
 * Test knobs for the result callback (section 6 leaves retries "not shown";
 * wire-choices: any 2xx is success, otherwise the sandbox retries).
 */
export type CallbackKnobs = {
  /** Wait this long after the result is decided before the first attempt. */
  delayMs: number
  /** Further attempts after a non-2xx answer or a network error. */
  retries: number
  /** Pause between attempts. */
  retryIntervalMs: number
  /** How many copies of the callback to deliver (2 or more simulates duplicates). */
  duplicates: number
  /** Never send the callback (it is still listed by `callbacks()` as dropped). */
  drop: boolean
  /** Send only after the browser has been sent on (303 or final page written). */
  afterRedirect: boolean
  /** Body encoding: JSON (default) or application/x-www-form-urlencoded. */
  format: "json" | "form"
  /** Per-attempt time limit; a slower answer counts as a failed attempt. */
  timeoutMs: number
}

export const DEFAULT_CALLBACK_KNOBS: CallbackKnobs = {
  delayMs: 0,
  retries: 3,
  retryIntervalMs: 1000,
  duplicates: 1,
  drop: false,
  afterRedirect: false,
  format: "json",
  timeoutMs: 5000,
}

/** One attempt to deliver a callback, as `callbacks()` lists it. */
export type CallbackDelivery = {
  url: string
  merchantReferenceCode: string
  transactionId: string
  format: "json" | "form"
  body: Record<string, string>
  /** 1-based copy number (more than 1 only with the duplicates knob). */
  copy: number
  /** 1-based attempt number within the copy. */
  attempt: number
  /** HTTP status the callback server answered; absent on a network error or a drop. */
  status?: number
  ok: boolean
  dropped: boolean
  error?: string
  /** Wall-clock time of the attempt (ms). */
  at: number
  /** How long the merchant took to answer (or the attempt to fail), ms; absent for a drop. */
  ms?: number
}

type Logger = { debug?: (msg: string) => void; warn: (msg: string) => void }

/** Callbacks in flight to one merchant origin at once, unless the sandbox is told otherwise. */
export const DEFAULT_CALLBACK_CONNECTIONS = 16

/** Sends result callbacks, keeps a log of every attempt, and can be cancelled as a whole. */
export class CallbackDispatcher {
  readonly deliveries: CallbackDelivery[] = []
  private readonly agent: Agent
  private readonly abort = new AbortController()
  private readonly timers = new Set<NodeJS.Timeout>()
  private readonly waiters = new Set<() => void>()
  private readonly sleepers = new Set<() => void>()
  private closed = false

  /**
   * `connections`: how many callbacks it delivers to one merchant origin at
   * once (the interface does not say; a delivery waits for a free one, and
   * its attempt's `at` is when it was queued).
   */
  constructor(
    private readonly logger: Logger,
    connections = DEFAULT_CALLBACK_CONNECTIONS
  ) {
    if (!Number.isInteger(connections) || connections < 1) {
      throw new RangeError(`callbackConnections must be a whole number of 1 or more, got ${connections}`)
    }
    this.agent = new Agent({ connections, keepAliveTimeout: 1000 })
    // Every in-flight callback listens on the one signal that close() aborts.
    setMaxListeners(0, this.abort.signal)
  }

  /**
   * Starts delivery; the promise settles once the first attempt of the first
   * copy has finished (or at once for a dropped or delayed callback), so a
   * caller can hold the browser's redirect until the merchant has heard.
   */
  dispatch(
    url: string,
    body: Record<string, string>,
    knobs: CallbackKnobs
  ): Promise<void> {
    if (knobs.drop) {
      this.record({
        url,
        merchantReferenceCode: body.merchantReferenceCode ?? "",
        transactionId: body.transactionId ?? "",
        format: knobs.format,
        body,
        copy: 1,
        attempt: 0,
        ok: false,
        dropped: true,
        at: Date.now(),
      })
      return Promise.resolve()
    }
    let firstDone: () => void = () => {}
    const first = new Promise<void>((resolve) => (firstDone = resolve))
    void this.run(url, body, knobs, firstDone).finally(firstDone)
    return first
  }

  /** Resolves when `count` deliveries have been recorded, or rejects after `timeoutMs`. */
  waitFor(
    predicate: (deliveries: CallbackDelivery[]) => boolean,
    timeoutMs: number
  ): Promise<CallbackDelivery[]> {
    if (predicate(this.deliveries)) {
      return Promise.resolve([...this.deliveries])
    }
    return new Promise((resolve, reject) => {
      const check = () => {
        if (predicate(this.deliveries)) {
          cleanup()
          resolve([...this.deliveries])
        }
      }
      const timer = setTimeout(() => {
        cleanup()
        reject(new Error(`callbacks not delivered within ${timeoutMs} ms`))
      }, timeoutMs)
      const cleanup = () => {
        clearTimeout(timer)
        this.waiters.delete(check)
      }
      this.waiters.add(check)
    })
  }

  schedule(fn: () => void, ms: number): void {
    if (this.closed) {
      return
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      fn()
    }, ms)
    this.timers.add(timer)
  }

  async close(): Promise<void> {
    this.closed = true
    for (const timer of this.timers) {
      clearTimeout(timer)
    }
    this.timers.clear()
    for (const wake of [...this.sleepers]) {
      wake()
    }
    this.abort.abort()
    await this.agent.destroy().catch(() => undefined)
  }

  private async run(
    url: string,
    body: Record<string, string>,
    knobs: CallbackKnobs,
    firstDone: () => void
  ): Promise<void> {
    const copies = Math.max(1, Math.floor(knobs.duplicates))
    for (let copy = 1; copy <= copies; copy++) {
      for (let attempt = 1; attempt <= knobs.retries + 1; attempt++) {
        if (this.closed) {
          return
        }
        const ok = await this.attempt(url, body, knobs, copy, attempt)
        firstDone()
        if (ok) {
          break
        }
        if (attempt <= knobs.retries) {
          await this.sleep(knobs.retryIntervalMs)
        }
      }
    }
  }

  private async attempt(
    url: string,
    body: Record<string, string>,
    knobs: CallbackKnobs,
    copy: number,
    attempt: number
  ): Promise<boolean> {
    const entry: CallbackDelivery = {
      url,
      merchantReferenceCode: body.merchantReferenceCode ?? "",
      transactionId: body.transactionId ?? "",
      format: knobs.format,
      body,
      copy,
      attempt,
      ok: false,
      dropped: false,
      at: Date.now(),
    }
    try {
      const response = await request(url, {
        method: "POST",
        dispatcher: this.agent,
        signal: this.abort.signal,
        headersTimeout: knobs.timeoutMs,
        bodyTimeout: knobs.timeoutMs,
        headers: {
          "content-type":
            knobs.format === "form"
              ? "application/x-www-form-urlencoded"
              : "application/json",
          "user-agent": "card-service-sandbox",
        },
        body:
          knobs.format === "form"
            ? new URLSearchParams(body).toString()
            : JSON.stringify(body),
      })
      await response.body.dump()
      entry.status = response.statusCode
      entry.ok = response.statusCode >= 200 && response.statusCode < 300
    } catch (error) {
      entry.error = error instanceof Error ? error.message : String(error)
    }
    entry.ms = Date.now() - entry.at
    if (!this.closed) {
      this.record(entry)
      this.logger.debug?.(
        `callback ${entry.transactionId} copy ${copy} attempt ${attempt}: ${entry.status ?? entry.error}`
      )
    }
    return entry.ok
  }

  private record(entry: CallbackDelivery): void {
    this.deliveries.push(entry)
    for (const waiter of [...this.waiters]) {
      waiter()
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.closed) {
        resolve()
        return
      }
      const wake = () => {
        this.sleepers.delete(wake)
        resolve()
      }
      this.sleepers.add(wake)
      this.schedule(wake, ms)
    })
  }
}
