"use server"

import { HttpTypes } from "@medusajs/types"
import { sdk } from "@lib/config"

export async function listCartPaymentMethods(
  regionId: string
): Promise<HttpTypes.StorePaymentProvider[]> {
  const { payment_providers } = await sdk.store.payment.listPaymentProviders({
    region_id: regionId,
  })
  return [...payment_providers].sort((a, b) => a.id.localeCompare(b.id))
}
