import type { AxiosInstance } from "axios"
import type { SeededStore } from "./seed-store"

/** The store API calls a storefront makes at checkout, with the publishable key. */
export function storeApi(api: AxiosInstance, store: SeededStore) {
  const headers = { "x-publishable-api-key": store.publishableKey }
  const post = async (url: string, body: unknown = {}) =>
    (await api.post(url, body, { headers })).data
  const get = async (url: string) => (await api.get(url, { headers })).data

  return {
    headers,
    post,
    get,
    /** A cart with one item, an address, an e-mail and a shipping method (and a locale, if given). */
    async createCart({
      quantity = 1,
      email = "shopper@example.com",
      locale,
    }: { quantity?: number; email?: string; locale?: string } = {}) {
      const { cart } = await post("/store/carts", {
        region_id: store.regionId,
        sales_channel_id: store.salesChannelId,
        email,
        ...(locale ? { locale } : {}),
        shipping_address: address(store.countryCode),
        billing_address: address(store.countryCode),
      })
      await post(`/store/carts/${cart.id}/line-items`, {
        variant_id: store.variantId,
        quantity,
      })
      const { cart: withShipping } = await post(`/store/carts/${cart.id}/shipping-methods`, {
        option_id: store.shippingOptionId,
      })
      return withShipping
    },
    async startPaymentSession(cartId: string, providerId: string, data?: Record<string, unknown>) {
      const { payment_collection } = await post("/store/payment-collections", { cart_id: cartId })
      const result = await post(
        `/store/payment-collections/${payment_collection.id}/payment-sessions`,
        { provider_id: providerId, ...(data ? { data } : {}) }
      )
      return result.payment_collection
    },
  }
}

function address(countryCode: string) {
  return {
    first_name: "Ada",
    last_name: "Lovelace",
    address_1: "Unter den Linden 1",
    city: "Berlin",
    postal_code: "10117",
    country_code: countryCode,
    phone: "+4930123456",
  }
}
