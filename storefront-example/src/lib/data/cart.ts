"use server"

import { HttpTypes } from "@medusajs/types"
import { revalidateTag } from "next/cache"
import { redirect } from "next/navigation"
import { sdk } from "@lib/config"
import { getCacheTag, getCartId, setCartId } from "./cookies"
import { getRegion } from "./regions"

const CART_FIELDS = [
  "*items",
  "*region",
  "*shipping_address",
  "*billing_address",
  "*shipping_methods",
  "*payment_collection",
  // The card form needs the session's id and public data (pay_url).
  "*payment_collection.payment_sessions",
  "+items.total",
].join(",")

/**
 * The shopper's cart (cookie), cached under the per-browser carts tag: every
 * action that changes the cart revalidates that tag, as the starter does.
 */
export async function retrieveCart(
  cartId?: string
): Promise<HttpTypes.StoreCart | null> {
  const id = cartId ?? (await getCartId())
  if (!id) return null
  const tag = await getCacheTag("carts")
  return sdk.client
    .fetch<HttpTypes.StoreCartResponse>(`/store/carts/${id}`, {
      query: { fields: CART_FIELDS },
      ...(tag
        ? { next: { tags: [tag] }, cache: "force-cache" as const }
        : { cache: "no-store" as const }),
    })
    .then(({ cart }) => cart)
    .catch(() => null)
}

async function revalidateCart() {
  const tag = await getCacheTag("carts")
  if (tag) revalidateTag(tag)
}

export async function getOrSetCart(
  countryCode: string
): Promise<HttpTypes.StoreCart> {
  const region = await getRegion(countryCode)
  if (!region) throw new Error(`No region for country ${countryCode}`)
  let cart = await retrieveCart()
  if (!cart) {
    cart = (await sdk.store.cart.create({ region_id: region.id })).cart
    await setCartId(cart.id)
    await revalidateCart()
  }
  return cart
}

export async function addToCart({
  variantId,
  quantity,
  countryCode,
}: {
  variantId: string
  quantity: number
  countryCode: string
}) {
  const cart = await getOrSetCart(countryCode)
  await sdk.store.cart.createLineItem(cart.id, {
    variant_id: variantId,
    quantity,
  })
  await revalidateCart()
}

/** The address step's form action: e-mail and one address for shipping and billing. */
export async function setAddresses(
  _state: string | null,
  formData: FormData
): Promise<string | null> {
  const cartId = await getCartId()
  if (!cartId) return "Your cart could not be found."
  const text = (name: string) => String(formData.get(name) ?? "").trim()
  const address = {
    first_name: text("first_name"),
    last_name: text("last_name"),
    address_1: text("address_1"),
    postal_code: text("postal_code"),
    city: text("city"),
    country_code: text("country_code"),
    phone: text("phone"),
  }
  try {
    await sdk.store.cart.update(cartId, {
      email: text("email"),
      shipping_address: address,
      billing_address: address,
    })
  } catch (error) {
    return (error as Error).message
  }
  await revalidateCart()
  redirect(`/${address.country_code}/checkout?step=delivery`)
}

export async function setShippingMethod({
  cartId,
  shippingMethodId,
}: {
  cartId: string
  shippingMethodId: string
}) {
  await sdk.store.cart.addShippingMethod(cartId, {
    option_id: shippingMethodId,
  })
  await revalidateCart()
}

/**
 * Creates a payment session for the chosen provider. Medusa replaces the
 * cart's earlier sessions, so this is also how a shopper gets a new card
 * session after cart_changed or tampered.
 */
export async function initiatePaymentSession(
  cart: HttpTypes.StoreCart,
  data: HttpTypes.StoreInitializePaymentSession
) {
  const result = await sdk.store.payment.initiatePaymentSession(cart, data)
  await revalidateCart()
  return result
}
