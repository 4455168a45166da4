/**
 * The soak's compressed time (issue 39): the states that live for days in a
 * store (a review's 72 hours, the reconcile grace, the event table's eight
 * days) scaled down to minutes, so that expired reviews, late verdicts and
 * pruned rows happen within a run; and the review desk's verdicts given at
 * drawn times, some before a review's timeout and some after it.
 */
import type { Cluster } from "./load-cluster"
import { seededRandom } from "./soak-faults"

export type CompressedTime = {
  /** CARD_SERVICE_REVIEW_TIMEOUT_MS: an order on hold is canceled this long after it was placed without a verdict. */
  reviewTimeoutMs: number
  /** CARD_SERVICE_RECONCILE_GRACE_MS: an attempt without a result is "outcome unknown" after this. */
  graceMs: number
  /** CARD_SERVICE_ACTIVITY_KEEP_MS: the event table's retention. */
  activityKeepMs: number
  /** The sweep's period (CARD_SERVICE_RECONCILE_SCHEDULE, a cron of seconds). */
  sweepEveryMs: number
}

/** Every 15 s instead of every minute: a review's timeout spans several passes, and the sweep's load stays small. */
const SWEEP_EVERY_S = 15

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value))
const roundTo = (ms: number, step: number) => Math.round(ms / step) * step

/**
 * The compressed settings for a run whose shoppers arrive over `arrivalsMs`:
 * the review timeout a sixth of it, between 1 and 10 minutes (so a run of a
 * few hundred checkouts sees reviews expire and a long run sees many); the
 * grace half the timeout, between 1 and 2 minutes (the soak's uncompressed
 * 2 minutes at most); the event table kept for twice the timeout and 4
 * minutes at least, far longer than the soak's 15 s between counts of it.
 */
export function compressedTime(arrivalsMs: number): CompressedTime {
  const reviewTimeoutMs = roundTo(clamp(arrivalsMs / 6, 60_000, 600_000), 10_000)
  return {
    reviewTimeoutMs,
    graceMs: roundTo(clamp(reviewTimeoutMs / 2, 60_000, 120_000), 10_000),
    activityKeepMs: Math.max(2 * reviewTimeoutMs, 240_000),
    sweepEveryMs: SWEEP_EVERY_S * 1000,
  }
}

/** The environment both Medusa instances get for it (load-cluster.ts, instanceEnv). */
export function compressedEnv(time: CompressedTime): Record<string, string> {
  return {
    CARD_SERVICE_REVIEW_TIMEOUT_MS: String(time.reviewTimeoutMs),
    CARD_SERVICE_RECONCILE_GRACE_MS: String(time.graceMs),
    CARD_SERVICE_ACTIVITY_KEEP_MS: String(time.activityKeepMs),
    CARD_SERVICE_RECONCILE_SCHEDULE: `*/${Math.round(time.sweepEveryMs / 1000)} * * * * *`,
  }
}

/**
 * When each review's verdict comes, drawn from its own stream of the seed:
 * half within the timeout (a quarter to three quarters of it: the order on
 * hold gets its verdict), half after it (1.5 to 3 times it: the order was
 * canceled for want of a verdict, and the verdict comes late). With
 * `fixedMs` every review concludes that long after it opened.
 */
export function verdictDelays(seed: number, reviewTimeoutMs: number, fixedMs?: number): () => number {
  const random = seededRandom((seed ^ 0x7e71e5) >>> 0)
  return () => {
    const [late, at] = [random(), random()]
    if (fixedMs !== undefined) return fixedMs
    return Math.round(late < 0.5 ? reviewTimeoutMs * (0.25 + 0.5 * at) : reviewTimeoutMs * (1.5 + 1.5 * at))
  }
}

/** A review the desk concluded, or will: when it opened and when its verdict is due or came. */
export type ReviewTiming = { transactionId: string; openedAt: number; verdictAt: number; concluded: boolean }

/**
 * Gives each review (480) its verdict at its drawn time, through the
 * sandbox's own review desk (concludeReview: the record changes and the
 * callback goes out with the knobs of its reference), instead of the
 * sandbox's one reviewAfterMs for all.
 */
export class ReviewClock {
  readonly reviews = new Map<string, ReviewTiming>()
  private readonly timer: NodeJS.Timeout

  constructor(
    private readonly cluster: Cluster,
    private readonly delay: () => number,
    private readonly log: (line: string) => void
  ) {
    cluster.sandbox.reviewAfterMs = undefined
    this.timer = setInterval(() => this.look(), 500)
    this.timer.unref()
  }

  /** The latest verdict due (ms since the epoch); 0 when there was no review. */
  lastVerdictAt(): number {
    return Math.max(0, ...[...this.reviews.values()].map((r) => r.verdictAt))
  }

  /** Reviews whose verdict has not gone out yet. */
  pending(): number {
    return [...this.reviews.values()].filter((r) => !r.concluded).length
  }

  stop(): void {
    clearInterval(this.timer)
  }

  private look(): void {
    for (const review of this.cluster.sandbox.openReviews()) {
      if (this.reviews.has(review.transactionId)) continue
      const timing = { transactionId: review.transactionId, openedAt: review.openedAt, verdictAt: review.openedAt + this.delay(), concluded: false }
      this.reviews.set(review.transactionId, timing)
      const conclude = setTimeout(() => {
        timing.verdictAt = Date.now()
        timing.concluded = true
        void this.cluster.sandbox
          .concludeReview(review.transactionId)
          .catch((error: Error) => this.log(`review verdict of ${review.transactionId} failed: ${error.message}`))
      }, Math.max(0, timing.verdictAt - Date.now()))
      conclude.unref()
    }
  }
}
