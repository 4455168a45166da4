import { Module } from "@medusajs/framework/utils"
import CardServiceActivityModuleService from "./service"

/** The container key of the activity module's service. */
export const CARD_SERVICE_ACTIVITY_MODULE = "cardServiceActivity"

export default Module(CARD_SERVICE_ACTIVITY_MODULE, {
  service: CardServiceActivityModuleService,
})
