import type { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import { cardServiceProviders } from "../api/admin/card-service/settings-view"
import { CARD_SERVICE_SETTINGS_MODULE } from "../modules/card-service-settings"
import { SETTINGS_UPDATED_EVENT } from "../modules/card-service-settings/events"
import type CardServiceSettingsModuleService from "../modules/card-service-settings/service"

/**
 * The admin saved card-service settings: drop this instance's cached row and
 * rebuild its providers (new client, new verification-code cache) now,
 * rather than on the next payment.
 */
export default async function cardServiceSettingsUpdated({ container }: SubscriberArgs<unknown>) {
  if (!container.hasRegistration(CARD_SERVICE_SETTINGS_MODULE)) return
  container.resolve<CardServiceSettingsModuleService>(CARD_SERVICE_SETTINGS_MODULE).invalidate()
  // cardServiceProviders refreshes each provider it finds.
  await cardServiceProviders(container)
}

export const config: SubscriberConfig = { event: SETTINGS_UPDATED_EVENT }
