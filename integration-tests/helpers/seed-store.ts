import {
  createApiKeysWorkflow,
  createInventoryLevelsWorkflow,
  createProductsWorkflow,
  createRegionsWorkflow,
  createSalesChannelsWorkflow,
  linkSalesChannelsToApiKeyWorkflow,
} from "@medusajs/core-flows"
import type { MedusaContainer } from "@medusajs/framework/types"
import { seedShipping } from "../../scripts/lib/seed-shipping"

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
 * shipping option (seedShipping, shared with the demo), and one product,
 * through Medusa's own workflows, as the admin would.
 */
export async function seedStore(
  container: MedusaContainer,
  {
    currencyCode = "eur",
    countryCode = "de",
    price = 25,
    shippingPrice = 5,
    providers = [CARD_SERVICE_PROVIDER_ID],
    stocked,
  }: {
    currencyCode?: string
    countryCode?: string
    price?: number
    shippingPrice?: number
    providers?: string[]
    /** Manage the product's inventory with this many in stock (an order reserves them). */
    stocked?: number
  } = {}
): Promise<SeededStore> {
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

  const shipping = await seedShipping(container, {
    salesChannelId: salesChannel.id,
    regionId: region.id,
    currencyCode,
    countries: [countryCode],
    price: shippingPrice,
    name: "Warehouse",
    address: {
      address_1: "Main street 1",
      city: "Berlin",
      country_code: countryCode.toUpperCase(),
    },
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
          shipping_profile_id: shipping.profileId,
          options: [{ title: "Size", values: ["M"] }],
          variants: [
            {
              title: "M",
              sku: `TSHIRT-M-${currencyCode.toUpperCase()}`,
              options: { Size: "M" },
              manage_inventory: stocked !== undefined,
              prices: [{ currency_code: currencyCode, amount: price }],
            },
          ],
          sales_channels: [{ id: salesChannel.id }],
        },
      ],
    },
  })

  if (stocked !== undefined) {
    const query = container.resolve("query")
    const { data: variants } = await query.graph({
      entity: "product_variant",
      fields: ["inventory_items.inventory_item_id"],
      filters: { id: product.variants[0].id },
    })
    await createInventoryLevelsWorkflow(container).run({
      input: {
        inventory_levels: [
          {
            inventory_item_id: variants[0].inventory_items[0].inventory_item_id,
            location_id: shipping.locationId,
            stocked_quantity: stocked,
          },
        ],
      },
    })
  }

  return {
    regionId: region.id,
    salesChannelId: salesChannel.id,
    publishableKey: apiKey.token,
    variantId: product.variants[0].id,
    shippingOptionId: shipping.shippingOptionId,
    currencyCode,
    countryCode,
  }
}
