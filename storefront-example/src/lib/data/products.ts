"use server"

import { HttpTypes } from "@medusajs/types"
import { sdk } from "@lib/config"

export async function listProducts(
  regionId: string
): Promise<HttpTypes.StoreProduct[]> {
  const { products } = await sdk.client.fetch<{
    products: HttpTypes.StoreProduct[]
  }>("/store/products", {
    query: {
      region_id: regionId,
      fields: "id,title,handle,description,*variants.calculated_price",
      limit: 12,
    },
    cache: "no-store",
  })
  return products
}
