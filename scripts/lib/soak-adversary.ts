/**
 * The soak's adversary (issue 39): someone who read a payment session's id
 * from a log line (and the return URL's query, which holds `transactionId`
 * and `merchantReferenceCode`) and sends the store forged, replayed and
 * malformed callbacks and browser returns for that REAL session, through
 * the same proxy as the service's callbacks. The callback is unsigned
 * (card-service-interface.md, section 6) and the return is any browser's
 * GET, so both must be taken as hints the service's own record settles.
 *
 * It reads what such a person could: every session the service sent a
 * result for (the callback's URL and body, as a log of the callback shows
 * them) and the sessions shoppers pay (the pay page's and return's URLs).
 * It strikes hardest where a forgery could do harm: a session whose
 * genuine result the store answered with a 5xx (the log line "could not
 * settle the callback for session ..."), or whose result came while the
 * service's retrieve was failing, gets a burst of callbacks with made-up
 * transactionIds and the session's real reference, more than the session
 * keeps hints of (session-notes.ts, MAX_HINTS_KEPT), so that forged input
 * would push out a genuine noted result if it could.
 *
 * Bounded in rate (a token bucket) and count; loopback only. Its draws come
 * from its own stream of the run's seed, so a seed gives the same kinds,
 * picks and made-up ids with the adversary on or off the shoppers' mix.
 */
import { request } from "undici"
import type { Cluster } from "./load-cluster"
import { effectWindow, seededRandom, type AppliedFault } from "./soak-faults"

export const FORGERY_KINDS = [
  /** A callback with a made-up transactionId and the session's real merchantReferenceCode. */
  "callback-made-up",
  /** A callback with a made-up transactionId and no reference, or a made-up one. */
  "callback-made-up-bare",
  /** A real result of the session (its callback's body) sent again. */
  "callback-replay-same",
  /** A real result of another session sent to this one. */
  "callback-replay-other",
  /** A body that is no payment result (empty, missing or mistyped fields, not JSON). */
  "callback-malformed",
  /** GET of the session's return with a made-up transactionId (and its real reference). */
  "return-made-up",
  /** GET of the session's return with another session's transactionId and reference, or the two mixed. */
  "return-swapped",
] as const
export type ForgeryKind = (typeof FORGERY_KINDS)[number]

/** One forged request: what, for which session, when, and what the store answered ("error": no answer). */
export type Forgery = {
  kind: ForgeryKind
  sessionId: string
  at: number
  status: number | "error"
  /** Part of a burst on a session whose genuine result the store could not verify. */
  burst: boolean
  transactionId?: string
}

/** What a log shows of one payment session. */
type Leak = {
  sessionId: string
  reference?: string
  transactionId?: string
  /** A real result for the session, as its callback carried it. */
  result?: Record<string, string>
}

export type AdversaryOptions = {
  seed: number
  /** Forged requests a minute, on average and at most (the bucket refills at this rate). */
  perMinute: number
  /** Forged requests in all. */
  max: number
}

/**
 * Forgeries in a burst: two more than a session keeps hints of
 * (session-notes.ts, MAX_HINTS_KEPT = 10), the count that stranded a payment
 * in issue 39's first finding. Also the bucket's size: a burst goes out at
 * once when the adversary has been quiet for a while.
 */
export const BURST = 12
/** How often the adversary reads the "logs" and sends what is due. */
const TICK_MS = 200
/** Forged requests in flight at once. */
const IN_FLIGHT = 8
/** The sessions picked at random are among the newest this many. */
const RECENT = 200
/** The service's faults on these endpoints leave a genuine result unverified. */
const VERIFY_PATHS = ["/payment/retrieve", "/authorize"]

const SESSION_IN_CALLBACK = /\/card-service\/callback\/(payses_[0-9A-Za-z_]+)\//

/** Bodies the callback route must refuse: JSON and form-encoded, as the route takes both. */
const MALFORMED: Array<{ type: string; body: string }> = [
  { type: "application/json", body: "{}" },
  { type: "application/json", body: JSON.stringify({ decision: "ACCEPT", reasonCode: "100" }) },
  { type: "application/json", body: JSON.stringify({ decision: "ACCEPT", reasonCode: "100", transactionId: 12345 }) },
  { type: "application/json", body: '{"decision":"ACCEPT","reasonCode":"100","transactionId":' },
  { type: "application/json", body: "[1,2,3]" },
  { type: "application/json", body: JSON.stringify({ decision: "MAYBE", reasonCode: "abc", transactionId: "1" }) },
  { type: "application/json", body: JSON.stringify({ decision: "ACCEPT", reasonCode: "100", transactionId: "../../authorize" }) },
  { type: "application/json", body: JSON.stringify({ decision: "ACCEPT", reasonCode: "100", transactionId: "9".repeat(300) }) },
  { type: "application/x-www-form-urlencoded", body: "decision=ACCEPT&reasonCode=100" },
  { type: "text/plain", body: "transactionId=1" },
]

export class Adversary {
  readonly sent: Forgery[] = []
  /** Sessions given a burst, by session id. */
  readonly burstSessions = new Set<string>()
  private readonly leaks = new Map<string, Leak>()
  /** Session ids in the order they were first seen, for the picks at random. */
  private readonly order: string[] = []
  private readonly random: () => number
  private readonly queue: Array<{ sessionId: string }> = []
  private readonly inFlight = new Set<Promise<void>>()
  private deliveriesRead = 0
  private tokens = BURST
  private refilledAt = Date.now()
  private nextAt: number
  private running = false
  private loop: Promise<void> | null = null

  constructor(
    private readonly cluster: Cluster,
    private readonly options: AdversaryOptions,
    /** The faults applied so far (soak-inject.ts), to strike while the service cannot verify. */
    private readonly faults: () => AppliedFault[],
    private readonly log: (line: string) => void
  ) {
    const host = new URL(cluster.proxyUrl).hostname
    if (!["127.0.0.1", "localhost", "::1", "[::1]"].includes(host)) {
      throw new Error(`the adversary sends to loopback only, not ${host}`)
    }
    // Its own stream: the same seed draws the same forgeries, and the shoppers' draws do not move.
    this.random = seededRandom((options.seed ^ 0x5eed_ad) >>> 0)
    this.nextAt = Date.now() + this.gapMs()
  }

  /** A session's id, reference or result as a log line shows it (the shoppers report what their URLs carry). */
  leak(leak: Leak): void {
    const known = this.leaks.get(leak.sessionId)
    if (!known) this.order.push(leak.sessionId)
    this.leaks.set(leak.sessionId, { ...known, ...Object.fromEntries(Object.entries(leak).filter(([, v]) => v !== undefined)) } as Leak)
  }

  start(): void {
    if (this.running) return
    this.running = true
    this.loop = this.run()
  }

  /** Stops sending and waits for the requests in flight. */
  async stop(): Promise<void> {
    this.running = false
    await this.loop
    await Promise.all([...this.inFlight])
  }

  /** Sessions that received forged traffic: their forgeries by session id. */
  forgedSessions(): Map<string, Forgery[]> {
    const by = new Map<string, Forgery[]>()
    for (const f of this.sent) by.set(f.sessionId, [...(by.get(f.sessionId) ?? []), f])
    return by
  }

  /** The report's lines: counts by kind and by answer. */
  summary(): string[] {
    const statuses = (list: Forgery[]) => {
      const counts = new Map<string, number>()
      for (const f of list) counts.set(String(f.status), (counts.get(String(f.status)) ?? 0) + 1)
      return [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([s, n]) => `${s} x${n}`).join(", ") || "-"
    }
    const bursts = this.sent.filter((f) => f.burst)
    return [
      `  adversary: ${this.sent.length} forged requests (at most ${this.options.perMinute} a minute, ${this.options.max} in all) ` +
        `on ${this.forgedSessions().size} real sessions; ${bursts.length} of them in bursts of ${BURST} on ${this.burstSessions.size} sessions ` +
        `whose genuine result the store could not verify; answers ${statuses(this.sent)}`,
      ...FORGERY_KINDS.map((kind) => {
        const mine = this.sent.filter((f) => f.kind === kind)
        return `    ${kind.padEnd(22)} ${String(mine.length).padStart(5)}: ${statuses(mine)}`
      }),
    ]
  }

  private async run(): Promise<void> {
    while (this.running && this.sent.length + this.inFlight.size < this.options.max) {
      await new Promise((resolve) => setTimeout(resolve, TICK_MS))
      this.readDeliveries()
      this.refill()
      while (this.tokens >= 1 && this.inFlight.size < IN_FLIGHT && this.sent.length + this.inFlight.size < this.options.max) {
        const next = this.queue.shift()
        if (next) {
          this.send(this.forge("callback-made-up", next.sessionId, true))
        } else if (Date.now() >= this.nextAt && this.order.length) {
          this.nextAt = Date.now() + this.gapMs()
          const kind = FORGERY_KINDS[Math.floor(this.random() * FORGERY_KINDS.length)]
          const pool = this.order.slice(-RECENT)
          this.send(this.forge(kind, pool[Math.floor(this.random() * pool.length)], false))
        } else {
          break
        }
        this.tokens -= 1
      }
    }
  }

  /** Exponential gaps of mean 60 / perMinute s: forgeries at random, a Poisson process. */
  private gapMs(): number {
    return Math.round(-Math.log(1 - this.random()) * (60_000 / this.options.perMinute))
  }

  private refill(): void {
    const now = Date.now()
    this.tokens = Math.min(BURST, this.tokens + ((now - this.refilledAt) * this.options.perMinute) / 60_000)
    this.refilledAt = now
  }

  /**
   * The service's callbacks sent since the last look, as their log shows
   * them: each names a session and carries a real result. A result the store
   * answered 5xx, or that came while a service fault on retrieve or
   * /authorize was in force, queues a burst on its session (once a session).
   */
  private readDeliveries(): void {
    const deliveries = this.cluster.sandbox.callbacks()
    const now = Date.now()
    const serviceFailing = this.faults().some((f) => {
      if (f.params.kind !== "service-5xx" && f.params.kind !== "service-timeout") return false
      if (!VERIFY_PATHS.includes(f.params.path)) return false
      const window = effectWindow(f)
      return window.start <= now && now <= window.end
    })
    for (const d of deliveries.slice(this.deliveriesRead)) {
      const sessionId = SESSION_IN_CALLBACK.exec(d.url)?.[1]
      if (!sessionId) continue
      this.leak({ sessionId, reference: d.merchantReferenceCode, transactionId: d.transactionId, result: d.body })
      // A result the store answered 5xx is struck while up to four bursts wait; one that came
      // while the service was failing only when none waits, so bursts never starve the rest.
      const answered5xx = d.status !== undefined && d.status >= 500 && d.status !== 502
      const strike = !d.dropped && ((answered5xx && this.queue.length < 4 * BURST) || (serviceFailing && !this.queue.length))
      if (strike && !this.burstSessions.has(sessionId)) {
        this.burstSessions.add(sessionId)
        for (let i = 0; i < BURST; i++) this.queue.push({ sessionId })
        this.log(`adversary: a burst of ${BURST} forged callbacks on a session whose result the store could not verify`)
      }
    }
    this.deliveriesRead = deliveries.length
  }

  /**
   * One forged request of `kind` for `sessionId`. Draws the same numbers
   * whatever the kind, so the stream stays in step from one run of a seed
   * to the next; a kind that needs what the log did not show of the session
   * (its reference, a real result) is sent as the nearest kind it can be.
   */
  private forge(kind: ForgeryKind, sessionId: string, burst: boolean): Omit<Forgery, "at" | "status"> & Request_ {
    const [other, variant, digitsA, digitsB, digitsC] = [this.random(), this.random(), this.random(), this.random(), this.random()]
    const leak = this.leaks.get(sessionId)!
    const madeUp = madeUpTransactionId(digitsA, digitsB, digitsC, variant)
    const others = this.order.filter((id) => id !== sessionId && this.leaks.get(id)?.transactionId)
    const otherLeak = others.length ? this.leaks.get(others[Math.floor(other * others.length)]) : undefined
    const callback = `${this.cluster.proxyUrl}/card-service/callback/${sessionId}/`
    const json = (body: unknown) => ({ method: "POST" as const, url: callback, type: "application/json", body: JSON.stringify(body) })
    const accepted = (transactionId: string, reference?: string) => ({
      decision: variant < 0.8 ? "ACCEPT" : "REJECT",
      reasonCode: variant < 0.8 ? "100" : "481",
      transactionId,
      originalTransactionId: "",
      ...(reference ? { merchantReferenceCode: reference } : {}),
    })
    const returnTo = (query: Record<string, string | undefined>) => {
      const search = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined) as [string, string][])
      return { method: "GET" as const, url: `${this.cluster.proxyUrl}/card-service/return/${sessionId}/?${search}`, type: "", body: "" }
    }
    if (kind === "callback-replay-same" && !leak.result) kind = "callback-made-up"
    if (kind === "callback-replay-other" && !otherLeak?.result) kind = "callback-made-up-bare"
    if (kind === "return-swapped" && !otherLeak) kind = "return-made-up"
    if (kind === "callback-made-up" && !leak.reference) kind = "callback-made-up-bare"
    switch (kind) {
      case "callback-made-up":
        return { kind, sessionId, burst, transactionId: madeUp, ...json(accepted(madeUp, leak.reference)) }
      case "callback-made-up-bare": {
        // Half without a reference, half with one made up in the plugin's shape (ULID.nonce.mac).
        const reference = variant < 0.5 ? undefined : `${sessionId.slice("payses_".length)}.${madeUp.slice(0, 6)}.${madeUp.slice(6, 18)}`
        return { kind, sessionId, burst, transactionId: madeUp, ...json(accepted(madeUp, reference)) }
      }
      case "callback-replay-same":
        return { kind, sessionId, burst, transactionId: leak.result!.transactionId, ...json(leak.result) }
      case "callback-replay-other":
        return { kind, sessionId, burst, transactionId: otherLeak!.result!.transactionId, ...json(otherLeak!.result) }
      case "callback-malformed": {
        const bad = MALFORMED[Math.floor(variant * MALFORMED.length)]
        return { kind, sessionId, burst, method: "POST", url: callback, type: bad.type, body: bad.body }
      }
      case "return-made-up":
        return {
          kind,
          sessionId,
          burst,
          transactionId: madeUp,
          ...returnTo({ transactionId: madeUp, decision: "ACCEPT", reasonCode: "100", merchantReferenceCode: leak.reference }),
        }
      case "return-swapped": {
        // Another session's result whole, or its transaction with this session's reference.
        const reference = variant < 0.5 ? otherLeak!.reference : leak.reference
        return {
          kind,
          sessionId,
          burst,
          transactionId: otherLeak!.transactionId,
          ...returnTo({ transactionId: otherLeak!.transactionId, decision: "ACCEPT", reasonCode: "100", merchantReferenceCode: reference }),
        }
      }
    }
  }

  private send(forged: Omit<Forgery, "at" | "status"> & Request_): void {
    const { method, url, type, body, ...forgery } = forged
    const at = Date.now()
    const work = request(url, {
      method,
      headers: method === "POST" ? { "content-type": type } : { "sec-fetch-mode": "navigate" },
      body: method === "POST" ? body : undefined,
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
    })
      .then(async (answer) => {
        await answer.body.dump()
        return answer.statusCode as number | "error"
      })
      .catch(() => "error" as const)
      .then((status) => {
        this.sent.push({ ...forgery, at, status })
      })
    this.inFlight.add(work)
    void work.finally(() => this.inFlight.delete(work))
  }
}

type Request_ = { method: "GET" | "POST"; url: string; type: string; body: string }

/**
 * A transactionId nobody issued: mostly in the sandbox's shape (13 digits of
 * time and 39 random digits, transaction-store.ts), sometimes short, so the
 * store has to ask the service to know it is no one's.
 */
function madeUpTransactionId(a: number, b: number, c: number, variant: number): string {
  const digits = (u: number, n: number) => String(Math.floor(u * 10 ** n)).padStart(n, "0")
  const random = digits(a, 13) + digits(b, 13) + digits(c, 13)
  return variant < 0.9 ? `${String(Date.now()).padStart(13, "0")}${random}` : random.slice(0, 12)
}
