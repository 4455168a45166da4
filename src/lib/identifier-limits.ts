/**
 * Length and character limits of the identifiers the plugin takes from
 * requests nobody authenticated (the service's unsigned callback, the
 * shopper's browser) before it sends any of them to the card service.
 *
 * The interface leaves field lengths "not shown" (sections 2.5 and 8), so
 * these are our limits, chosen wide enough for any identifier a processor
 * issues and narrow enough that nothing else passes: a transactionId is
 * what a retrieve puts into a URL path (4.5), so it admits no character that
 * means something there. A value outside them answers 400 and reaches no one.
 */

/** A transaction id of the service: 1-64 letters, digits, `-` or `_` (the sandbox's: 52 digits). */
export const TRANSACTION_ID = /^[0-9A-Za-z_-]{1,64}$/

/**
 * merchantReferenceCode: the sandbox's limit (50) and the characters this
 * plugin's references use (merchant-reference.ts: ULID, nonce, MAC, dots).
 */
export const MERCHANT_REFERENCE = /^[0-9A-Za-z._-]{1,50}$/

/** A reason code of section 7: digits (three in the table; room for more). */
export const REASON_CODE = /^\d{1,6}$/

/**
 * Medusa's payment-session ids: `payses_` and a ULID (26 characters); `_`
 * admitted too, as in Medusa's prefixes (an id is only looked up, never sent).
 */
export const PAYMENT_SESSION_ID = /^payses_[0-9A-Za-z_]{1,64}$/

/** Medusa's payment ids: `pay_` and a ULID (and `_`, as above). */
export const PAYMENT_ID = /^pay_[0-9A-Za-z_]{1,64}$/

/** A Medusa order id (order_ and a ULID). */
export const ORDER_ID = /^order_[0-9A-Za-z]{1,64}$/

/**
 * Any other text field of a result the service posts or the browser brings
 * back (the 3DS fields of 2.5, `decision`): the longest, cavv, is 28
 * characters; anything far longer is not a result.
 */
export const MAX_RESULT_FIELD_LENGTH = 256
