import type { Logger } from "@medusajs/framework/types"
import { ApprovalNotReleased } from "./approval-reversal"
import { containerMember } from "./container-member"
import { redactSessionIds } from "../../lib/log-redaction"

/**
 * Emitted when Medusa's cancel of a payment failed because the service would
 * not reverse its approval (238, 243). Medusa 2.21 logs that failure and
 * cancels the order anyway (cancelPaymentStep). The provider lives in
 * the payment module's container, which has Medusa's event bus but no
 * locking module to write the session's notes under (session-notes.ts), so
 * a subscriber in the application's container writes the note that puts the
 * case in Needs attention (src/subscribers). Ids and codes only.
 */
export const APPROVAL_NOT_RELEASED_EVENT = "card-service.approval.not_released"

export type ApprovalNotReleasedEventData = {
  session_id: string
  transaction_id: string
  reason_code: string
}

type EventBus = {
  emit(message: { name: string; data: unknown }): Promise<void>
}

export class NotReleasedNotice {
  private readonly eventBus_: EventBus | null

  constructor(
    container: unknown,
    private readonly logger_: Logger
  ) {
    // Medusa's event bus; none for a provider built outside Medusa.
    this.eventBus_ = containerMember<EventBus>(container, "event_bus", "emit")
  }

  /** Tells the application about a refused release; never throws (the refusal is what the caller reports). */
  async publish(
    sessionId: string | undefined,
    error: ApprovalNotReleased
  ): Promise<void> {
    if (!this.eventBus_ || !sessionId) return
    const data: ApprovalNotReleasedEventData = {
      session_id: sessionId,
      transaction_id: error.transactionId,
      reason_code: error.reasonCode,
    }
    await this.eventBus_
      .emit({ name: APPROVAL_NOT_RELEASED_EVENT, data })
      .catch((emitError: unknown) =>
        this.logger_.error(
          `card-service: could not note that approval ${error.transactionId} of session ${redactSessionIds(`${sessionId} was not released: ${(emitError as Error).message}`)}`
        )
      )
  }
}
