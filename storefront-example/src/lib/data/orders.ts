"use server"

import { HttpTypes } from "@medusajs/types"
import { sdk } from "@lib/config"
import { getCacheOptions } from "./cookies"

/** GET /store/orders/:id answers guests too; cached under the orders tag. */
export async function retrieveOrder(
  id: string
): Promise<HttpTypes.StoreOrder | null> {
  return sdk.client
    .fetch<HttpTypes.StoreOrderResponse>(`/store/orders/${id}`, {
      query: {
        fields:
          "id,display_id,status,email,created_at,total,currency_code,payment_status,*items,*shipping_address,*payment_collections.payments",
      },
      next: await getCacheOptions("orders"),
      cache: "force-cache",
    })
    .then(({ order }) => order)
    .catch(() => null)
}
