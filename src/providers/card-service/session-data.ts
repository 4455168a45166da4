import { z } from "zod"
import type { VerifiedApproval } from "./session-seal"

/**
 * The shape of the provider's payment-session and payment data.
 *
 * Medusa stores whatever the provider returns (and replaces payment.data with
 * what capture, refund and cancel return), so every method returns the whole
 * state, never a delta. The data is public and storefront-writable: it is
 * parsed here as untrusted input, and what matters is checked against the seal
 * (session-seal.ts) or the service's own record.
 */

export const SESSION_DATA_VERSION = 1

export type PaymentState =
  /** Waiting for the shopper to finish the payment page and 3DS. */
  | "pending"
  /** The service approved the full amount for this session. */
  | "authorized"
  /** Captured at the service. */
  | "captured"
  /** The approval was reversed (order canceled, cart changed, or a mismatch). */
  | "canceled"
  /** Declined, failed 3DS, or not acceptable (amount, currency or reference mismatch). */
  | "failed"

export type Operation =
  "authorization" | "capture" | "refund" | "void" | "reversal"

export type TransactionLogEntry = {
  /** The service's transactionId; null when the outcome is unknown (no answer). */
  transaction_id: string | null
  operation: Operation
  /** ACCEPT or REJECT from the service; UNKNOWN when the request may or may not have acted. */
  decision: "ACCEPT" | "REJECT" | "UNKNOWN"
  reason_code: string | null
  /** Amount in major units, as Medusa counts it. */
  amount: number | null
  at: string
  /** Medusa's idempotency key of the operation (capture or refund id), so a repeat is recognised. */
  key?: string
  /** Set on refunds and captures that were later voided. */
  voided?: boolean
}

export type FailureReason = {
  /** A section 7 reason code, or one of ours: "mismatch", "foreign_transaction", "tampered". */
  code: string
  flag?: string | null
  message: string
}

export type FormDescriptor = {
  /** Where the browser posts the payment form: the service's /order/start (section 4.2). */
  action: string
  method: "POST"
  enctype: "application/x-www-form-urlencoded"
  /**
   * Hidden fields known when the session is made. The fresh
   * merchantReferenceCode and the merchant verification code are not stored
   * in session data: `fields_url` hands them out at render time.
   */
  fields: Record<string, string>
  fields_url: string
}

export type CardServiceSessionData = {
  version: number
  session_id: string
  /** Medusa's currency code, "eur". */
  currency_code: string
  /** ISO 4217 numeric code sent to the service, "978". */
  currency: string
  /** The amount as the service takes it: major units rounded to the currency's digits. */
  amount: number
  amount_minor: string
  /** HMAC over session, currency and amount; see session-seal.ts. */
  seal: string
  pay_url: string
  callback_url: string
  return_url: string
  form: FormDescriptor
  /** Where the shopper returns after paying, when the storefront asked for it (origin checked). */
  return_to: string | null
  state: PaymentState
  /** The payment request's transactionId once the service reported one and it was verified. */
  transaction_id: string | null
  /** The shopper's e-mail, sent with follow-ons (2.3 requires one). */
  email: string | null
  card: { type: string; suffix: string } | null
  failure: FailureReason | null
  capture: {
    /** null when the service said "already captured" without naming the capture. */
    transaction_id: string | null
    amount: number
  } | null
  refunded_amount: number
  transactions: TransactionLogEntry[]
  /**
   * What the settlement's retrieve verified of the approval it attached,
   * sealed (session-seal.ts): authorizePayment takes it instead of asking the
   * service again while it is fresh. Absent or null: ask the service.
   */
  verified?: VerifiedApproval | null
}

const LogEntrySchema = z.object({
  transaction_id: z.string().nullable(),
  operation: z.enum(["authorization", "capture", "refund", "void", "reversal"]),
  decision: z.enum(["ACCEPT", "REJECT", "UNKNOWN"]),
  reason_code: z.string().nullable(),
  amount: z.number().nullable(),
  at: z.string(),
  key: z.string().optional(),
  voided: z.boolean().optional(),
})

// z.object (not looseObject): unknown keys a storefront adds are dropped, so
// nothing but these fields ever flows back into Medusa's records.
export const SessionDataSchema = z.object({
  version: z.literal(SESSION_DATA_VERSION),
  session_id: z.string().min(1),
  currency_code: z.string().min(3),
  currency: z.string().regex(/^\d{3}$/),
  amount: z.number().finite(),
  amount_minor: z.string().regex(/^\d+$/),
  seal: z.string().min(1),
  pay_url: z.string(),
  callback_url: z.string(),
  return_url: z.string(),
  form: z.object({
    action: z.string(),
    method: z.literal("POST"),
    enctype: z.literal("application/x-www-form-urlencoded"),
    fields: z.record(z.string(), z.string()),
    fields_url: z.string(),
  }),
  return_to: z.string().nullable(),
  state: z.enum(["pending", "authorized", "captured", "canceled", "failed"]),
  transaction_id: z.string().min(1).nullable(),
  email: z.string().nullable(),
  card: z.object({ type: z.string(), suffix: z.string() }).nullable(),
  failure: z
    .object({
      code: z.string(),
      flag: z.string().nullable().optional(),
      message: z.string(),
    })
    .nullable(),
  capture: z
    .object({ transaction_id: z.string().nullable(), amount: z.number() })
    .nullable(),
  refunded_amount: z.number(),
  transactions: z.array(LogEntrySchema),
  verified: z
    .object({
      transaction_id: z.string().min(1),
      reason_code: z.string(),
      card_type: z.string(),
      card_suffix: z.string(),
      at: z.number().int(),
      mac: z.string().min(1),
    })
    .nullable()
    .optional(),
})

/** Parses untrusted session data; null when it is not this provider's shape. */
export function parseSessionData(data: unknown): CardServiceSessionData | null {
  const result = SessionDataSchema.safeParse(data)
  return result.success ? (result.data as CardServiceSessionData) : null
}

export function logEntry(
  entry: Omit<TransactionLogEntry, "at">,
  now: Date = new Date()
): TransactionLogEntry {
  return { ...entry, at: now.toISOString() }
}

/**
 * The session's log with `entry` added, unless the log already holds that
 * operation of that transaction (a repeated call reports it again).
 */
export function appendLogEntry(
  session: Pick<CardServiceSessionData, "transactions">,
  entry: Omit<TransactionLogEntry, "at">
): TransactionLogEntry[] {
  const duplicate = session.transactions.some(
    (t) =>
      t.transaction_id !== null &&
      t.transaction_id === entry.transaction_id &&
      t.operation === entry.operation
  )
  return duplicate
    ? session.transactions
    : [...session.transactions, logEntry(entry)]
}
