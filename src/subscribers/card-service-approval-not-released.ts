import type { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import {
  APPROVAL_NOT_RELEASED_EVENT,
  type ApprovalNotReleasedEventData,
} from "../providers/card-service/not-released-notice"
import { notReleasedNote, recordNotReleased } from "../payment-notes/not-released"

/**
 * Medusa's cancel of a payment failed because the service would not reverse
 * its approval (238, 243; not-released-notice.ts). Medusa 2.21's
 * cancelPaymentStep only logs that and cancels the order anyway, so this
 * note on the session is what shows the case to the store owner (Needs
 * attention, the order's widget), with what to do.
 */
export default async function cardServiceApprovalNotReleased({
  event,
  container,
}: SubscriberArgs<ApprovalNotReleasedEventData>) {
  const { session_id, transaction_id, reason_code } = event.data
  await recordNotReleased(
    container,
    session_id,
    notReleasedNote(
      { transactionId: transaction_id, reasonCode: reason_code },
      "the order was canceled in Medusa, but its payment stays authorized",
      new Date()
    )
  )
}

export const config: SubscriberConfig = { event: APPROVAL_NOT_RELEASED_EVENT }
