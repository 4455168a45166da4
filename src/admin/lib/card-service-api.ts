import { FetchError } from "@medusajs/js-sdk"
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { sdk } from "./sdk"

/** The answers of the plugin's /admin/card-service routes (src/api/admin/card-service). */

export type RegionLink = {
  id: string
  name: string
  currency_code: string
  countries: string[]
  admin_path: string
}

export type ProviderSettings = {
  id: string
  is_enabled: boolean
  mode: "test" | "live"
  service_url: string
  merchant_id: string
  verify_id: string
  urls: {
    callback: string
    return: string
    pay_page: string
    form_fields: string
    storefront_return: string
    allowed_return_origins: string[]
  }
  auto_capture: boolean
  windowed: boolean
  redirect_on_failure: boolean
  regions_enabled: RegionLink[]
  regions_not_enabled: RegionLink[]
}

export type TestConnectionResult = {
  provider_id: string
  service_url: string
  checked_at: string
} & (
  | { ok: true; latency_ms: number }
  | {
      ok: false
      error: { category: string; message: string; http_status: number | null }
    }
)

export type TransactionRow = {
  transaction_id: string | null
  operation: "authorization" | "capture" | "refund" | "void" | "reversal"
  step: string | null
  status: "successful" | "declined" | "error" | null
  reason: { code: string; flag: string | null; meaning: string } | null
  capture_status: "PENDING" | "TRANSMITTED" | "VOIDED" | "TRXN_ERROR" | null
  amount: number | null
  currency_code: string
  card: { brand: string; masked: string } | null
  original_transaction_id: string | null
  recorded_at: string | null
  voided: boolean
  voidable: boolean
  not_voidable_reason: string | null
  problem: string | null
}

export type PaymentTransactions = {
  payment: {
    id: string
    provider_id: string
    currency_code: string
    amount: number
    state: string | null
    medusa: { captured: number; refunded: number }
    service: { captured: number; refunded: number } | null
    notes: string[]
  }
  transactions: TransactionRow[]
  problem: string | null
}

export type VoidResult = {
  voided: {
    transaction_id: string
    type: "CAPTURE" | "REFUND"
    amount: number
    currency_code: string
    void_transaction_id: string | null
  }
  medusa_note: string
}

const keys = {
  settings: ["card-service", "settings"] as const,
  transactions: (paymentId: string) =>
    ["card-service", "transactions", paymentId] as const,
}

export function useCardServiceSettings() {
  return useQuery({
    queryKey: keys.settings,
    queryFn: () =>
      sdk.client.fetch<{ providers: ProviderSettings[] }>(
        "/admin/card-service/settings"
      ),
  })
}

export function useTestConnection() {
  return useMutation({
    mutationFn: (providerId: string) =>
      sdk.client.fetch<TestConnectionResult>(
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
      sdk.client.fetch<PaymentTransactions>(
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
      sdk.client.fetch<VoidResult>(
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

/** The routes' own message (the SDK puts the body's message on the error), with the status. */
export function errorText(error: unknown): string {
  if (error instanceof FetchError) {
    const unreachable = error.status === 502 || error.status === 503
    return unreachable || !error.status
      ? error.message
      : `${error.message} (HTTP ${error.status})`
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
