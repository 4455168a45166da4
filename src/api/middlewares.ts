import {
  defineMiddlewares,
  validateAndTransformBody,
} from "@medusajs/framework/http"
import {
  AdminCardServiceTestConnection,
  AdminCardServiceVoid,
} from "./admin/card-service/validators"

/**
 * The plugin's route middlewares: one flat list, one entry per route, so
 * each area of the plugin can add its own. /admin/* is already behind
 * Medusa's admin authentication.
 */
export default defineMiddlewares({
  routes: [
    {
      matcher: "/admin/card-service/test-connection",
      method: ["POST"],
      middlewares: [validateAndTransformBody(AdminCardServiceTestConnection)],
    },
    {
      matcher: "/admin/card-service/payments/:payment_id/void",
      method: ["POST"],
      middlewares: [validateAndTransformBody(AdminCardServiceVoid)],
    },
  ],
})
