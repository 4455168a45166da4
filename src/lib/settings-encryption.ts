import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto"

/** The environment variable that holds the key of stored admin secrets. */
export const SETTINGS_KEY_ENV = "CARD_SERVICE_SETTINGS_KEY"

/** A secret as the database holds it: AES-256-GCM, never the clear text. */
export type SealedSecret = {
  alg: "aes-256-gcm"
  /** 96-bit nonce, fresh for every write (GCM must never reuse one under a key). */
  iv: string
  /** The 128-bit authentication tag: a changed byte or another key fails to open. */
  tag: string
  data: string
}

const KEY_BYTES = 32
const IV_BYTES = 12

/**
 * The key from the environment: 32 bytes as 64 hex characters or as base64
 * (`openssl rand -base64 32`). Missing or malformed keys are named with what
 * to set, never echoed.
 */
export function settingsKeyFromEnv(
  env: NodeJS.ProcessEnv = process.env
): Buffer | null {
  const raw = (env[SETTINGS_KEY_ENV] ?? "").trim()
  if (!raw) return null
  const key = /^[0-9a-fA-F]{64}$/.test(raw)
    ? Buffer.from(raw, "hex")
    : Buffer.from(raw, "base64")
  if (key.length !== KEY_BYTES) {
    throw new Error(
      `${SETTINGS_KEY_ENV} must be 32 random bytes, as 64 hex characters or base64 (openssl rand -base64 32)`
    )
  }
  return key
}

export function missingKeyMessage(what: string): string {
  return (
    `${what}: ${SETTINGS_KEY_ENV} is not set. Set it to the 32-byte key the secrets were saved with ` +
    "(64 hex characters or base64, for example from openssl rand -base64 32) in the server's environment, " +
    "or clear the stored secret in the admin."
  )
}

/**
 * Seals a secret under the key. `label` (the setting's name) is bound in as
 * additional data, so a sealed value copied to another field does not open.
 */
export function sealSecret(key: Buffer, label: string, clear: string): SealedSecret {
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv("aes-256-gcm", key, iv)
  cipher.setAAD(Buffer.from(label, "utf8"))
  const data = Buffer.concat([cipher.update(clear, "utf8"), cipher.final()])
  return {
    alg: "aes-256-gcm",
    iv: iv.toString("base64"),
    tag: cipher.getAuthTag().toString("base64"),
    data: data.toString("base64"),
  }
}

/** Opens a sealed secret; throws without saying anything about its content. */
export function openSecret(key: Buffer, label: string, sealed: SealedSecret): string {
  try {
    const decipher = createDecipheriv(
      "aes-256-gcm",
      key,
      Buffer.from(sealed.iv, "base64")
    )
    decipher.setAAD(Buffer.from(label, "utf8"))
    decipher.setAuthTag(Buffer.from(sealed.tag, "base64"))
    return Buffer.concat([
      decipher.update(Buffer.from(sealed.data, "base64")),
      decipher.final(),
    ]).toString("utf8")
  } catch {
    throw new Error(
      `The stored ${label} does not open with ${SETTINGS_KEY_ENV}: it was saved under another key. ` +
        "Set the key it was saved with, or enter the secret again in the admin."
    )
  }
}
