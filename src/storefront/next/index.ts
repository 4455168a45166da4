/**
 * medusa-payment-card-service/storefront/next: the storefront's return route
 * for a Next.js App Router storefront such as Medusa's starter. See
 * docs/storefront.md.
 */
import { cardServiceReturnRoute } from "./return-route"

export { cardServiceReturnRoute }
/** The return route with the starter's defaults: `export { GET } from "medusa-payment-card-service/storefront/next"`. */
export const GET = cardServiceReturnRoute()
export type { CardServiceReturnRouteOptions } from "./return-route"
