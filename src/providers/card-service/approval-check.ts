import type { TransactionRecord } from "../../lib/wire-schemas"
import { exactMinorUnits } from "../../lib/money"
import type { CardServiceSessionData } from "./session-data"

/**
 * What the service's own record of a payment request (retrieve, section 4.5)
 * says about a session. A callback or a storefront may name any transaction:
 * only a record that was made for this session, for its amount and currency,
 * as an approval, counts as payment.
 */
export type ApprovalVerdict =
  /** A successful AUTHORIZATION of this session, for exactly its amount and currency. */
  | { outcome: "approved" }
  /** Not a transaction of this session: leave it alone, never reverse it. */
  | { outcome: "foreign"; reason: string }
  /** This session's approval, but for another amount or currency: reverse it, then fail. */
  | { outcome: "mismatch"; reason: string }
  /** This session's payment request, not approved (declined, error, authentication only). */
  | { outcome: "unapproved"; reasonCode: string; reason: string }

export function checkApproval(
  record: TransactionRecord,
  session: Pick<CardServiceSessionData, "session_id" | "currency" | "currency_code" | "amount_minor">,
  referenceBelongs: (reference: string, sessionId: string) => boolean
): ApprovalVerdict {
  if (!referenceBelongs(record.merchantReferenceCode, session.session_id)) {
    return {
      outcome: "foreign",
      reason: "the transaction was not made for this payment session",
    }
  }
  if (record.step !== "AUTHORIZATION") {
    return {
      outcome: "unapproved",
      reasonCode: record.reasonCode,
      reason: `the transaction is a ${record.step}, not an approval`,
    }
  }
  if (record.status !== "successful") {
    return {
      outcome: "unapproved",
      reasonCode: record.reasonCode,
      reason: `the service ${record.status === "declined" ? "declined" : "failed"} the payment`,
    }
  }
  if (record.currencyCode !== session.currency) {
    return {
      outcome: "mismatch",
      reason: `approved in currency ${record.currencyCode}, but the cart is in ${session.currency_code.toUpperCase()} (${session.currency})`,
    }
  }
  // Exact: an approval of 17.395 is not one of 17.40 (no rounding first).
  const approvedMinor = exactMinorUnits(record.amount, session.currency_code)
  if (approvedMinor === null || approvedMinor.toString() !== session.amount_minor) {
    return {
      outcome: "mismatch",
      reason:
        record.reasonCode === "110"
          ? "only part of the amount was approved (reason 110)"
          : "the approved amount differs from the cart total",
    }
  }
  return { outcome: "approved" }
}
