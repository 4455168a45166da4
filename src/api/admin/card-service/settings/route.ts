import type {
  AuthenticatedMedusaRequest,
  MedusaResponse,
} from "@medusajs/framework/http"
import type { MedusaContainer } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import type { SettingsActor } from "../../../../modules/card-service-settings/service"
import { adminSettingsState } from "../admin-settings-state"
import type { SettingsResponse } from "../response-types"
import { saveAdminSettings } from "../settings-save"
import { cardServiceProviders, providerSettings } from "../settings-view"
import type { AdminCardServiceSettingsSaveType } from "../validators"

/**
 * GET /admin/card-service/settings - how each configured card-service
 * provider is set up: the address in use, merchant and verify ids, the URLs
 * it hands out, its switches and the regions that offer it, and the admin
 * form's state (which options the admin set, which code locks). No secret
 * is in the answer (see settings-view.ts, admin-settings-state.ts).
 */
export async function GET(
  req: AuthenticatedMedusaRequest,
  res: MedusaResponse
) {
  res.setHeader("Cache-Control", "no-store")
  res.json(await settingsAnswer(req.scope))
}

/**
 * POST /admin/card-service/settings - saves the admin's settings after the
 * checks of settings-save.ts; answers as GET does, with the new settings in
 * force. A refusal is a 400 saying why, with nothing saved.
 */
export async function POST(
  req: AuthenticatedMedusaRequest<AdminCardServiceSettingsSaveType>,
  res: MedusaResponse
) {
  const { settings, confirm_live } = req.validatedBody
  await saveAdminSettings(req.scope, settings, {
    confirmLive: confirm_live === true,
    actor: await actorOf(req),
  })
  res.setHeader("Cache-Control", "no-store")
  res.json(await settingsAnswer(req.scope))
}

async function settingsAnswer(container: MedusaContainer): Promise<SettingsResponse> {
  const providers = await providerSettings(container)
  const instances = (await cardServiceProviders(container)).map((p) => p.provider)
  return {
    providers,
    admin_settings: await adminSettingsState(container, instances),
  }
}

/** Who is saving, for the audit trail: the admin user (with e-mail) or the API key. */
async function actorOf(req: AuthenticatedMedusaRequest): Promise<SettingsActor> {
  const { actor_id, actor_type } = req.auth_context ?? {}
  let email: string | null = null
  if (actor_type === "user" && actor_id) {
    const users = req.scope.resolve(Modules.USER) as {
      retrieveUser(id: string): Promise<{ email: string }>
    }
    email = await users
      .retrieveUser(actor_id)
      .then((user) => user.email)
      .catch(() => null)
  }
  return {
    actor_type: actor_type ?? null,
    actor_id: actor_id ?? null,
    actor_email: email,
  }
}
