import { Module } from "@medusajs/framework/utils"
import storedSecretsCheck from "./loaders/stored-secrets-check"
import CardServiceSettingsModuleService from "./service"

/** The container key of the settings module's service. */
export const CARD_SERVICE_SETTINGS_MODULE = "cardServiceSettings"

export default Module(CARD_SERVICE_SETTINGS_MODULE, {
  service: CardServiceSettingsModuleService,
  loaders: [storedSecretsCheck],
})
