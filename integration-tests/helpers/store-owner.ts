import type { MedusaContainer } from "@medusajs/framework/types"
import type { AxiosInstance } from "axios"
import type { CardServiceTestEnv } from "./card-service-env"
import { adminHeaders } from "./checkout-flow"
import { CARD_SERVICE_PROVIDER_ID } from "./seed-store"

/**
 * The store owner on Medusa's admin API, for the tests of a spec (call it in
 * medusaIntegrationTestRunner's testSuite): before each test the sandbox's
 * knobs are reset and the owner gets a new secret API key, since the runner
 * restores the database before each test. post and get answer Medusa's
 * response, an error status's too, for the test to check.
 */
export function useStoreOwner(
  api: AxiosInstance,
  getContainer: () => MedusaContainer,
  env: CardServiceTestEnv
) {
  let admin: Record<string, string> | undefined

  beforeEach(async () => {
    env.sandbox().resetKnobs()
    admin = await adminHeaders(getContainer())
  })

  const headers = () => {
    if (!admin) throw new Error("the store owner has no API key yet (beforeEach)")
    return admin
  }
  const post = (url: string, body: unknown = {}) =>
    api.post(url, body, { headers: headers() }).catch((error: any) => error.response)
  const get = (url: string) => api.get(url, { headers: headers() }).catch((error: any) => error.response)
  const del = (url: string) => api.delete(url, { headers: headers() }).catch((error: any) => error.response)

  return {
    /** The admin API's Authorization header, for a call made otherwise. */
    headers,
    post,
    get,
    delete: del,
    /**
     * Medusa's order edit of the order's first item (its quantity, or its
     * unit_price too), requested and confirmed, each step answered 200.
     */
    async editFirstItem(orderId: string, change: { quantity: number; unit_price?: number }) {
      const { data } = await get(`/admin/orders/${orderId}?fields=*items`)
      const steps = [
        await post(`/admin/order-edits`, { order_id: orderId }),
        await post(`/admin/order-edits/${orderId}/items/item/${data.order.items[0].id}`, change),
        await post(`/admin/order-edits/${orderId}/request`),
        await post(`/admin/order-edits/${orderId}/confirm`),
      ]
      expect(steps.map((step) => [step.status, step.data.message])).toEqual(steps.map(() => [200, undefined]))
    },
    /**
     * A card-service session on a payment collection, through Medusa's own
     * route as its admin API documents it (2.21.2):
     * POST /admin/payment-collections/:id/payment-sessions.
     */
    async sessionOnCollection(collectionId: string) {
      const created = await post(`/admin/payment-collections/${collectionId}/payment-sessions`, {
        provider_id: CARD_SERVICE_PROVIDER_ID,
      })
      expect(created.status).toBe(200)
      return created.data.payment_collection.payment_sessions[0]
    },
  }
}

export type StoreOwner = ReturnType<typeof useStoreOwner>
