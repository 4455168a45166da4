/** What went wrong, for a storefront to branch on (the message is for people). */
export type CardServiceStorefrontErrorCode =
  /** No card-service payment session by that id (or not this provider's). */
  | "session_not_found"
  /** The session is already paid: show the order instead of a form. */
  | "already_paid"
  /** The session's public data was altered: create a new payment session. */
  | "session_altered"
  /** The publishable key is missing or wrong. */
  | "publishable_key"
  /** Any other 4xx answer from the backend. */
  | "request_refused"
  /** 5xx, a network failure, or an answer that is not the expected JSON. */
  | "backend_unavailable"
  | "invalid_response"
  /** Refused in the browser before anything was sent. */
  | "invalid_card_number"
  | "unknown_card_type"
  | "invalid_expiry"
  | "no_document"
  /** Polling ran out of time or was aborted. */
  | "aborted"

/**
 * The one error type of the storefront helper. `status` is the backend's
 * HTTP status when there was an answer. No card data is ever put in it.
 */
export class CardServiceStorefrontError extends Error {
  readonly code: CardServiceStorefrontErrorCode
  readonly status: number | null

  constructor(
    code: CardServiceStorefrontErrorCode,
    message: string,
    status: number | null = null
  ) {
    super(message)
    this.name = "CardServiceStorefrontError"
    this.code = code
    this.status = status
  }
}
