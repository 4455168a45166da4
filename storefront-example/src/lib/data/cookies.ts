import { cookies } from "next/headers"

const CART_COOKIE = "_medusa_cart_id"
const CACHE_COOKIE = "_medusa_cache_id"

export async function getCartId(): Promise<string | undefined> {
  return (await cookies()).get(CART_COOKIE)?.value
}

export async function setCartId(cartId: string) {
  ;(await cookies()).set(CART_COOKIE, cartId, {
    maxAge: 60 * 60 * 24 * 7,
    httpOnly: true,
    // The starter's strict: the return route makes the shopper's way back
    // from the card service same-site before the checkout needs the cookie.
    sameSite: "strict",
    secure: process.env.NODE_ENV === "production",
  })
}

export async function removeCartId() {
  ;(await cookies()).set(CART_COOKIE, "", { maxAge: -1 })
}

/**
 * A per-browser cache tag ("carts-<id>"), so revalidating one shopper's cart
 * leaves the others' cached. The middleware sets the id.
 */
export async function getCacheTag(tag: "carts" | "orders"): Promise<string> {
  const cacheId = (await cookies()).get(CACHE_COOKIE)?.value
  return cacheId ? `${tag}-${cacheId}` : ""
}

export async function getCacheOptions(
  tag: "carts" | "orders"
): Promise<{ tags: string[] } | {}> {
  const cacheTag = await getCacheTag(tag)
  return cacheTag ? { tags: [cacheTag] } : {}
}
