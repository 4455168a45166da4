import type {
  AuthenticatedMedusaRequest,
  MedusaResponse,
} from "@medusajs/framework/http"
import { settingsModule } from "../../admin-settings-state"
import type { SettingsChangeEntry, SettingsChangesResponse } from "../../response-types"

/**
 * GET /admin/card-service/settings/changes - the audit trail of the admin's
 * settings, newest first (the last 50): who changed which setting, when,
 * from what to what; for a secret only that it changed.
 */
export async function GET(
  req: AuthenticatedMedusaRequest,
  res: MedusaResponse
) {
  const module = settingsModule(req.scope)
  const rows = module ? await module.recentChanges() : []
  const changes = rows.map(
    (row: any): SettingsChangeEntry => ({
      id: row.id,
      setting: row.setting,
      secret: row.secret,
      old_value: row.secret ? null : row.old_value,
      new_value: row.secret ? null : row.new_value,
      actor_type: row.actor_type,
      actor_id: row.actor_id,
      actor_email: row.actor_email,
      created_at: new Date(row.created_at).toISOString(),
    })
  )
  res.setHeader("Cache-Control", "no-store")
  res.json({ changes } satisfies SettingsChangesResponse)
}
