import type { StoredSettingValues } from "./admin-settings"

/** What the admin stored, with a revision that changes whenever it does. */
export type StoredSettingsSnapshot = {
  revision: string
  values: StoredSettingValues
}

/** Where the provider reads the admin's settings (the card-service-settings module). */
export interface CardServiceSettingsSource {
  current(): Promise<StoredSettingsSnapshot>
}

/**
 * Medusa builds payment providers in the payment module's own container,
 * which cannot resolve another module, so the settings module publishes its
 * reader here when it starts. A global symbol rather than a module variable:
 * the payment module and the plugin's module may load this file through
 * different module registries (jest, ts-node), as provider-lookup.ts notes.
 */
const SOURCE_KEY = Symbol.for("medusa-payment-card-service.settings-source")

type WithSource = { [SOURCE_KEY]?: CardServiceSettingsSource }

export function publishSettingsSource(source: CardServiceSettingsSource): void {
  ;(globalThis as WithSource)[SOURCE_KEY] = source
}

/** The published reader, or undefined when the store did not register the module. */
export function settingsSource(): CardServiceSettingsSource | undefined {
  return (globalThis as WithSource)[SOURCE_KEY]
}
