import {
  defineMiddlewares,
  validateAndTransformBody,
} from "@medusajs/framework/http"
import {
  AdminCardServiceOutstandingLink,
  AdminCardServiceSettingsSave,
  AdminCardServiceTestConnection,
  AdminCardServiceUnknownRefund,
  AdminCardServiceVoid,
} from "./admin/card-service/validators"
import { adminRequestGuard } from "./admin/card-service/request-guard"
import {
  PLUGIN_ROUTE_PREFIXES,
  pluginInputGuard,
} from "./card-service/input-limits"
import { pluginErrorHandler } from "./card-service/undecodable-path"

/**
 * The plugin's route middlewares: one flat list, one entry per route, so
 * each area of the plugin can add its own. /admin/* is already behind
 * Medusa's admin authentication.
 */
export default defineMiddlewares({
  // A malformed escape that express meets before pluginInputGuard runs
  // (on the admin routes) is a 400 there too, not a 500.
  errorHandler: pluginErrorHandler(),
  routes: [
    // Identifiers within their limits (and a decodable path) on every route
    // of the plugin, before anything is looked up or sent to the service.
    ...PLUGIN_ROUTE_PREFIXES.map((matcher) => ({
      matcher,
      middlewares: [pluginInputGuard],
    })),
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
      middlewares: [
        adminRequestGuard,
        validateAndTransformBody(AdminCardServiceTestConnection),
      ],
    },
    {
      matcher: "/admin/card-service/settings",
      method: ["POST"],
      middlewares: [
        adminRequestGuard,
        validateAndTransformBody(AdminCardServiceSettingsSave),
      ],
    },
    {
      matcher: "/admin/card-service/orders/:order_id/outstanding",
      method: ["POST"],
      middlewares: [
        adminRequestGuard,
        validateAndTransformBody(AdminCardServiceOutstandingLink),
      ],
    },
    {
      matcher: "/admin/card-service/payments/:payment_id/void",
      method: ["POST"],
      middlewares: [
        adminRequestGuard,
        validateAndTransformBody(AdminCardServiceVoid),
      ],
    },
    {
      matcher: "/admin/card-service/payments/:payment_id/unknown-refunds",
      method: ["POST"],
      middlewares: [
        adminRequestGuard,
        validateAndTransformBody(AdminCardServiceUnknownRefund),
      ],
    },
  ],
})
