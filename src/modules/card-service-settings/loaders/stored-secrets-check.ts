import type { LoaderOptions } from "@medusajs/framework/types"
import { openStoredSecrets, type StoredSecrets } from "../stored-secrets"

/**
 * At boot: secrets the admin stored must open with CARD_SERVICE_SETTINGS_KEY,
 * or the server stops saying what to set (stored-secrets.ts). Before the
 * first migration the table does not exist yet: nothing is stored then.
 */
export default async function storedSecretsCheck({ container }: LoaderOptions) {
  const manager = container.resolve("manager") as {
    getConnection(): { execute(sql: string): Promise<{ secrets: StoredSecrets }[]> }
  }
  let rows: { secrets: StoredSecrets }[]
  try {
    rows = await manager
      .getConnection()
      .execute(`select "secrets" from "card_service_settings" where "deleted_at" is null`)
  } catch (error) {
    if ((error as { code?: string }).code === "42P01") return
    if (/does not exist/.test(String((error as Error).message))) return
    throw error
  }
  for (const row of rows) openStoredSecrets(row.secrets)
}
