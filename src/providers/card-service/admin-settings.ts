import { ADMIN_SETTING_KEYS, CardServiceOptionsSchema } from "./options"

export { ADMIN_SETTING_KEYS }

export type AdminSettingKey = (typeof ADMIN_SETTING_KEYS)[number]

/**
 * Write-only settings: stored sealed (settings-encryption.ts), never
 * answered, "changed" in the audit trail. The client code too: the admin
 * API has never sent it to a browser (settings-view.ts), and it is half of
 * the credential.
 */
export const SECRET_SETTING_KEYS: readonly AdminSettingKey[] = ["clientCode", "clientSecret"]

/**
 * A change to any of these reaches the service differently: saving them
 * first asks the service for a verification code (as "Test connection").
 */
export const CONNECTION_SETTING_KEYS: readonly AdminSettingKey[] = ADMIN_SETTING_KEYS.filter(
  (key) => !["autoCapture", "windowed", "redirectOnFailure", "allowedReturnOrigins"].includes(key)
)

/** Stored admin values, in the options' own input form (strings, booleans, lists). */
export type StoredSettingValues = Partial<Record<AdminSettingKey, unknown>>

export function isAdminSettingKey(key: string): key is AdminSettingKey {
  return (ADMIN_SETTING_KEYS as readonly string[]).includes(key)
}

/** The keys medusa-config.ts locks (`lockedSettings`), read from the raw options. */
export function lockedKeys(codeOptions: Record<string, unknown>): AdminSettingKey[] {
  const parsed = CardServiceOptionsSchema.shape.lockedSettings.safeParse(
    codeOptions.lockedSettings
  )
  return parsed.success ? parsed.data : []
}

/**
 * The options in force: medusa-config.ts gives the defaults, stored admin
 * values override them, except where medusa-config.ts locks the option.
 * The result is still raw input: the one options schema parses it.
 */
export function mergeAdminSettings(
  codeOptions: Record<string, unknown>,
  stored: StoredSettingValues | null | undefined
): Record<string, unknown> {
  const locked = new Set(lockedKeys(codeOptions))
  const merged: Record<string, unknown> = { ...codeOptions }
  for (const key of ADMIN_SETTING_KEYS) {
    if (locked.has(key) || !stored || !(key in stored)) continue
    const value = stored[key]
    if (value === undefined || value === null) continue
    merged[key] = value
  }
  return merged
}
