import {
  createApiKeysWorkflow,
  createInventoryLevelsWorkflow,
  createProductsWorkflow,
  createRegionsWorkflow,
  createUsersWorkflow,
  linkSalesChannelsToApiKeyWorkflow,
  updateStoresWorkflow,
} from "@medusajs/core-flows"
import type { ExecArgs } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import fs from "node:fs"
import { seedShipping } from "./seed-shipping"

/**
 * Seeds the demo store, run by scripts/demo.js through `medusa exec` on the
 * first start (and again whenever the store lacks the demo's publishable
 * key). It goes through Medusa's own workflows, as the admin would, and writes
 * what the launcher needs (publishable key, region) to DEMO_SEED_OUTPUT.
 *
 * Idempotent: a store that already has the demo key is only read, so a second
 * run keeps the orders placed in the first.
 */
const PROVIDER_ID = "pp_card-service_card-service"
const KEY_TITLE = "Card service demo storefront"
const CURRENCY = "eur"
const COUNTRIES = ["de", "fr", "nl", "at", "be"]

export type DemoSeed = {
  publishableKey: string
  regionId: string
  salesChannelId: string
  productHandle: string
}

export default async function seedDemo({ container }: ExecArgs) {
  const output = process.env.DEMO_SEED_OUTPUT
  const adminEmail = process.env.DEMO_ADMIN_EMAIL
  const adminPassword = process.env.DEMO_ADMIN_PASSWORD
  if (!output || !adminEmail || !adminPassword) {
    throw new Error(
      "demo-seed runs from scripts/demo.js (DEMO_SEED_OUTPUT, DEMO_ADMIN_EMAIL, DEMO_ADMIN_PASSWORD)"
    )
  }
  const logger = container.resolve(ContainerRegistrationKeys.LOGGER)
  const seed = (await readSeed(container)) ?? (await seedStore(container))
  await ensureAdminUser(container, adminEmail, adminPassword)
  fs.writeFileSync(output, JSON.stringify(seed))
  logger.info(`demo-seed: store ready (region ${seed.regionId})`)
}

async function readSeed(
  container: ExecArgs["container"]
): Promise<DemoSeed | null> {
  const apiKeys = container.resolve(Modules.API_KEY)
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const key = (
    await apiKeys.listApiKeys({ title: KEY_TITLE, type: "publishable" })
  ).find((candidate) => !candidate.revoked_at)
  if (!key) return null
  const { data: regions } = await query.graph({
    entity: "region",
    fields: ["id", "payment_providers.id"],
    filters: { currency_code: CURRENCY },
  })
  const region = regions.find((r: any) =>
    (r.payment_providers ?? []).some((p: any) => p?.id === PROVIDER_ID)
  )
  const { data: links } = await query.graph({
    entity: "api_key",
    fields: ["id", "sales_channels.id"],
    filters: { id: key.id },
  })
  const salesChannelId = links[0]?.sales_channels?.[0]?.id
  if (!region || !salesChannelId) return null
  return {
    publishableKey: key.token,
    regionId: region.id,
    salesChannelId,
    productHandle: "card-service-mug",
  }
}

/**
 * DEMO_SEED_PROVIDERS: more providers for the region (comma-separated), so the
 * load benchmark can compare with pp_system_default on the same store.
 */
function extraProviders(): string[] {
  return (process.env.DEMO_SEED_PROVIDERS ?? "")
    .split(",")
    .map((id) => id.trim())
    .filter((id) => id && id !== PROVIDER_ID)
}

async function seedStore(container: ExecArgs["container"]): Promise<DemoSeed> {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const storeModule = container.resolve(Modules.STORE)

  // Medusa's loaders create the default store and sales channel on boot.
  const [store] = await storeModule.listStores()
  const salesChannelId = store.default_sales_channel_id as string

  const {
    result: [apiKey],
  } = await createApiKeysWorkflow(container).run({
    input: {
      api_keys: [{ title: KEY_TITLE, type: "publishable", created_by: "demo" }],
    },
  })
  await linkSalesChannelsToApiKeyWorkflow(container).run({
    input: { id: apiKey.id, add: [salesChannelId] },
  })

  const {
    result: [region],
  } = await createRegionsWorkflow(container).run({
    input: {
      regions: [
        {
          name: "Europe",
          currency_code: CURRENCY,
          countries: COUNTRIES,
          // The card service must be enabled on the region, or creating a
          // payment session answers 400 (README, "Troubleshooting").
          payment_providers: [PROVIDER_ID, ...extraProviders()],
        },
      ],
    },
  })

  await updateStoresWorkflow(container).run({
    input: {
      selector: { id: store.id },
      update: {
        supported_currencies: [{ currency_code: CURRENCY, is_default: true }],
        default_region_id: region.id,
      },
    },
  })

  const shipping = await seedShipping(container, {
    salesChannelId,
    regionId: region.id,
    currencyCode: CURRENCY,
    countries: COUNTRIES,
    price: 4.9,
    name: "Demo warehouse",
    address: {
      address_1: "Hauptstrasse 1",
      city: "Berlin",
      country_code: "DE",
    },
  })
  await updateStoresWorkflow(container).run({
    input: {
      selector: { id: store.id },
      update: { default_location_id: shipping.locationId },
    },
  })

  const {
    result: [product],
  } = await createProductsWorkflow(container).run({
    input: {
      products: [
        {
          title: "Card Service Mug",
          handle: "card-service-mug",
          description:
            "A mug for testing card payments. Holds 330 ml of coffee and one 3DS challenge.",
          status: "published",
          shipping_profile_id: shipping.profileId,
          options: [{ title: "Colour", values: ["White", "Black"] }],
          variants: ["White", "Black"].map((colour) => ({
            title: colour,
            sku: `MUG-${colour.toUpperCase()}`,
            options: { Colour: colour },
            // Inventory is managed, so an order reserves stock like a real shop's.
            manage_inventory: true,
            prices: [{ currency_code: CURRENCY, amount: 12.5 }],
          })),
          sales_channels: [{ id: salesChannelId }],
        },
      ],
    },
  })

  const products = [product, ...(await seedLoadProduct(container, shipping.profileId, salesChannelId))]
  const { data: variants } = await query.graph({
    entity: "product_variant",
    fields: ["id", "inventory_items.inventory_item_id"],
    filters: { product_id: products.map((p) => p.id) },
  })
  await createInventoryLevelsWorkflow(container).run({
    input: {
      inventory_levels: variants.flatMap((variant: any) =>
        (variant.inventory_items ?? []).map((item: any) => ({
          location_id: shipping.locationId,
          inventory_item_id: item.inventory_item_id,
          stocked_quantity: Number(process.env.DEMO_SEED_STOCK ?? 1000),
        }))
      ),
    },
  })

  return {
    publishableKey: apiKey.token,
    regionId: region.id,
    salesChannelId,
    productHandle: product.handle,
  }
}

/** The handle of the load benchmark's product (DEMO_SEED_LOAD_VARIANTS). */
export const LOAD_PRODUCT_HANDLE = "load-mug"

/**
 * For the load benchmark (scripts/lib/load-cluster.ts): DEMO_SEED_LOAD_VARIANTS
 * variants of one product, each with its own inventory item, so concurrent
 * shoppers buy different items. Medusa's completeCartWorkflow reserves stock
 * under a lock on the inventory item (reserveInventoryStep, the locking
 * module's default wait of 5 s with Redis): a hundred carts of one variant
 * queue on one lock, and the ones that wait longer are answered 409. That is
 * a shop with one product, not the payment path under test.
 */
async function seedLoadProduct(
  container: ExecArgs["container"],
  shippingProfileId: string,
  salesChannelId: string
): Promise<{ id: string }[]> {
  const count = Number(process.env.DEMO_SEED_LOAD_VARIANTS ?? 0)
  if (!Number.isInteger(count) || count < 1) return []
  const numbers = Array.from({ length: count }, (_, i) => `No. ${i + 1}`)
  const { result } = await createProductsWorkflow(container).run({
    input: {
      products: [
        {
          title: "Load Mug",
          handle: LOAD_PRODUCT_HANDLE,
          status: "published",
          shipping_profile_id: shippingProfileId,
          options: [{ title: "Number", values: numbers }],
          variants: numbers.map((number, i) => ({
            title: number,
            sku: `LOAD-MUG-${i + 1}`,
            options: { Number: number },
            manage_inventory: true,
            prices: [{ currency_code: CURRENCY, amount: 12.5 }],
          })),
          sales_channels: [{ id: salesChannelId }],
        },
      ],
    },
  })
  return result
}

/** What `npx medusa user -e -p` does, done here to save a second boot. */
export async function ensureAdminUser(
  container: ExecArgs["container"],
  email: string,
  password: string
) {
  const users = container.resolve(Modules.USER)
  const [existing] = await users.listUsers({ email })
  if (existing) return
  const auth = container.resolve(Modules.AUTH)
  const {
    result: [user],
  } = await createUsersWorkflow(container).run({
    input: { users: [{ email }] },
  })
  const { authIdentity, error } = await auth.register("emailpass", {
    body: { email, password },
  })
  if (error || !authIdentity) {
    throw new Error(
      `could not create the admin login: ${error ?? "no identity"}`
    )
  }
  await auth.updateAuthIdentities({
    id: authIdentity.id,
    app_metadata: { user_id: user.id },
  })
}
