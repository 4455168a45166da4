"use server"

import { HttpTypes } from "@medusajs/types"
import { sdk } from "@lib/config"

/** The region whose countries include `countryCode`, or null. */
export async function getRegion(
  countryCode: string
): Promise<HttpTypes.StoreRegion | null> {
  const { regions } = await sdk.client.fetch<{
    regions: HttpTypes.StoreRegion[]
  }>("/store/regions", {
    query: { fields: "id,name,currency_code,*countries" },
    next: { revalidate: 60 },
    cache: "force-cache",
  })
  return (
    regions.find((region) =>
      region.countries?.some((country) => country.iso_2 === countryCode)
    ) ?? null
  )
}
