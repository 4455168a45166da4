/**
 * The merchant verification code of section 5, held for one client.
 *
 * Single flight: concurrent callers share one GET /authorize. The service
 * shows no lifetime for a code, so it never expires on a timer; it is dropped
 * only when the service rejects it, and only if it is still the rejected
 * one, so that many callers rejected at once refresh it once. A failed fetch
 * is not cached: the next caller tries again.
 */

type CodeEntry = { promise: Promise<string>; value?: string }

export class VerificationCodeCache {
  private readonly fetch_: () => Promise<string>
  private entry_?: CodeEntry
  private previous_?: string

  /** `fetch` asks the service for a new code (GET /authorize). */
  constructor(fetch: () => Promise<string>) {
    this.fetch_ = fetch
  }

  /** The cached code, read synchronously: the common path costs no await. */
  get current(): string | undefined {
    return this.entry_?.value
  }

  /** The cached code, or the one fetch shared by every caller until it settles. */
  get(): Promise<string> {
    if (!this.entry_) {
      this.entry_ = this.track_(this.fetch_())
    }
    return this.entry_.promise
  }

  /** Makes a code just issued by the service the cached one, being the newest. */
  remember(code: string): void {
    if (this.entry_?.value && this.entry_.value !== code) {
      this.previous_ = this.entry_.value
    }
    this.entry_ = { promise: Promise.resolve(code), value: code }
  }

  /** Drops the cached code only if it is still the rejected one, so 200 rejected callers refresh once. */
  invalidate(stale: string): void {
    if (this.entry_?.value === stale) {
      this.previous_ = stale
      this.entry_ = undefined
    }
  }

  /**
   * The codes an answer of the service may still echo (the cached one and
   * the one it replaced), so errors and logs can scrub them.
   */
  knownCodes(): string[] {
    const codes: string[] = []
    if (this.entry_?.value) codes.push(this.entry_.value)
    if (this.previous_) codes.push(this.previous_)
    return codes
  }

  private track_(promise: Promise<string>): CodeEntry {
    // Built in one step; the callbacks run later, once `entry` exists.
    const entry: CodeEntry = {
      promise: promise.then(
        (code) => {
          entry.value = code
          return code
        },
        (error) => {
          if (this.entry_ === entry) this.entry_ = undefined
          throw error
        }
      ),
    }
    // Callers await entry.promise; this keeps an unobserved failure quiet.
    entry.promise.catch(() => undefined)
    return entry
  }
}
