import type CardServiceProviderService from "../providers/card-service/service"

/**
 * How many calls to the card service requests that nobody authenticated
 * (pay page and form views, the service's unsigned callback, the browser's
 * return) may cause. Each such call costs the service a request and the
 * store its rate limit there, so without a bound every anonymous request
 * could be turned into one (issue 13, "outbound amplification"). Two token
 * buckets, per provider instance (so per Medusa instance):
 *
 * - per session: a few calls at once, then one every few seconds, which a
 *   shopper who pays, retries and reloads never reaches;
 * - overall: `anonymousCallRate` calls per second with a burst of five
 *   seconds' worth, far above a store's checkouts per second.
 *
 * A refused call is not made: the pay page answers 503 ("try again in a
 * moment"), a callback 503 (the service delivers again), a return shows
 * "pending" (the storefront polls).
 */

/** Calls one session may cause at once, and then one per this many milliseconds. */
export const SESSION_BURST = 10
export const SESSION_REFILL_MS = 6_000

/** The overall burst is this many seconds' worth of the rate. */
const OVERALL_BURST_SECONDS = 5

/** Sessions whose buckets are remembered; the oldest is forgotten beyond this (a full bucket again). */
const MAX_SESSIONS_TRACKED = 10_000

export class TokenBucket {
  private tokens_: number
  private at_: number

  constructor(
    private readonly capacity_: number,
    /** Milliseconds per token. */
    private readonly refillMs_: number,
    private readonly now_: () => number
  ) {
    this.tokens_ = capacity_
    this.at_ = now_()
  }

  /** Takes one token if there is one. */
  take(): boolean {
    this.refill_()
    if (this.tokens_ < 1) return false
    this.tokens_ -= 1
    return true
  }

  /** Gives back a token taken for a call that was not made. */
  giveBack(): void {
    this.tokens_ = Math.min(this.capacity_, this.tokens_ + 1)
  }

  private refill_(): void {
    const now = this.now_()
    const earned = (now - this.at_) / this.refillMs_
    if (earned > 0) {
      this.tokens_ = Math.min(this.capacity_, this.tokens_ + earned)
      this.at_ = now
    }
  }
}

export class AnonymousCallBudget {
  private readonly overall_: TokenBucket
  private readonly sessions_ = new Map<string, TokenBucket>()

  constructor(
    callsPerSecond: number,
    private readonly now_: () => number = Date.now
  ) {
    this.overall_ = new TokenBucket(
      Math.max(1, Math.round(callsPerSecond * OVERALL_BURST_SECONDS)),
      1000 / callsPerSecond,
      now_
    )
  }

  /** One call on behalf of an anonymous request about this session: allowed or not. */
  take(sessionId: string): boolean {
    const session = this.sessionBucket_(sessionId)
    if (!session.take()) return false
    if (!this.overall_.take()) {
      session.giveBack()
      return false
    }
    return true
  }

  private sessionBucket_(sessionId: string): TokenBucket {
    let bucket = this.sessions_.get(sessionId)
    if (bucket) {
      // Most recently used last, so the oldest is first to go.
      this.sessions_.delete(sessionId)
    } else {
      bucket = new TokenBucket(SESSION_BURST, SESSION_REFILL_MS, this.now_)
      if (this.sessions_.size >= MAX_SESSIONS_TRACKED) {
        this.sessions_.delete(this.sessions_.keys().next().value as string)
      }
    }
    this.sessions_.set(sessionId, bucket)
    return bucket
  }
}

/** The service is not asked: too many calls for anonymous requests just now. */
export class CallBudgetExceeded extends Error {
  constructor(sessionId: string) {
    super(
      `card-service: too many service calls for anonymous requests (session ${sessionId}); try again later`
    )
    this.name = "CallBudgetExceeded"
  }
}

const budgets = new WeakMap<CardServiceProviderService, AnonymousCallBudget>()

/** The budget of one provider instance, made on first use from its options. */
export function callBudgetOf(
  provider: CardServiceProviderService
): AnonymousCallBudget {
  let budget = budgets.get(provider)
  if (!budget) {
    budget = new AnonymousCallBudget(provider.options.anonymousCallRate)
    budgets.set(provider, budget)
  }
  return budget
}

/** Spends one call of the budget, or throws CallBudgetExceeded. */
export function spendAnonymousCall(
  provider: CardServiceProviderService,
  sessionId: string
): void {
  if (!callBudgetOf(provider).take(sessionId)) {
    throw new CallBudgetExceeded(sessionId)
  }
}
