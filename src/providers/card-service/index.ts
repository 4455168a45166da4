import { ModuleProvider, Modules } from "@medusajs/framework/utils"
import CardServiceProviderService from "./service"

export default ModuleProvider(Modules.PAYMENT, {
  services: [CardServiceProviderService],
})
