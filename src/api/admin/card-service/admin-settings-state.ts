import type { MedusaContainer } from "@medusajs/framework/types"
import { settingsKeyFromEnv } from "../../../lib/settings-encryption"
import { CARD_SERVICE_SETTINGS_MODULE } from "../../../modules/card-service-settings"
import type CardServiceSettingsModuleService from "../../../modules/card-service-settings/service"
import {
  ADMIN_SETTING_KEYS,
  lockedKeys,
  SECRET_SETTING_KEYS,
  type AdminSettingKey,
} from "../../../providers/card-service/admin-settings"
import type CardServiceProviderService from "../../../providers/card-service/service"
import type { AdminSettingField, AdminSettingsState } from "./response-types"

export function settingsModule(
  container: MedusaContainer
): CardServiceSettingsModuleService | null {
  return container.hasRegistration(CARD_SERVICE_SETTINGS_MODULE)
    ? container.resolve<CardServiceSettingsModuleService>(CARD_SERVICE_SETTINGS_MODULE)
    : null
}

/** Locked by any configured provider: the one stored row applies to all of them. */
export function lockedByCode(providers: CardServiceProviderService[]): Set<AdminSettingKey> {
  return new Set(providers.flatMap((provider) => lockedKeys({ ...provider.codeOptions })))
}

/**
 * The form's state: for each editable option the value in force (from the
 * first provider; the admin's row applies to every card-service provider),
 * whether the admin or medusa-config.ts set it, and whether code locks it.
 * Secrets carry no value, only when the admin stored them.
 */
export async function adminSettingsState(
  container: MedusaContainer,
  providers: CardServiceProviderService[]
): Promise<AdminSettingsState> {
  const module = settingsModule(container)
  const stored = module ? await module.view() : null
  const locked = lockedByCode(providers)
  const options = providers[0]?.options as Record<string, unknown> | undefined
  const fields = ADMIN_SETTING_KEYS.map((name): AdminSettingField => {
    const secret = SECRET_SETTING_KEYS.includes(name)
    const setAt = stored?.secrets[name]?.set_at ?? null
    const fromAdmin =
      !locked.has(name) && (secret ? setAt !== null : stored ? name in stored.values : false)
    const value = options?.[name]
    return {
      name,
      value: secret ? null : ((value ?? null) as AdminSettingField["value"]),
      source: fromAdmin ? "admin" : "code",
      locked: locked.has(name),
      secret,
      set_at: fromAdmin ? setAt : null,
    }
  })
  let keyUsable = false
  try {
    keyUsable = settingsKeyFromEnv() !== null
  } catch {
    keyUsable = false
  }
  return {
    editable: module !== null,
    secrets_storable: keyUsable,
    fields,
    updated_at: stored?.updated_at ?? null,
  }
}
