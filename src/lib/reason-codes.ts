/**
 * The reason-code table of card-service-interface.md section 7, as data.
 *
 * Every place that needs the flag, meaning or category of a code reads it
 * here, so the table exists once. The category is ours: it is what a caller
 * branches on (section 7 only gives the flag letter S/D/E).
 */

export type ReasonCategory =
  /** 100: the operation succeeded. */
  | "success"
  /** 110: approved, but for less than was asked. */
  | "partial"
  /** The request itself was wrong (missing or invalid fields, duplicate reference). */
  | "invalid_request"
  /** The transaction is not in a state that allows the operation (already reversed, settled...). */
  | "not_allowed_in_state"
  /** The card, the issuer, a fraud rule or the cardholder said no. */
  | "declined"
  /** The service or the processor failed; the same request may succeed later. */
  | "service_error"

export type ReasonCodeEntry = {
  /** The reply flag of section 7 (S success, D decline, E error), or null where the table gives none. */
  flag: string | null
  meaning: string
}

// One row per code keeps this readable side by side with the section 7 table.
// prettier-ignore
export const REASON_CODES = {
  "100": { flag: "SOK", meaning: "Successful transaction" },
  "101": { flag: "DMISSINGFIELD", meaning: "Declined: one or more fields missing" },
  "102": { flag: "DINVALIDDATA", meaning: "Declined: one or more fields invalid" },
  "104": { flag: "DDUPLICATE", meaning: "Declined: the merchantReferenceCode equals that of another authorization request sent in the last 15 minutes" },
  "110": { flag: "SPARTIALAPPROVAL", meaning: "Partial amount approved" },
  "150": { flag: "ESYSTEM", meaning: "Error: general system failure" },
  "151": { flag: "ETIMEOUT", meaning: "Error: request received, server timeout (not client-to-server timeouts)" },
  "152": { flag: "ETIMEOUT", meaning: "Error: request received, a service did not finish in time" },
  "200": { flag: "DAVSNO", meaning: "Soft decline: approved by the issuing bank but failed the address verification check" },
  "201": { flag: "DCALL", meaning: "Decline: the issuing bank has questions; an authorization code may be obtained verbally from the processor" },
  "202": { flag: "DCARDEXPIRED", meaning: "Decline: expired card, or the expiry date differs from the issuer's record" },
  "203": { flag: "DCARDREFUSED", meaning: "Decline: general card decline" },
  "204": { flag: "DCARDREFUSED", meaning: "Decline: insufficient funds" },
  "205": { flag: "DCARDREFUSED", meaning: "Decline: stolen or lost card" },
  "207": { flag: "DCARDREFUSED", meaning: "Decline: issuing bank unavailable" },
  "208": { flag: "DCARDREFUSED", meaning: "Decline: inactive card, or not authorized for card-not-present use" },
  "209": { flag: "DCARDREFUSED", meaning: "Decline: card verification number did not match" },
  "210": { flag: "DCARDREFUSED", meaning: "Decline: credit limit reached" },
  "211": { flag: "DCARDREFUSED", meaning: "Decline: invalid card verification number" },
  "220": { flag: "DCHECKREFUSED", meaning: "Decline: generic" },
  "221": { flag: "DCHECKREFUSED", meaning: "Decline: customer matched an entry on the processor's negative file" },
  "222": { flag: "DCHECKREFUSED", meaning: "Decline: customer's account is frozen" },
  "230": { flag: "DCV", meaning: "Soft decline: approved by the issuing bank but failed the card verification number check" },
  "231": { flag: "DINVALIDCARD", meaning: "Decline: invalid account number" },
  "232": { flag: "DINVALIDDATA", meaning: "Decline: card type not accepted by the processor" },
  "233": { flag: "DINVALIDDATA", meaning: "Decline: general decline by the processor" },
  "234": { flag: "DINVALIDDATA", meaning: "Decline: problem with the merchant configuration" },
  "235": { flag: "DINVALIDDATA", meaning: "Decline: requested amount exceeds the originally authorized amount (for example a larger capture)" },
  "236": { flag: "DINVALIDDATA", meaning: "Decline: processor failure" },
  "237": { flag: "DINVALIDDATA", meaning: "Decline: the authorization was already reversed" },
  "238": { flag: "DINVALIDDATA", meaning: "Decline: the transaction was already settled" },
  "239": { flag: "DINVALIDDATA", meaning: "Decline: the amount must match the previous transaction amount" },
  "240": { flag: "DINVALIDDATA", meaning: "Decline: card type invalid or inconsistent with the card number" },
  "241": { flag: "DINVALIDDATA", meaning: "Decline: the referenced request id is invalid for follow-on transactions" },
  "242": { flag: "DNOAUTH", meaning: "Decline: the request id is invalid; a capture was requested with no matching unused authorization (none succeeded, or it was already used in another capture)" },
  "243": { flag: "DINVALIDDATA", meaning: "Decline: already settled or reversed" },
  "246": { flag: "DNOTVOIDABLE", meaning: "Decline: capture or credit not voidable because it was already submitted to the processor, or the transaction type cannot be voided" },
  "247": { flag: "DINVALIDDATA", meaning: "Decline: credit requested for a capture that was previously voided" },
  "248": { flag: "DBOLETODECLINED", meaning: "Decline: boleto request declined by the processor" },
  "250": { flag: "ETIMEOUT", meaning: "Error: timeout at the payment processor" },
  "251": { flag: "DCARDREFUSED", meaning: "Decline: pinless debit card's use frequency or maximum amount per use exceeded" },
  "254": { flag: "DINVALIDDATA", meaning: "Decline: account is prohibited from stand-alone refunds" },
  "400": { flag: "DSCORE", meaning: "Soft decline: fraud score exceeds threshold" },
  "450": { flag: "DINVALIDADDRESS", meaning: "Apartment number missing or not found" },
  "451": { flag: "DINVALIDADDRESS", meaning: "Insufficient address information" },
  "452": { flag: "DINVALIDADDRESS", meaning: "House or box number not found on street" },
  "453": { flag: "DINVALIDADDRESS", meaning: "Multiple address matches found" },
  "454": { flag: "DINVALIDADDRESS", meaning: "P.O. box identifier not found or out of range" },
  "455": { flag: "DINVALIDADDRESS", meaning: "Route service identifier not found or out of range" },
  "456": { flag: "DINVALIDADDRESS", meaning: "Street name not found in postal code" },
  "457": { flag: "DINVALIDADDRESS", meaning: "Postal code not found in database" },
  "458": { flag: "DINVALIDADDRESS", meaning: "Unable to verify or correct address" },
  "459": { flag: "DINVALIDADDRESS", meaning: "Multiple address matches found (international)" },
  "460": { flag: "DINVALIDADDRESS", meaning: "Address match not found, no reason given" },
  "461": { flag: "DINVALIDADDRESS", meaning: "Unsupported character set" },
  "475": { flag: "DAUTHENTICATE", meaning: "Cardholder is enrolled in payer authentication; authenticate before continuing" },
  "476": { flag: "DAUTHENTICATIONFAILED", meaning: "Payer authentication problem; payer could not be authenticated" },
  "480": { flag: "DREVIEW", meaning: "Order marked for review by the decision manager" },
  "481": { flag: "DREJECT", meaning: "Order rejected by the decision manager" },
  "490": { flag: null, meaning: "The aggregator or acquirer is not accepting transactions from the merchant at this time" },
  "491": { flag: null, meaning: "The aggregator or acquirer is not accepting this transaction" },
  "520": { flag: "DSETTINGS", meaning: "Soft decline: approved by the issuing bank but declined under the merchant's smart authorization settings" },
  "700": { flag: "DRESTRICTED", meaning: "Customer matched the denied parties list" },
  "701": { flag: "DRESTRICTED", meaning: "Export check: billing and shipping country match" },
  "702": { flag: "DRESTRICTED", meaning: "Export check: e-mail country match" },
  "703": { flag: "DRESTRICTED", meaning: "Export check: hostname country and IP country match" },
} as const satisfies Record<string, ReasonCodeEntry>

export type ReasonCode = keyof typeof REASON_CODES

/** Codes whose flag says decline but which mean "our request was malformed". */
const INVALID_REQUEST = new Set(["101", "102", "104", "240", "241", "254"])

/** Codes that say the referenced transaction is in the wrong state for the operation. */
const NOT_ALLOWED_IN_STATE = new Set([
  "235",
  "237",
  "238",
  "239",
  "242",
  "243",
  "246",
  "247",
])

/** Codes that are failures of the service or processor rather than a verdict on the card. */
const SERVICE_ERROR = new Set(["150", "151", "152", "236", "250"])

export function isReasonCode(code: string): code is ReasonCode {
  return Object.prototype.hasOwnProperty.call(REASON_CODES, code)
}

export function describeReasonCode(code: string): ReasonCodeEntry & {
  code: string
  category: ReasonCategory
} {
  const entry: ReasonCodeEntry = isReasonCode(code)
    ? REASON_CODES[code]
    : { flag: null, meaning: "Reason code not in the section 7 table" }
  return { code, ...entry, category: categorize(code) }
}

export function categorize(code: string): ReasonCategory {
  if (code === "100") return "success"
  if (code === "110") return "partial"
  if (INVALID_REQUEST.has(code)) return "invalid_request"
  if (NOT_ALLOWED_IN_STATE.has(code)) return "not_allowed_in_state"
  if (SERVICE_ERROR.has(code)) return "service_error"
  if (isReasonCode(code) && REASON_CODES[code].flag?.startsWith("E")) {
    return "service_error"
  }
  // An unknown code is treated as a decline: the money did not move, and a
  // human reads the code and message kept with the payment.
  return "declined"
}
