import {
  createApiKeysWorkflow,
  createProductsWorkflow,
  createRegionsWorkflow,
  createSalesChannelsWorkflow,
  createShippingOptionsWorkflow,
  createShippingProfilesWorkflow,
  createStockLocationsWorkflow,
  linkSalesChannelsToApiKeyWorkflow,
  linkSalesChannelsToStockLocationWorkflow,
} from "@medusajs/core-flows"
import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"

export const CARD_SERVICE_PROVIDER_ID = "pp_card-service_card-service"

export type SeededStore = {
  regionId: string
  salesChannelId: string
  publishableKey: string
  variantId: string
  shippingOptionId: string
  currencyCode: string
  countryCode: string
}

/**
 * A minimal store that can take an order: one region paying with the card
 * service, a sales channel with a publishable key, a stock location with a
 * shipping option, and one product. Used by the integration tests and the
 * demo, through Medusa's own workflows, as the admin would.
 */
export async function seedStore(
  container: MedusaContainer,
  {
    currencyCode = "eur",
    countryCode = "de",
    price = 25,
    shippingPrice = 5,
    providers = [CARD_SERVICE_PROVIDER_ID],
  }: {
    currencyCode?: string
    countryCode?: string
    price?: number
    shippingPrice?: number
    providers?: string[]
  } = {}
): Promise<SeededStore> {
  const link = container.resolve(ContainerRegistrationKeys.LINK)
  const fulfillment = container.resolve(Modules.FULFILLMENT)

  const {
    result: [salesChannel],
  } = await createSalesChannelsWorkflow(container).run({
    input: { salesChannelsData: [{ name: "Webshop" }] },
  })

  const {
    result: [apiKey],
  } = await createApiKeysWorkflow(container).run({
    input: {
      api_keys: [{ title: "Webshop", type: "publishable", created_by: "seed" }],
    },
  })
  await linkSalesChannelsToApiKeyWorkflow(container).run({
    input: { id: apiKey.id, add: [salesChannel.id] },
  })

  const {
    result: [region],
  } = await createRegionsWorkflow(container).run({
    input: {
      regions: [
        {
          name: `Region ${currencyCode.toUpperCase()}`,
          currency_code: currencyCode,
          countries: [countryCode],
          payment_providers: providers,
        },
      ],
    },
  })

  const {
    result: [location],
  } = await createStockLocationsWorkflow(container).run({
    input: {
      locations: [
        { name: "Warehouse", address: { address_1: "Main street 1", city: "Berlin", country_code: countryCode.toUpperCase() } },
      ],
    },
  })
  await linkSalesChannelsToStockLocationWorkflow(container).run({
    input: { id: location.id, add: [salesChannel.id] },
  })
  await link.create({
    [Modules.STOCK_LOCATION]: { stock_location_id: location.id },
    [Modules.FULFILLMENT]: { fulfillment_provider_id: "manual_manual" },
  })

  const {
    result: [profile],
  } = await createShippingProfilesWorkflow(container).run({
    input: { data: [{ name: "Default", type: "default" }] },
  })
  const fulfillmentSet = await fulfillment.createFulfillmentSets({
    name: "Warehouse delivery",
    type: "shipping",
    service_zones: [
      { name: "Zone", geo_zones: [{ country_code: countryCode, type: "country" }] },
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
          { currency_code: currencyCode, amount: shippingPrice },
          { region_id: region.id, amount: shippingPrice },
        ],
        rules: [
          { attribute: "enabled_in_store", value: "true", operator: "eq" },
          { attribute: "is_return", value: "false", operator: "eq" },
        ],
      },
    ],
  })

  const {
    result: [product],
  } = await createProductsWorkflow(container).run({
    input: {
      products: [
        {
          title: "Card Service T-Shirt",
          handle: `t-shirt-${currencyCode}`,
          status: "published",
          shipping_profile_id: profile.id,
          options: [{ title: "Size", values: ["M"] }],
          variants: [
            {
              title: "M",
              sku: `TSHIRT-M-${currencyCode.toUpperCase()}`,
              options: { Size: "M" },
              manage_inventory: false,
              prices: [{ currency_code: currencyCode, amount: price }],
            },
          ],
          sales_channels: [{ id: salesChannel.id }],
        },
      ],
    },
  })

  return {
    regionId: region.id,
    salesChannelId: salesChannel.id,
    publishableKey: apiKey.token,
    variantId: product.variants[0].id,
    shippingOptionId: shippingOption.id,
    currencyCode,
    countryCode,
  }
}
