import {
  createShippingOptionsWorkflow,
  createShippingProfilesWorkflow,
  createStockLocationsWorkflow,
  linkSalesChannelsToStockLocationWorkflow,
} from "@medusajs/core-flows"
import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"

export type SeedShippingInput = {
  salesChannelId: string
  regionId: string
  currencyCode: string
  /** ISO 3166-1 alpha-2, lower case, as Medusa's regions keep them. */
  countries: string[]
  /** Flat price of the one shipping option, in major units. */
  price: number
  /** Name of the stock location; the fulfillment set and zone are named after it. */
  name: string
  address: { address_1: string; city: string; country_code: string }
}

export type SeededShipping = {
  locationId: string
  profileId: string
  shippingOptionId: string
}

/**
 * What a store needs before a cart can be completed with something to ship:
 * a stock location serving the sales channel, a default shipping profile,
 * a fulfillment set whose zone covers `countries`, and one flat-rate option
 * through Medusa's manual fulfillment provider. Shared by the integration
 * tests' store (integration-tests/helpers/seed-store.ts) and the demo's
 * (scripts/lib/demo-seed.ts); both go through Medusa's own workflows, as the
 * admin would.
 */
export async function seedShipping(
  container: MedusaContainer,
  input: SeedShippingInput
): Promise<SeededShipping> {
  const link = container.resolve(ContainerRegistrationKeys.LINK)
  const fulfillment = container.resolve(Modules.FULFILLMENT)

  const {
    result: [location],
  } = await createStockLocationsWorkflow(container).run({
    input: { locations: [{ name: input.name, address: input.address }] },
  })
  await linkSalesChannelsToStockLocationWorkflow(container).run({
    input: { id: location.id, add: [input.salesChannelId] },
  })
  await link.create({
    [Modules.STOCK_LOCATION]: { stock_location_id: location.id },
    [Modules.FULFILLMENT]: { fulfillment_provider_id: "manual_manual" },
  })

  const {
    result: [profile],
  } = await createShippingProfilesWorkflow(container).run({
    input: { data: [{ name: input.name, type: "default" }] },
  })
  const fulfillmentSet = await fulfillment.createFulfillmentSets({
    name: `${input.name} delivery`,
    type: "shipping",
    service_zones: [
      {
        name: input.name,
        geo_zones: input.countries.map((country_code) => ({
          country_code,
          type: "country" as const,
        })),
      },
    ],
  })
  await link.create({
    [Modules.STOCK_LOCATION]: { stock_location_id: location.id },
    [Modules.FULFILLMENT]: { fulfillment_set_id: fulfillmentSet.id },
  })

  const {
    result: [shippingOption],
  } = await createShippingOptionsWorkflow(container).run({
    input: [
      {
        name: "Standard shipping",
        price_type: "flat",
        provider_id: "manual_manual",
        service_zone_id: fulfillmentSet.service_zones[0].id,
        shipping_profile_id: profile.id,
        type: { label: "Standard", description: "2-3 days", code: "standard" },
        prices: [
          { currency_code: input.currencyCode, amount: input.price },
          { region_id: input.regionId, amount: input.price },
        ],
        rules: [
          { attribute: "enabled_in_store", value: "true", operator: "eq" },
          { attribute: "is_return", value: "false", operator: "eq" },
        ],
      },
    ],
  })

  return {
    locationId: location.id,
    profileId: profile.id,
    shippingOptionId: shippingOption.id,
  }
}
