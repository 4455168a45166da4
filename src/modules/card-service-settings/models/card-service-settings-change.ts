import { model } from "@medusajs/framework/utils"

/**
 * The audit trail: who changed which setting, when (created_at), from what
 * to what. For a secret, `old_value` and `new_value` stay null and
 * `secret` is true: the trail says it changed, never what it is.
 */
export const CardServiceSettingsChange = model.define(
  "card_service_settings_change",
  {
    id: model.id({ prefix: "cssetchg" }).primaryKey(),
    setting: model.text(),
    secret: model.boolean().default(false),
    old_value: model.text().nullable(),
    new_value: model.text().nullable(),
    actor_type: model.text().nullable(),
    actor_id: model.text().nullable(),
    actor_email: model.text().nullable(),
  }
)
