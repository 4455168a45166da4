import { randomBytes } from "node:crypto"
import { OrderSummary } from "./order-validation"

/** What a payment keeps of its test card until the result is decided. */
export type CardBehaviour = {
  threeDs: "frictionless" | "challenge"
  reasonCode: string
  reviewVerdict?: "approve" | "reject"
}

/** One 3DS challenge between /order/start and the shopper's Pass or Fail. */
export type ChallengeSession = {
  id: string
  order: OrderSummary
  card: CardBehaviour
  createdAt: number
  /** Set once the shopper has passed or failed: where the browser goes next. */
  outcome?: { location?: string; failureDetails?: Record<string, string> }
}

/**
 * Short-lived entries on the sandbox clock. The map is swept of expired
 * entries only once it grows large, so a busy benchmark does not keep every
 * abandoned entry forever.
 */
abstract class ExpiringEntries<V> {
  private readonly entries = new Map<string, V>()

  constructor(
    protected readonly now: () => number,
    protected readonly ttlMs: () => number,
    private readonly sweepAbove: number
  ) {}

  protected abstract expired(value: V): boolean

  protected remember(key: string, value: V): void {
    if (this.entries.size > this.sweepAbove) {
      for (const [known, entry] of this.entries) {
        if (this.expired(entry)) {
          this.entries.delete(known)
        }
      }
    }
    this.entries.set(key, value)
  }

  /** The entry, or undefined when it is unknown or has expired. */
  protected recall(key: string): V | undefined {
    const value = this.entries.get(key)
    return value === undefined || this.expired(value) ? undefined : value
  }

  protected forget(key: string): void {
    this.entries.delete(key)
  }

  clear(): void {
    this.entries.clear()
  }
}

/** Open 3DS challenges by id; one older than the challenge lifetime is gone. */
export class ChallengeSessions extends ExpiringEntries<ChallengeSession> {
  constructor(now: () => number, ttlMs: () => number) {
    // Swept from the thousandth open challenge on.
    super(now, ttlMs, 999)
  }

  open(order: OrderSummary, card: CardBehaviour): ChallengeSession {
    const session: ChallengeSession = {
      id: randomBytes(16).toString("base64url"),
      order,
      card,
      createdAt: this.now(),
    }
    this.remember(session.id, session)
    return session
  }

  /** The open challenge, or undefined; an expired one is forgotten for good. */
  find(id: string): ChallengeSession | undefined {
    const session = this.recall(id)
    if (!session) {
      this.forget(id)
    }
    return session
  }

  protected expired(session: ChallengeSession): boolean {
    return this.now() - session.createdAt > this.ttlMs()
  }
}

/**
 * Merchant verification codes of section 5 (GET /authorize), each with the
 * time it expires; section 5 leaves the lifetime "not shown", so it is an
 * option, and a code keeps the lifetime it was issued with. A code that has
 * been posted in a payment form (section 5.3) is remembered as a form code:
 * GET /authorize has no parameter that says what a code is for, so its first
 * use in /order/start is what makes it one (see `codeScoping`).
 */
export class VerificationCodes extends ExpiringEntries<{
  expiresAt: number
  inForm: boolean
}> {
  constructor(now: () => number, ttlMs: () => number) {
    super(now, ttlMs, 10_000)
  }

  issue(): string {
    const code = randomBytes(24).toString("base64url")
    this.remember(code, { expiresAt: this.now() + this.ttlMs(), inForm: false })
    return code
  }

  isCurrent(code: string): boolean {
    return this.recall(code) !== undefined
  }

  /** Marks a current code as one that went into a payment form. */
  markFormUse(code: string): void {
    const entry = this.recall(code)
    if (entry) entry.inForm = true
  }

  /** Whether a current code has been posted in a payment form. */
  isFormCode(code: string): boolean {
    return this.recall(code)?.inForm === true
  }

  protected expired(entry: { expiresAt: number }): boolean {
    return this.now() >= entry.expiresAt
  }
}

/** Where one challenge's pages live; the router matches the same shapes. */
export function challengePaths(id: string) {
  return {
    challengeUrl: `/3ds/challenge/${id}`,
    statusUrl: `/3ds/session/${id}/status`,
    continueUrl: `/3ds/session/${id}/continue`,
    windowName: `card-service-3ds-${id}`,
  }
}
