import type { MedusaContainer } from "@medusajs/framework/types"
import { MedusaError, Modules } from "@medusajs/framework/utils"
import { CardServiceClient } from "../../../lib/card-service-client"
import { CardServiceError } from "../../../lib/card-service-error"
import { SETTINGS_UPDATED_EVENT } from "../../../modules/card-service-settings/events"
import type {
  SettingsActor,
  SettingsChanges,
} from "../../../modules/card-service-settings/service"
import {
  CONNECTION_SETTING_KEYS,
  mergeAdminSettings,
  SECRET_SETTING_KEYS,
  type AdminSettingKey,
} from "../../../providers/card-service/admin-settings"
import {
  CardServiceOptionsSchema,
  parseOptions,
  serviceBaseUrl,
  type CardServiceOptions,
} from "../../../providers/card-service/options"
import { lockedByCode, settingsModule } from "./admin-settings-state"
import { cardServiceProviders } from "./settings-view"

const refuse = (message: string) =>
  new MedusaError(MedusaError.Types.INVALID_DATA, message)

/**
 * Saves the admin's settings, in the order the issue asks for: nothing
 * locked in code, the result valid under the options schema, live mode
 * confirmed, new credentials or addresses accepted by the service (the call
 * "Test connection" makes); only then the row, the trail and the event that
 * makes every instance drop its cached settings. Each refusal says why and
 * stores nothing.
 */
export async function saveAdminSettings(
  container: MedusaContainer,
  changes: SettingsChanges,
  { confirmLive, actor }: { confirmLive: boolean; actor: SettingsActor }
): Promise<void> {
  const module = settingsModule(container)
  if (!module) {
    throw new MedusaError(
      MedusaError.Types.NOT_ALLOWED,
      "The card-service settings module is not registered: settings come from medusa-config.ts only (docs/admin.md)."
    )
  }
  const providers = (await cardServiceProviders(container)).map((p) => p.provider)
  if (!providers.length) {
    throw new MedusaError(MedusaError.Types.NOT_FOUND, "No card-service provider is configured")
  }
  const names = Object.keys(changes) as AdminSettingKey[]
  const locked = lockedByCode(providers)
  const lockedNames = names.filter((name) => locked.has(name))
  if (lockedNames.length) {
    throw refuse(
      `${lockedNames.join(", ")} ${lockedNames.length > 1 ? "are" : "is"} set in code (lockedSettings in medusa-config.ts) and cannot be changed here.`
    )
  }

  const stored = (await module.current()).values
  const candidate: Record<string, unknown> = { ...stored }
  for (const name of names) {
    if (changes[name] === null) delete candidate[name]
    else candidate[name] = changes[name]
  }
  const next = providers.map((provider) => {
    const merged = mergeAdminSettings({ ...provider.codeOptions }, candidate)
    const result = CardServiceOptionsSchema.safeParse(merged)
    if (!result.success) {
      // Values are never echoed: a secret must not come back in an answer.
      const lines = result.error.issues.map(
        (issue) => `${issue.path.join(".") || "(settings)"}: ${issue.message}`
      )
      throw refuse(`These settings are invalid: ${lines.join("; ")}. Nothing was saved.`)
    }
    return { provider, options: parseOptions(merged) }
  })

  const goingLive = next.some(
    ({ provider, options }) => options.mode === "live" && provider.options.mode !== "live"
  )
  if (goingLive && !confirmLive) {
    throw refuse(
      "Switching to live mode takes real payments: confirm it (confirm_live: true). Nothing was saved."
    )
  }

  if (names.some((name) => CONNECTION_SETTING_KEYS.includes(name))) {
    for (const { options } of next) {
      await tryConnection(options)
    }
  }

  const effective: SettingsChanges = {}
  for (const name of names) {
    // A secret sent empty leaves the stored one as it is (the form's blank field).
    if (SECRET_SETTING_KEYS.includes(name) && changes[name] === "") continue
    effective[name] = changes[name]
  }
  try {
    await module.saveSettings(effective, actor)
  } catch (error) {
    // No key to seal a secret with: say what to set (stored-secrets.ts).
    if (error instanceof Error && /CARD_SERVICE_SETTINGS_KEY/.test(error.message)) {
      throw refuse(error.message)
    }
    throw error
  }
  const eventBus = container.resolve(Modules.EVENT_BUS) as {
    emit(message: { name: string; data: unknown }): Promise<void>
  }
  await eventBus.emit({ name: SETTINGS_UPDATED_EVENT, data: {} })
  // This instance need not wait for the event: its providers pick the new
  // row up now.
  await cardServiceProviders(container)
}

/** The "Test connection" call with the new settings: a fresh verification code, one try. */
async function tryConnection(options: CardServiceOptions): Promise<void> {
  const client = new CardServiceClient({
    baseUrl: serviceBaseUrl(options),
    clientCode: options.clientCode,
    clientSecret: options.clientSecret,
    verifyId: options.verifyId,
    merchantId: options.merchantId,
    timeouts: options.timeouts,
  })
  try {
    await client.testConnection()
  } catch (error) {
    if (!CardServiceError.is(error)) throw error
    throw refuse(`The card service at ${serviceBaseUrl(options)} ${refusalOf(error)}. Nothing was saved.`)
  } finally {
    await client.close().catch(() => undefined)
  }
}

/**
 * What the service's answer to the connection test means for the owner, in
 * one sentence: the client's own message ("card service authorize: ... [HTTP
 * 401]") repeated what this one says, and the admin added its own status.
 */
export function refusalOf(error: CardServiceError): string {
  const status = error.httpStatus !== undefined ? ` (it answered HTTP ${error.httpStatus})` : ""
  switch (error.category) {
    case "credentials":
      return `refused the client code and secret${status}`
    case "service_error":
    case "timeout":
      return `could not be reached${status}`
    case "invalid_response":
      return `answered in a way the card-service interface does not describe${status}; check the address`
    default:
      return `refused these settings${status}`
  }
}
