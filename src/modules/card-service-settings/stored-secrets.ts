import {
  missingKeyMessage,
  openSecret,
  sealSecret,
  settingsKeyFromEnv,
  type SealedSecret,
} from "../../lib/settings-encryption"

/** A sealed secret with when it was set, as the `secrets` column holds it. */
export type StoredSecret = SealedSecret & { set_at: string }
export type StoredSecrets = Record<string, StoredSecret>

/**
 * Opens every stored secret, or throws one message saying what to set.
 * The settings module's loader runs it at boot, so a server without the key
 * (or with another one) stops instead of paying with the medusa-config
 * credentials behind the store owner's back.
 */
export function openStoredSecrets(
  secrets: Record<string, StoredSecret | null> | null | undefined,
  env: NodeJS.ProcessEnv = process.env
): Record<string, string> {
  // A cleared secret stays as null (the module's saveSettings).
  const names = Object.keys(secrets ?? {}).filter((name) => secrets![name])
  if (!names.length) return {}
  const key = settingsKeyFromEnv(env)
  if (!key) {
    throw new Error(
      missingKeyMessage(
        `Card-service settings: the admin stored ${names.join(", ")}, which cannot be read`
      )
    )
  }
  return Object.fromEntries(
    names.map((name) => [name, openSecret(key, name, secrets![name]!)])
  )
}

/** Seals a secret for the `secrets` column; refuses without a key, naming it. */
export function storeSecret(
  name: string,
  clear: string,
  now: Date,
  env: NodeJS.ProcessEnv = process.env
): StoredSecret {
  const key = settingsKeyFromEnv(env)
  if (!key) {
    throw new Error(missingKeyMessage(`The ${name} cannot be stored`))
  }
  return { ...sealSecret(key, name, clear), set_at: now.toISOString() }
}
