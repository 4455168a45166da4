import { model } from "@medusajs/framework/utils"

/**
 * The store owner's settings from the admin: one row for the store. `values`
 * holds the plain settings the admin changed (absent: medusa-config.ts
 * decides); `secrets` holds write-only ones sealed with AES-256-GCM
 * (src/lib/settings-encryption.ts), never in clear.
 */
export const CardServiceSettings = model.define("card_service_settings", {
  id: model.id({ prefix: "csset" }).primaryKey(),
  values: model.json().default({}),
  secrets: model.json().default({}),
})
