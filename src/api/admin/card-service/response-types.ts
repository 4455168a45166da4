/**
 * The answers of the /admin/card-service routes, as types only. The routes
 * build them and the admin screens (src/admin) read them, so both import
 * them from here. The admin imports this file with `import type`, which the
 * admin bundler erases: keep it free of values, and import into it only with
 * `import type`, so no server code can follow it into the browser.
 */
import type { CardServiceErrorCategory } from "../../../lib/card-service-error"
import type {
  CaptureStatus,
  TransactionRecord,
} from "../../../lib/wire-schemas"
import type { Operation } from "../../../providers/card-service/session-data"

export type RegionLink = {
  id: string
  name: string
  currency_code: string
  countries: string[]
  /** Path inside the admin dashboard (its router adds the /app base). */
  admin_path: string
}

/**
 * What the settings page shows for one configured provider. Built from an
 * allow-list of option fields: clientCode, clientSecret, sessionSecret and
 * verification codes never leave the server.
 */
export type ProviderSettings = {
  id: string
  is_enabled: boolean
  mode: "test" | "live"
  service_url: string
  merchant_id: string
  verify_id: string
  urls: {
    /** Patterns with {session_id}: what the provider puts in each payment form (section 2.2). */
    callback: string
    return: string
    pay_page: string
    form_fields: string
    /** Where the shopper lands after the return route, unless the storefront asked otherwise. */
    storefront_return: string
    allowed_return_origins: string[]
  }
  auto_capture: boolean
  windowed: boolean
  redirect_on_failure: boolean
  regions_enabled: RegionLink[]
  regions_not_enabled: RegionLink[]
}

/** The option names the admin may change (ADMIN_SETTING_KEYS of options.ts). */
export type AdminSettingName =
  | "mode"
  | "testUrl"
  | "liveUrl"
  | "merchantId"
  | "verifyId"
  | "clientCode"
  | "clientSecret"
  | "autoCapture"
  | "windowed"
  | "redirectOnFailure"
  | "allowedReturnOrigins"

/**
 * One editable setting as the admin form shows it: the value in force and
 * where it comes from. A secret has no value here, only whether the admin
 * stored one and when.
 */
export type AdminSettingField = {
  name: AdminSettingName
  value: string | boolean | string[] | null
  /** "admin": stored from this page; "code": medusa-config.ts (or its default). */
  source: "admin" | "code"
  /** Locked in medusa-config.ts (lockedSettings): shown read-only, "set in code". */
  locked: boolean
  secret: boolean
  /** For a secret stored from this page: when it was set. */
  set_at: string | null
}

export type AdminSettingsState = {
  /** The settings module is registered (otherwise the page is read-only). */
  editable: boolean
  /** CARD_SERVICE_SETTINGS_KEY is set, so a secret can be stored. */
  secrets_storable: boolean
  fields: AdminSettingField[]
  updated_at: string | null
}

/** GET /admin/card-service/settings; POST answers the same after saving. */
export type SettingsResponse = {
  providers: ProviderSettings[]
  admin_settings: AdminSettingsState
}

/** One entry of the trail: who changed which setting, when. Never a secret's value. */
export type SettingsChangeEntry = {
  id: string
  setting: AdminSettingName
  secret: boolean
  old_value: string | null
  new_value: string | null
  actor_type: string | null
  actor_id: string | null
  actor_email: string | null
  created_at: string
}

/** GET /admin/card-service/settings/changes */
export type SettingsChangesResponse = { changes: SettingsChangeEntry[] }

/** POST /admin/card-service/test-connection: a failed test is still a 200. */
export type TestConnectionResponse = {
  provider_id: string
  service_url: string
  checked_at: string
} & (
  | { ok: true; latency_ms: number }
  | {
      ok: false
      error: {
        category: CardServiceErrorCategory
        message: string
        http_status: number | null
      }
    }
)

/** One service transaction of a payment as the admin shows it. */
export type TransactionRow = {
  transaction_id: string | null
  operation: Operation
  /** The record's step (AUTHORIZATION, CAPTURE, REFUND, VOID, REVERSAL...); null without a record. */
  step: string | null
  status: TransactionRecord["status"] | null
  reason: { code: string; flag: string | null; meaning: string } | null
  capture_status: CaptureStatus | null
  amount: number | null
  currency_code: string
  card: { brand: string; masked: string } | null
  original_transaction_id: string | null
  /** When this store recorded it (payment.data), if it did. */
  recorded_at: string | null
  voided: boolean
  /** Only captures and refunds can be voided (section 2.4), and only while PENDING. */
  voidable: boolean
  /** Why a capture or refund cannot be voided now; null when it can or is no payout. */
  not_voidable_reason: string | null
  /** Set when the service could not show this transaction. */
  problem: string | null
  /** The service answered that it has no record of this transaction (retrieve: not found). */
  no_record: boolean
  /**
   * Medusa's id of the refund when the service never answered it: the store
   * owner records what the card service shows (POST .../unknown-refunds).
   */
  unknown_refund_id: string | null
}

/** Captured and refunded totals, in major units. */
export type MoneyTotals = { captured: number; refunded: number }

/** GET /admin/card-service/payments/:payment_id/transactions */
export type PaymentTransactionsResponse = {
  payment: {
    id: string
    provider_id: string
    currency_code: string
    amount: number
    state: string | null
    medusa: MoneyTotals
    /**
     * Null when payment.data cannot be read (the service was not asked), or
     * when a transaction's record could not be read: totals without it would
     * say money moved that nobody knows moved.
     */
    service: MoneyTotals | null
    /** Where Medusa's totals and the service's differ, and which way. */
    notes: string[]
    /**
     * When the approval was captured in part: what the rest of it becomes
     * (one capture per approval), in the owner's words. Null otherwise.
     */
    capture_note: string | null
  }
  transactions: TransactionRow[]
  problem: string | null
}

/** POST /admin/card-service/payments/:payment_id/void */
export type VoidResponse = {
  voided: {
    transaction_id: string
    type: "CAPTURE" | "REFUND"
    amount: number
    currency_code: string
    /** Null when the void's answer was lost and the record showed it done. */
    void_transaction_id: string | null
    reason_code: string | null
  }
  /** payment.data's refunded_amount after the void. */
  refunded_amount: number
  medusa_note: string
}

/** One case the reconciliation sweep noted (src/reconciliation). */
export type ReconcileEntry = {
  kind: "session" | "payment"
  /** payses_... or pay_... */
  id: string
  /** order_created, released, failed, outcome_unknown, not_released, review_closed, hold_not_canceled, capture_pending, capture_transmitted, capture_failed, capture_voided, capture_unconfirmed, capture_confirmed, follow_on_recovered, booking_recovered, order_recorded, order_not_recorded, cancel_recovered, cancel_not_finished, refund_unknown, changed_outside_medusa */
  status: string
  message: string
  /** merchantReferenceCodes or transaction ids to look up at the service. */
  references: string[]
  noted_at: string
  age_ms: number
  /** The store owner must act; otherwise the entry says what was done. */
  needs_action: boolean
  /**
   * Who noted it: the sweep, or a review's verdict settled as it came in (on
   * the service's callback, the shopper's return or the storefront's poll).
   */
  acted_by: "sweep" | "callback" | "return" | "poll"
  /** A review's entry (status review_closed, hold_not_canceled, not_released): what its verdict did. */
  review: string | null
}

export type ReconciliationResponse = { entries: ReconcileEntry[] }

/** POST /admin/card-service/reconciliation: one sweep, run now. */
export type SweepRunResponse =
  | { ran: false }
  | {
      ran: true
      examined: number
      /** One per thing the sweep did or found (a session's or a payment's). */
      actions: {
        session_id?: string
        payment_id?: string
        status: string
        message: string
      }[]
      serviceDown: boolean
    }

/**
 * GET /admin/card-service/orders/:order_id/review: the order's payment under
 * review (reason 480), if it had one (docs/reconciliation.md, "Orders on hold").
 */
export type OrderReviewResponse = {
  review: {
    session_id: string
    /**
     * on_hold: waiting for the verdict; approved: the payment is authorized;
     * rejected / expired: the order was canceled (expired: no verdict in
     * time; a later approval is reversed); reversed: approved too late and
     * reversed; not_canceled: did not go through, but the order could not be
     * canceled (the store owner acts).
     */
    state: "on_hold" | "approved" | "rejected" | "expired" | "reversed" | "not_canceled" | "not_released"
    /** When the order was placed on hold. */
    since: string
    /** When an order still on hold is canceled for want of a verdict. */
    deadline: string
    /** When the verdict was settled (or the review closed for want of one); null while on hold. */
    decided_at: string | null
    message: string
    needs_action: boolean
  } | null
}

/**
 * GET and POST /admin/card-service/orders/:order_id/outstanding: what the
 * order owes after an edit (its own payment collection, linked to no cart,
 * that Medusa waits to be paid), and the link to the hosted payment page
 * that collects it (docs/admin.md, "When an order is edited up"). Null when
 * the order owes nothing to collect.
 */
export type OrderOutstandingResponse = {
  outstanding: {
    order_id: string
    payment_collection_id: string
    /** What is owed, in major units (10.5 is 10.50). */
    amount: number
    currency_code: string
    /** Medusa's status of the collection: not_paid (or awaiting). */
    status: string
    /**
     * The card-service provider a new link uses: the order's own, else the
     * first one its region offers. Null when the region offers none (no link
     * can be made).
     */
    provider_id: string | null
    /** The newest unpaid card-service session of the collection, as a link to send. */
    link: {
      session_id: string
      pay_url: string
      created_at: string
      /** For another amount than is owed now (the order was edited again): make a new link. */
      out_of_date: boolean
    } | null
  } | null
}

/** One window of "Payments at a glance" (GET /admin/card-service/figures). */
export type GlanceWindow = {
  window: "24h" | "7d"
  /** Card-service payment sessions created (a storefront started a payment). */
  started: number
  /**
   * Payment results (payment-results.ts), each transaction once, by what it
   * finally was: a review the service approved is an approval, one it
   * rejected a decline (481, in top_declines).
   */
  approved: number
  declined: number
  three_ds_failed: number
  errors: number
  /** approved + declined + three_ds_failed + errors: the approval rate's base. */
  decided: number
  /** Held for review (480) and waiting for the verdict now. */
  on_hold: number
  /** Held for review, no verdict in time: the order was canceled (or left to the store owner). */
  review_expired: number
  /** The most frequent decline reasons, most frequent first (at most five). */
  top_declines: { reason_code: string; reason: string; count: number }[]
  /** Started, no result reported, older than `abandoned_after_minutes`, no order. */
  abandoned: number
  /** approved / decided; null when nothing was decided. */
  approval_rate: number | null
  /** Per operation the service was called for, slowest p95 first. */
  latency: { operation: string; calls: number; p50_ms: number; p95_ms: number }[]
  /** Callbacks answered 400 or 404: not a payment result, or no such session. */
  callbacks_refused: number
  /** Callbacks answered 200 and ignored: the service's record showed no payment of the session (forged or replayed). */
  callbacks_ignored: number
  /** Callbacks answered 503 (the result could not be checked then; the service delivers them again). */
  callbacks_unavailable: number
  /** What the sweep did (its actions, by the status it noted: the words of Needs attention). */
  sweep_actions: number
  sweep_by_status: { status: string; count: number }[]
}

export type GlanceResponse = {
  /** False when the activity module is not registered: only `started` and `abandoned` can be counted. */
  recording: boolean
  abandoned_after_minutes: number
  generated_at: string
  windows: GlanceWindow[]
}

/** POST /admin/card-service/payments/:payment_id/unknown-refunds */
export type UnknownRefundResponse = {
  refund: {
    refund_id: string
    amount: number | null
    /** True when the plugin made the refund now (the owner found it was not made). */
    made_now: boolean
    /** The service's id of the refund made now; null when the owner confirmed an earlier one. */
    transaction_id: string | null
  }
}
