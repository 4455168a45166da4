import type { FailureReason } from "../providers/card-service/session-data"

/** What the callback and return routes learn from the service or the browser. */
export type SettleHint = {
  /** The transactionId the callback or the redirect named; a hint, checked with retrieve. */
  transactionId?: string
  /** The merchantReferenceCode the result names (wire-choices adds it to both). */
  merchantReferenceCode?: string
  source: "callback" | "return" | "poll" | "sweep"
  /** The time to judge deadlines by (an order on hold's review time); the sweep passes its own. */
  at?: Date
}

export type SettleOutcome =
  /**
   * The cart is an order (now or before), or the order's outstanding amount
   * is authorized (`balance`). `secondPaymentReleased`: the hint
   * named another approval of this session (a second tab paid too), which was
   * reversed.
   */
  | {
      kind: "order"
      orderId: string
      /** Null for a session of the order's own collection (`balance`). */
      cartId: string | null
      /**
       * The session paid what an order edit left owing (order-balance.ts):
       * authorized for the order, no cart.
       */
      balance?: true
      secondPaymentReleased?: boolean
      /** The order had no payment (its completion died) and this settlement recorded it (order-payment.ts). */
      paymentRecorded?: boolean
      /**
       * The order is on hold: its payment is marked for review (480) and
       * awaits the verdict (review-verdict.ts).
       */
      onHold?: boolean
      /** The review's approval authorized the order's payment just now. */
      review?: "approved"
    }
  /**
   * The order was on hold for a review that did not approve: canceled for a
   * rejection or for want of a verdict, or, approved too late, its approval
   * reversed (review-verdict.ts).
   */
  | {
      kind: "review_closed"
      orderId: string
      cartId: string
      /** not_released: the approval no order takes could not be reversed (238, 243); the store owner acts. */
      verdict: "rejected" | "expired" | "reversed" | "not_released"
      /** Closed before: nothing was done now. */
      unchanged?: true
    }
  /** Nothing known yet: the shopper has not finished, or the result has not arrived. */
  | { kind: "pending"; cartId: string | null }
  /** The payment did not go through; the shopper may try again. */
  | { kind: "failed"; cartId: string | null; failure: FailureReason }
  /** The hint named nothing this session can use: nothing was changed. */
  | { kind: "ignored"; cartId: string | null; reason: string }
  /** No card-service session by that id. */
  | { kind: "unknown_session" }
  /** The session is gone (cart changed); its approval was reversed by this provider. */
  | { kind: "released"; providerId: string }
