import { FetchError } from "@medusajs/js-sdk"
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { sdk } from "./sdk"
// The answers' shapes come from the routes that build them
// (src/api/admin/card-service). Type-only imports, which the admin bundler
// erases, so no server code enters the browser bundle.
import type {
  AdminSettingName,
  OrderOutstandingResponse,
  OrderReviewResponse,
  GlanceResponse,
  PaymentTransactionsResponse,
  ReconciliationResponse,
  SettingsChangesResponse,
  SettingsResponse,
  SweepRunResponse,
  TestConnectionResponse,
  UnknownRefundResponse,
  VoidResponse,
} from "../../api/admin/card-service/response-types"

export type {
  AdminSettingField,
  AdminSettingName,
  GlanceWindow,
  ProviderSettings,
  SettingsChangeEntry,
  ReconcileEntry,
  RegionLink,
  TransactionRow,
} from "../../api/admin/card-service/response-types"

const keys = {
  settings: ["card-service", "settings"] as const,
  figures: ["card-service", "figures"] as const,
  reconciliation: ["card-service", "reconciliation"] as const,
  settingsChanges: ["card-service", "settings", "changes"] as const,
  transactions: (paymentId: string) =>
    ["card-service", "transactions", paymentId] as const,
  review: (orderId: string) => ["card-service", "review", orderId] as const,
  outstanding: (orderId: string) =>
    ["card-service", "outstanding", orderId] as const,
}

/** What the order owes after an edit, and the link that collects it (null: nothing owed). */
export function useOrderOutstanding(orderId: string) {
  return useQuery({
    queryKey: keys.outstanding(orderId),
    queryFn: () =>
      sdk.client.fetch<OrderOutstandingResponse>(
        `/admin/card-service/orders/${orderId}/outstanding`
      ),
  })
}

/** A new payment link for what the order owes (an earlier link stops working). */
export function useNewOutstandingLink(orderId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: () =>
      sdk.client.fetch<OrderOutstandingResponse>(
        `/admin/card-service/orders/${orderId}/outstanding`,
        { method: "POST", body: {} }
      ),
    onSuccess: (data) => queryClient.setQueryData(keys.outstanding(orderId), data),
  })
}

/** The order's payment under review (480), or null: the order widget's on-hold panel. */
export function useOrderReview(orderId: string) {
  return useQuery({
    queryKey: keys.review(orderId),
    queryFn: () =>
      sdk.client.fetch<OrderReviewResponse>(
        `/admin/card-service/orders/${orderId}/review`
      ),
  })
}

export function useCardServiceSettings() {
  return useQuery({
    queryKey: keys.settings,
    queryFn: () =>
      sdk.client.fetch<SettingsResponse>("/admin/card-service/settings"),
  })
}

/** "Payments at a glance": the last 24 hours and 7 days, from the database. */
export function useGlanceFigures() {
  return useQuery({
    queryKey: keys.figures,
    queryFn: () =>
      sdk.client.fetch<GlanceResponse>("/admin/card-service/figures"),
  })
}

export type SettingsSave = {
  settings: Partial<Record<AdminSettingName, string | boolean | string[] | null>>
  confirm_live?: boolean
}

/** Saves the admin's settings; the answer is the settings page's data, in force. */
export function useSaveSettings() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (body: SettingsSave) =>
      sdk.client.fetch<SettingsResponse>("/admin/card-service/settings", {
        method: "POST",
        body,
      }),
    onSuccess: (data) => {
      queryClient.setQueryData(keys.settings, data)
      queryClient.invalidateQueries({ queryKey: keys.settingsChanges })
    },
  })
}

/** Who changed which setting, when (the audit trail). */
export function useSettingsChanges() {
  return useQuery({
    queryKey: keys.settingsChanges,
    queryFn: () =>
      sdk.client.fetch<SettingsChangesResponse>(
        "/admin/card-service/settings/changes"
      ),
  })
}

/** What the reconciliation sweep noted (docs/reconciliation.md). */
export function useReconciliation(paymentId?: string) {
  return useQuery({
    queryKey: [...keys.reconciliation, paymentId ?? "all"],
    queryFn: () =>
      sdk.client.fetch<ReconciliationResponse>(
        "/admin/card-service/reconciliation",
        paymentId ? { query: { payment_id: paymentId } } : {}
      ),
  })
}

/** Runs one sweep now (the job's lock and backoff); the lists are fetched again after. */
export function useRunSweep() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: () =>
      sdk.client.fetch<SweepRunResponse>("/admin/card-service/reconciliation", {
        method: "POST",
        body: {},
      }),
    onSettled: () =>
      queryClient.invalidateQueries({ queryKey: keys.reconciliation }),
  })
}

export function useTestConnection() {
  return useMutation({
    mutationFn: (providerId: string) =>
      sdk.client.fetch<TestConnectionResponse>(
        "/admin/card-service/test-connection",
        {
          method: "POST",
          body: { provider_id: providerId },
        }
      ),
  })
}

export function usePaymentTransactions(paymentId: string) {
  return useQuery({
    queryKey: keys.transactions(paymentId),
    queryFn: () =>
      sdk.client.fetch<PaymentTransactionsResponse>(
        `/admin/card-service/payments/${paymentId}/transactions`
      ),
    // An unreachable service is shown at once, with a retry button.
    retry: false,
  })
}

export function useVoidTransaction(paymentId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (transactionId: string) =>
      sdk.client.fetch<VoidResponse>(
        `/admin/card-service/payments/${paymentId}/void`,
        {
          method: "POST",
          body: { transaction_id: transactionId },
        }
      ),
    onSettled: () =>
      queryClient.invalidateQueries({ queryKey: keys.transactions(paymentId) }),
  })
}

/**
 * The owner's answer about a refund the service never answered: `made` when
 * the card service shows it; not made, and the plugin makes it now.
 */
export function useSettleUnknownRefund(paymentId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ refundId, made }: { refundId: string; made: boolean }) =>
      sdk.client.fetch<UnknownRefundResponse>(
        `/admin/card-service/payments/${paymentId}/unknown-refunds`,
        { method: "POST", body: { refund_id: refundId, made } }
      ),
    onSettled: () =>
      queryClient.invalidateQueries({ queryKey: keys.transactions(paymentId) }),
  })
}

/**
 * The routes' own message (the SDK puts the body's message on the error).
 * A refusal (4xx) and an unreachable service (502, 503) are sentences that
 * say what happened; only an unexpected failure gets its status added.
 */
export function errorText(error: unknown): string {
  if (error instanceof FetchError) {
    const explained =
      !error.status ||
      (error.status >= 400 && error.status < 500) ||
      error.status === 502 ||
      error.status === 503
    return explained ? error.message : `${error.message} (HTTP ${error.status})`
  }
  return error instanceof Error ? error.message : String(error)
}

export function formatMoney(
  amount: number | null,
  currencyCode: string
): string {
  if (amount === null) return "-"
  try {
    return new Intl.NumberFormat(undefined, {
      style: "currency",
      currency: currencyCode.toUpperCase(),
    }).format(amount)
  } catch {
    return `${amount} ${currencyCode.toUpperCase()}`
  }
}
