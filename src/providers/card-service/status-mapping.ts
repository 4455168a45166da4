import { describeReasonCode } from "../../lib/reason-codes"
import type { PaymentState } from "./session-data"

/** Medusa's PaymentSessionStatus values, as strings so this file stays pure. */
export type SessionStatus =
  | "authorized"
  | "captured"
  | "pending"
  | "requires_more"
  | "error"
  | "canceled"

/**
 * The session status for a payment request the service did not approve, from
 * its reason code (section 7). The shopper can always start again with a new
 * attempt; these statuses only tell Medusa and the storefront why not now.
 */
export function statusForUnapproved(reasonCode: string): SessionStatus {
  switch (reasonCode) {
    // Enrolled in payer authentication: the shopper has to authenticate first.
    case "475":
      return "requires_more"
    // Marked for review by the decision manager: the verdict is not final.
    case "480":
      return "pending"
    default:
      return "error"
  }
}

/** The session status that a stored state stands for. */
export function statusForState(state: PaymentState): SessionStatus {
  switch (state) {
    case "authorized":
      return "authorized"
    case "captured":
      return "captured"
    case "canceled":
      return "canceled"
    case "failed":
      return "error"
    case "pending":
      return "pending"
  }
}

/** A short text for a reason code, for session data and the storefront. */
export function reasonText(reasonCode: string, message?: string): string {
  const { meaning } = describeReasonCode(reasonCode)
  return message && message !== meaning ? `${meaning} (${message})` : meaning
}
