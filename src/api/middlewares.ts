import {
  defineMiddlewares,
  validateAndTransformBody,
} from "@medusajs/framework/http"
import {
  AdminCardServiceSettingsSave,
  AdminCardServiceTestConnection,
  AdminCardServiceVoid,
} from "./admin/card-service/validators"
import { adminRequestGuard } from "./admin/card-service/request-guard"

/**
 * The plugin's route middlewares: one flat list, one entry per route, so
 * each area of the plugin can add its own. /admin/* is already behind
 * Medusa's admin authentication.
 */
export default defineMiddlewares({
  routes: [
    // JSON only, and no cross-site cookie-authenticated request (CSRF). Also
    // listed first on each route below, so it runs before body validation
    // whatever order Medusa gives matchers of different specificity.
    {
      matcher: "/admin/card-service/*",
      middlewares: [adminRequestGuard],
    },
    {
      matcher: "/admin/card-service/test-connection",
      method: ["POST"],
      middlewares: [adminRequestGuard, validateAndTransformBody(AdminCardServiceTestConnection)],
    },
    {
      matcher: "/admin/card-service/settings",
      method: ["POST"],
      middlewares: [adminRequestGuard, validateAndTransformBody(AdminCardServiceSettingsSave)],
    },
    {
      matcher: "/admin/card-service/payments/:payment_id/void",
      method: ["POST"],
      middlewares: [adminRequestGuard, validateAndTransformBody(AdminCardServiceVoid)],
    },
  ],
})
