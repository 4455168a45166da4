import { describeReasonCode } from "../../lib/reason-codes"
import type { FailureReason, PaymentState } from "./session-data"

/** Medusa's PaymentSessionStatus values, as strings so this file stays pure. */
export type SessionStatus =
  | "authorized"
  | "captured"
  | "pending"
  | "requires_more"
  | "error"
  | "canceled"
  | "pending_authorization"

/**
 * The session status for a payment request the service did not approve, from
 * its reason code (section 7). A declined card, a failed 3-D Secure check or a
 * service error ends one attempt, not the session: the shopper pays again on
 * the same session with a fresh form (a new merchantReferenceCode). So the
 * session stays `pending`, with the reason in its data, as Medusa's Stripe
 * provider leaves a declined payment intent (`requires_payment_method` ->
 * pending); storefronts such as Medusa's starter then still find it as the
 * cart's active session and keep the method chosen.
 */
export function statusForUnapproved(
  reasonCode: string,
  /** Whether Medusa places orders on hold (orders-on-hold.ts): a 480 is then one. */
  ordersOnHold = false
): SessionStatus {
  // Enrolled in payer authentication: the shopper has to authenticate first.
  if (reasonCode === "475") return "requires_more"
  // Marked for review: the order is placed on hold until the verdict.
  if (isUnderReview(reasonCode) && ordersOnHold) return "pending_authorization"
  return "pending"
}

/** Marked for review by the decision manager (480): not a verdict yet. */
/** The reason code of a payment the service's decision manager marked for review. */
export const UNDER_REVIEW_CODE = "480"

export function isUnderReview(reasonCode: string): boolean {
  return reasonCode === UNDER_REVIEW_CODE
}

/**
 * Whether a failed session takes another attempt: its failure is the
 * service's reason code for one attempt. The plugin's own codes (`tampered`,
 * `mismatch`, `foreign_transaction`, ...) say the session's data cannot be
 * used again; such a session is `error`, and the storefront makes a new one.
 */
export function isRetryableFailure(
  failure: FailureReason | null | undefined
): boolean {
  return !!failure && /^\d+$/.test(failure.code)
}

/** The session status that a stored state (and its failure) stands for. */
export function statusForState(
  state: PaymentState,
  failure?: FailureReason | null
): SessionStatus {
  switch (state) {
    case "authorized":
      return "authorized"
    case "captured":
      return "captured"
    case "canceled":
      return "canceled"
    case "failed":
      return isRetryableFailure(failure) ? "pending" : "error"
    case "pending":
      return "pending"
  }
}

/** A short text for a reason code, for session data and the storefront. */
export function reasonText(reasonCode: string, message?: string): string {
  const { meaning } = describeReasonCode(reasonCode)
  return message && message !== meaning ? `${meaning} (${message})` : meaning
}
