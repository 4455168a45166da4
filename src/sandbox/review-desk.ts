import { randomInt } from "node:crypto"
import { SandboxContext } from "./sandbox-context"

/** How a review ends: the decision manager approves the payment (100) or rejects it (481). */
export type ReviewVerdict = "approve" | "reject"

/** A payment marked for review (480) whose verdict has not been given yet. */
export type OpenReview = {
  transactionId: string
  merchantReferenceCode: string
  /** The verdict the card plans; the control may give another. */
  plannedVerdict: ReviewVerdict
  callbackLocation: string
  openedAt: number
}

/**
 * The decision manager's review desk. The interface names 480 ("marked for
 * review") and 481 ("rejected by the decision manager") but not how a review
 * ends; wire-choices fixes it: some time later the review concludes at the
 * service, the same transaction's retrieve record then shows the verdict (100
 * approved, 481 rejected), and the final result is delivered to the callback
 * location like any other result (with the knobs in force for its
 * merchantReferenceCode).
 *
 * A review concludes by the control (`concludeReview`, `POST
 * /_sandbox/reviews/{transactionId}`) or on its own `reviewAfterMs` after it
 * opened, when that is set. A review the merchant reversed meanwhile (the
 * order was canceled for want of a verdict) still concludes: the verdict is
 * the decision manager's, and the record stays reversed.
 */
export class ReviewDesk {
  private readonly open = new Map<string, OpenReview>()
  private readonly timers = new Map<string, NodeJS.Timeout>()

  constructor(
    private readonly ctx: Pick<SandboxContext, "now" | "store" | "logger" | "dispatcher" | "knobsFor">,
    /** Reviews conclude on their own this long after they open; undefined: only by the control. */
    private readonly afterMs: () => number | undefined
  ) {}

  /** Called when a payment result is 480. */
  openReview(review: Omit<OpenReview, "openedAt">): void {
    this.open.set(review.transactionId, { ...review, openedAt: this.ctx.now() })
    const afterMs = this.afterMs()
    if (afterMs !== undefined) {
      const timer = setTimeout(() => {
        this.timers.delete(review.transactionId)
        void this.conclude(review.transactionId).catch(() => undefined)
      }, afterMs)
      timer.unref()
      this.timers.set(review.transactionId, timer)
    }
  }

  /** Reviews still waiting for a verdict, oldest first. */
  pending(): OpenReview[] {
    return [...this.open.values()]
  }

  /**
   * Gives the verdict (the card's planned one unless told): the record's
   * reason code changes, and the callback is sent. Resolves once the first
   * attempt of the callback is over, or at once when it is dropped or delayed.
   * Undefined when no review of that transaction is open.
   */
  async conclude(
    transactionId: string,
    verdict?: ReviewVerdict,
    /**
     * An approval for another amount than the payment request's (minor
     * units): what the merchant must not book, for tests of that check.
     */
    approvedAmountMinor?: number
  ): Promise<{ transactionId: string; reasonCode: string } | undefined> {
    const review = this.open.get(transactionId)
    const tx = this.ctx.store.get(transactionId)
    if (!review || !tx) {
      return undefined
    }
    this.open.delete(transactionId)
    clearTimeout(this.timers.get(transactionId))
    this.timers.delete(transactionId)
    const approved = (verdict ?? review.plannedVerdict) === "approve"
    tx.reasonCode = approved ? "100" : "481"
    tx.approvalCode = approved ? String(randomInt(0, 1_000_000)).padStart(6, "0") : ""
    if (approved && approvedAmountMinor !== undefined) tx.amountMinor = approvedAmountMinor
    this.ctx.logger.debug?.(`review of ${transactionId} -> ${tx.reasonCode}`)
    const payload = {
      decision: approved ? "ACCEPT" : "REJECT",
      reasonCode: tx.reasonCode,
      transactionId,
      originalTransactionId: "",
      merchantReferenceCode: review.merchantReferenceCode,
    }
    const knobs = this.ctx.knobsFor(review.merchantReferenceCode)
    if (knobs.delayMs > 0) {
      this.ctx.dispatcher.schedule(() => {
        void this.ctx.dispatcher.dispatch(review.callbackLocation, payload, knobs)
      }, knobs.delayMs)
    } else {
      await this.ctx.dispatcher.dispatch(review.callbackLocation, payload, knobs)
    }
    return { transactionId, reasonCode: tx.reasonCode }
  }

  clear(): void {
    for (const timer of this.timers.values()) clearTimeout(timer)
    this.timers.clear()
    this.open.clear()
  }
}
