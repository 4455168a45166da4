import type { Logger, PaymentProviderContext } from "@medusajs/framework/types"
import { CardServiceError } from "../../lib/card-service-error"
import type { OperationResult } from "../../lib/wire-schemas"
import { isIndeterminate, isReason, toMedusaError } from "./error-mapping"
import { followOnReference } from "./merchant-reference"
import type { CardServiceSessionData } from "./session-data"

/**
 * What every follow-on (capture, refund, void, reversal; section 2.3) sends
 * besides its amount and transaction, and how it is sent.
 */

/** The reference, currency and e-mail of a follow-on for a session. */
export function followOnFields(
  session: CardServiceSessionData,
  key: string | undefined,
  merchantEmail: string,
  context?: PaymentProviderContext
): { merchantReferenceCode: string; currency: string; email: string } {
  return {
    merchantReferenceCode: followOnReference(session.session_id, key),
    currency: session.currency,
    // Section 2.3 requires an e-mail; the store's stands in when the
    // shopper's is not known.
    email: session.email ?? context?.customer?.email ?? merchantEmail,
  }
}

export type FollowOnSend<T> = {
  send: () => Promise<OperationResult>
  /** The session after the service acted. */
  done: (result: OperationResult) => T
  /** The reason codes with which the service refuses a repeat (section 7). */
  doneCodes: ReadonlySet<string>
  /**
   * The session when the service refused because it already acted;
   * `reasked` when that refusal answered the second sending.
   */
  alreadyDone: (reasonCode: string, reasked: boolean) => T | Promise<T>
  /** For the MedusaError and the log: "capture", "reverse"... */
  operation: string
  logger: Logger
  /** Logged before the second sending, where the store owner should see it. */
  noAnswerWarning?: string
  /**
   * The session when the second sending had no answer either: recorded as
   * unknown for the reconciliation sweep to settle. Without it, that throws.
   */
  stillUnknown?: () => T
}

/**
 * How long a follow-on waits before it is sent once more after the service
 * reported a failure of its own (serviceFailed): long enough for a short
 * burst of such answers to pass, short enough to stay inside a checkout.
 */
export const SERVICE_FAILURE_PAUSE_MS = 300

/**
 * Sends a follow-on whose repeat the service refuses (242 for a second
 * capture, 237 for a second reversal). A request that got no answer may or
 * may not have acted (category "indeterminate"), and so may one the service
 * answered with a failure of its own (a 5xx or an E-flag reason such as 150
 * "general system failure": received, then failed inside); because a repeat
 * is refused, sending it once more settles which: either it acts now, or the
 * refusal says the first one did. After a failure the service reported, the
 * second sending waits SERVICE_FAILURE_PAUSE_MS first. One repeat only, not a
 * blind retry (house style 6).
 */
export async function sendFollowOn<T>({
  send,
  done,
  doneCodes,
  alreadyDone,
  operation,
  logger,
  noAnswerWarning,
  stillUnknown,
}: FollowOnSend<T>): Promise<T> {
  try {
    return done(await send())
  } catch (error) {
    if (isReason(error, doneCodes)) return alreadyDone(error.reasonCode, false)
    if (serviceFailed(error)) {
      logger.warn(
        `card-service: the ${operation} met a failure of the service (${error.reasonCode ? `reason ${error.reasonCode}, ` : ""}HTTP ${error.httpStatus ?? "-"}); sending it once more`
      )
      await new Promise((resolve) => setTimeout(resolve, SERVICE_FAILURE_PAUSE_MS))
    } else if (isIndeterminate(error)) {
      if (noAnswerWarning) logger.warn(noAnswerWarning)
    } else {
      throw toMedusaError(error, operation, logger)
    }
    try {
      return done(await send())
    } catch (retryError) {
      if (isReason(retryError, doneCodes)) {
        return alreadyDone(retryError.reasonCode, true)
      }
      if (stillUnknown && isIndeterminate(retryError)) {
        logger.warn(
          `card-service: the ${operation} had no answer twice; recorded as unknown for the reconciliation sweep`
        )
        return stillUnknown()
      }
      throw toMedusaError(retryError, operation, logger)
    }
  }
}

/**
 * The service received the request and reported a failure of its own: a
 * REJECT with a service-error reason (150, 151, 152, 236, 250), whatever the
 * HTTP status that carried it.
 */
export function serviceFailed(error: unknown): error is CardServiceError {
  return (
    error instanceof CardServiceError &&
    error.category === "service_error" &&
    error.decision === "REJECT"
  )
}
