import { z } from "zod"

/**
 * The wire of card-service-interface.md as zod schemas, one per message.
 *
 * Requests are parsed before sending (a bad request is our bug and must not
 * reach the service); unknown fields are stripped so only documented fields
 * go out. Responses are safe-parsed with loose objects: extra fields the
 * service may add are kept and tolerated, missing or mistyped documented
 * fields become an invalid_response error that names them.
 */

/** ISO 4217 numeric code as 3 characters (section 8, wire-choices). */
export const NumericCurrencySchema = z
  .string()
  .regex(/^\d{3}$/, "expected a 3-digit ISO 4217 numeric code such as 978")

/** Required text: section 1 makes every named field required. */
const Text = z.string().min(1)

/** A loose e-mail check: the service, not us, is the judge of an address. */
const Email = z
  .string()
  .regex(/^[^\s@]+@[^\s@]+$/, "expected an e-mail address")

/**
 * A reason code of section 7: a String (section 2.1). Some services send it
 * as a JSON number; that is normalised to text. Only the number branch
 * transforms, so the usual string costs one check and no pipe.
 */
export const ReasonCodeSchema = z.union([
  z.string().regex(/^\d+$/),
  z
    .number()
    .int()
    .nonnegative()
    .transform((code) => String(code)),
])

export const DecisionSchema = z.enum(["ACCEPT", "REJECT"])
export type Decision = z.infer<typeof DecisionSchema>

/** Section 2.3 body of reverse, capture and refund. */
export const FollowOnRequestSchema = z.object({
  merchantId: Text,
  merchantReferenceCode: Text,
  currency: NumericCurrencySchema,
  /** Major units, a JSON number (wire-choices); zero or negative is a 102. */
  amount: z.number().finite().positive(),
  email: Email,
  originalTransactionId: Text,
})
export type FollowOnRequest = z.infer<typeof FollowOnRequestSchema>

/** Section 2.4 body of void: amount is a String here, type only CAPTURE or REFUND (section 8). */
export const VoidRequestSchema = z.object({
  merchantId: Text,
  merchantReferenceCode: Text,
  currency: NumericCurrencySchema,
  amount: z
    .string()
    .regex(/^\d+(\.\d+)?$/, "expected a decimal string such as 10.50"),
  email: Email,
  transactionId: Text,
  type: z.enum(["CAPTURE", "REFUND"]),
})
export type VoidRequest = z.infer<typeof VoidRequestSchema>

/** Section 4.1 response. */
export const AuthorizeResponseSchema = z.looseObject({
  Authorization: Text,
})

/** Section 2.5: the result of reverse, capture, refund and void. */
export const OperationResultSchema = z.looseObject({
  decision: DecisionSchema,
  reasonCode: ReasonCodeSchema,
  transactionId: z.string(),
  originalTransactionId: z.string(),
})
export type OperationResult = z.infer<typeof OperationResultSchema>

/**
 * Enough of a 2.5 body to read a verdict from an error answer (a 400, or a
 * 5xx from a failing service, wire-choices), where ids may be missing.
 */
export const VerdictSchema = z.looseObject({
  decision: DecisionSchema,
  reasonCode: ReasonCodeSchema,
  transactionId: z.string().optional(),
  originalTransactionId: z.string().optional(),
})
export type Verdict = z.infer<typeof VerdictSchema>

/** The 3DS result fields that section 2.5 adds when isAuthenticate is N. */
export const ThreeDsResultSchema = z.looseObject({
  xid: z.string().optional(),
  eci: z.string().optional(),
  commerceIndicator: z.string().optional(),
  cavvAlgorithm: z.string().optional(),
  paresStatus: z.string().optional(),
  paSpecificationVersion: z.string().optional(),
  directoryServerTransactionID: z.string().optional(),
  /** Not applicable for MASTERCARD. */
  cavv: z.string().optional(),
  /** MASTERCARD only. */
  ucafCollectionIndicator: z.string().optional(),
  /** MASTERCARD only. */
  ucafAuthenticationData: z.string().optional(),
})
export type ThreeDsResult = z.infer<typeof ThreeDsResultSchema>

/**
 * The payment result of 4.2 / section 6, as it arrives at callbackLocation
 * (JSON, or form-encoded as a sandbox option: every value is text either
 * way). originalTransactionId is the empty string for a payment
 * (wire-choices); merchantReferenceCode is added by wire-choices.
 * The 3DS fields are optional because they come only with isAuthenticate N.
 */
export const PaymentResultSchema = z.looseObject({
  decision: DecisionSchema,
  reasonCode: ReasonCodeSchema,
  transactionId: z.string(),
  originalTransactionId: z.string().optional().default(""),
  merchantReferenceCode: z.string().optional(),
  ...ThreeDsResultSchema.shape,
})
export type PaymentResult = z.infer<typeof PaymentResultSchema>

/** Section 3 values of captureStatus. */
export const CaptureStatusSchema = z.enum([
  "PENDING",
  "TRANSMITTED",
  "VOIDED",
  "TRXN_ERROR",
])
export type CaptureStatus = z.infer<typeof CaptureStatusSchema>

/** Section 2.1/7 values of status. */
export const TransactionStatusSchema = z.enum([
  "successful",
  "declined",
  "error",
])
export type TransactionStatus = z.infer<typeof TransactionStatusSchema>

/** A 2.1 amount is a Number; a numeric string is accepted and read as one. */
const WireAmount = z.union([
  z.number().finite(),
  z
    .string()
    .regex(/^-?\d+(\.\d+)?$/)
    .transform((text) => Number(text)),
])

/** Section 2.1: the history record returned by payment retrieve (4.5). */
export const TransactionRecordSchema = z.looseObject({
  merchantReferenceCode: z.string(),
  transactionId: Text,
  originalTransactionId: z.string(),
  /** AUTHORIZATION, AUTHENTICATION, REVERSAL, CAPTURE, REFUND, VOID (wire-choices). */
  step: z.string(),
  reasonCode: ReasonCodeSchema,
  status: TransactionStatusSchema,
  /** Present only for a payout (section 2.1). */
  captureStatus: CaptureStatusSchema.optional(),
  message: z.string().optional(),
  approvalCode: z.string().optional(),
  cardType: z.string(),
  currencyCode: NumericCurrencySchema,
  amount: WireAmount,
  /** Not returned for MASTERCARD (section 2.1). */
  cardPrefix: z.string().optional(),
  cardSuffix: z.string(),
})
export type TransactionRecord = z.infer<typeof TransactionRecordSchema>

/** The error body wire-choices gives to 401 and 404 answers. */
export const ServiceErrorBodySchema = z.looseObject({
  error: z.string(),
  message: z.string().optional(),
})

/** "transactionId: expected string, received undefined; amount: ..." */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.length > 0 ? issue.path.join(".") : "(body)"
      return `${path}: ${issue.message}`
    })
    .join("; ")
}

/** The names of the fields a zod error is about, for tests and logs. */
export function issueFields(error: z.ZodError): string[] {
  return [
    ...new Set(
      error.issues.map((issue) =>
        issue.path.length > 0 ? issue.path.join(".") : "(body)"
      )
    ),
  ]
}
