import { categorize, describeReasonCode } from "./reason-codes"

/**
 * What a payment result (a section 2.1 record of step AUTHORIZATION or
 * AUTHENTICATION) came to, in the five kinds the metrics and the admin's
 * "Payments at a glance" count. The section 7 table gives flag letters; the
 * kinds are ours, read from the table's categories (reason-codes.ts):
 *
 * - approved: 100 and 110 (partial approval);
 * - 3ds_failed: 475 and 476, the payer authentication outcomes;
 * - review: 480, marked for review (no verdict yet; a later one is counted
 *   as another result only if it is another transaction);
 * - error: the service or processor failed (E flags, 236);
 * - declined: every other code, the unknown ones included.
 */
export type PaymentResultKind = "approved" | "declined" | "3ds_failed" | "review" | "error"

export const PAYMENT_RESULT_KINDS: readonly PaymentResultKind[] = [
  "approved",
  "declined",
  "3ds_failed",
  "review",
  "error",
]

/** Steps whose record is the outcome of a shopper's payment (not a follow-on). */
const PAYMENT_STEPS = new Set(["AUTHORIZATION", "AUTHENTICATION"])

export function isPaymentStep(step: string): boolean {
  return PAYMENT_STEPS.has(step)
}

export function paymentResultKind(reasonCode: string): PaymentResultKind {
  if (reasonCode === "475" || reasonCode === "476") return "3ds_failed"
  if (reasonCode === "480") return "review"
  const category = categorize(reasonCode)
  if (category === "success" || category === "partial") return "approved"
  if (category === "service_error") return "error"
  return "declined"
}

/**
 * A reason code's meaning as a store owner reads it in a list of reasons:
 * the section 7 meaning without its "Decline:" label, capitalised; a soft
 * decline says so at the end.
 */
export function plainReason(reasonCode: string): string {
  const { meaning } = describeReasonCode(reasonCode)
  const soft = /^Soft decline:\s*/i.test(meaning)
  const text = meaning.replace(/^(Soft decline|Declined|Decline|Error):\s*/i, "")
  const sentence = text.charAt(0).toUpperCase() + text.slice(1)
  return soft ? `${sentence} (soft decline)` : sentence
}
