import type {
  IPaymentModuleService,
  MedusaContainer,
} from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import {
  cardServiceProvider,
  PROVIDER_ID_PREFIX,
} from "../../../checkout/provider-lookup"
import { serviceBaseUrl } from "../../../providers/card-service/options"
import type CardServiceProviderService from "../../../providers/card-service/service"
import type { ProviderSettings, RegionLink } from "./response-types"

/** The card-service providers this store has registered and built. */
export async function cardServiceProviders(
  container: MedusaContainer
): Promise<
  { id: string; is_enabled: boolean; provider: CardServiceProviderService }[]
> {
  const paymentModule = container.resolve<IPaymentModuleService>(
    Modules.PAYMENT
  )
  const listed = await paymentModule.listPaymentProviders({})
  const found: {
    id: string
    is_enabled: boolean
    provider: CardServiceProviderService
  }[] = []
  for (const { id, is_enabled } of listed) {
    if (!id.startsWith(PROVIDER_ID_PREFIX)) continue
    let provider: CardServiceProviderService
    try {
      provider = cardServiceProvider(container, id)
    } catch {
      // Listed in the database from an earlier configuration, but no longer
      // in medusa-config: nothing to show or test.
      continue
    }
    await provider.refreshSettings()
    found.push({ id, is_enabled, provider })
  }
  return found
}

export async function providerSettings(
  container: MedusaContainer
): Promise<ProviderSettings[]> {
  const providers = await cardServiceProviders(container)
  const regions = await regionsWithProviders(container)
  return providers.map(({ id, is_enabled, provider }) => {
    const options = provider.options
    const backend = options.backendUrl
    const link = ({ providerIds: _, ...region }: RegionWithProviders) => region
    return {
      id,
      is_enabled,
      mode: options.mode,
      service_url: serviceBaseUrl(options),
      merchant_id: options.merchantId,
      verify_id: options.verifyId,
      urls: {
        callback: `${backend}/card-service/callback/{session_id}/`,
        return: `${backend}/card-service/return/{session_id}/`,
        pay_page: `${backend}/card-service/pay/{session_id}`,
        form_fields: `${backend}/store/card-service/sessions/{session_id}/form`,
        storefront_return: `${options.storefrontUrl}${options.returnPath}`,
        allowed_return_origins: options.allowedReturnOrigins,
      },
      auto_capture: options.autoCapture,
      windowed: options.windowed,
      redirect_on_failure: options.redirectOnFailure,
      regions_enabled: regions
        .filter((r) => r.providerIds.includes(id))
        .map(link),
      regions_not_enabled: regions
        .filter((r) => !r.providerIds.includes(id))
        .map(link),
    }
  })
}

type RegionWithProviders = RegionLink & { providerIds: string[] }

async function regionsWithProviders(
  container: MedusaContainer
): Promise<RegionWithProviders[]> {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const { data } = await query.graph({
    entity: "region",
    fields: [
      "id",
      "name",
      "currency_code",
      "countries.iso_2",
      "payment_providers.id",
    ],
  })
  return (data as any[])
    .map((region) => ({
      id: region.id as string,
      name: region.name as string,
      currency_code: region.currency_code as string,
      countries: ((region.countries ?? []) as { iso_2: string }[]).map(
        (c) => c.iso_2
      ),
      admin_path: `/settings/regions/${region.id}`,
      providerIds: (
        (region.payment_providers ?? []) as ({ id: string } | null)[]
      ).flatMap((p) => (p ? [p.id] : [])),
    }))
    .sort((a, b) => a.name.localeCompare(b.name))
}
