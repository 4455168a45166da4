"use server"

import { HttpTypes } from "@medusajs/types"
import { sdk } from "@lib/config"

export async function listCartShippingOptions(
  cartId: string
): Promise<HttpTypes.StoreCartShippingOption[]> {
  const { shipping_options } = await sdk.store.fulfillment.listCartOptions({
    cart_id: cartId,
  })
  return shipping_options
}
