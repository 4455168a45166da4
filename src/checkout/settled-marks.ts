import type { ICacheService, MedusaContainer } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"

/**
 * What settlement knows once a session's cart became its order: the session
 * was settled with this transaction into this order. Written by the plugin
 * itself after Medusa's cart completion answered the order (never from
 * anything a browser or the service sent), so a later copy of the same
 * result needs no database read to be answered: every checkout has the
 * service's duplicate copy, the browser's return and often a late copy after
 * the order, and each read the session, the cart link, the cart and its
 * order link (settled-check.ts), all queued for pooled connections behind the
 * carts being completed.
 *
 * Kept in Medusa's cache module: in memory on one instance, shared in Redis
 * when the store registers `@medusajs/medusa/cache-redis` (as a store with
 * several instances does). A mark that is missing, expired, unreadable or of
 * another transaction only means the reads happen as before: the marks save
 * work, they decide nothing the database would decide otherwise (an order is
 * never undone into a cart, and a settled session's transaction never
 * changes: settle-payment.ts answers a settled session without attaching).
 */
export type SettledMark = {
  transactionId: string
  orderId: string
  cartId: string
  /** The cart's locale (the return page's language). */
  locale: string | null
}

/** Longer than any redelivery or late return of one result is likely to take. */
const MARK_SECONDS = 60 * 60

/** A cache that does not answer in this time is passed by (the database is asked). */
const CACHE_WAIT_MS = 250

const keyOf = (sessionId: string) => `card-service:settled:${sessionId}`

function cacheOf(container: MedusaContainer): ICacheService | null {
  try {
    return container.resolve<ICacheService>(Modules.CACHE, { allowUnregistered: true }) ?? null
  } catch {
    return null
  }
}

function within<T>(work: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms)
    timer.unref?.()
  })
  return Promise.race([work, late]).finally(() => clearTimeout(timer))
}

/** The mark of `sessionId` when it names `transactionId`; null otherwise or when the cache cannot say. */
export async function readSettledMark(
  container: MedusaContainer,
  sessionId: string,
  transactionId: string | undefined
): Promise<SettledMark | null> {
  if (!transactionId) return null
  const cache = cacheOf(container)
  if (!cache) return null
  try {
    const mark = await within(cache.get<SettledMark>(keyOf(sessionId)), CACHE_WAIT_MS)
    return isMark(mark) && mark.transactionId === transactionId ? mark : null
  } catch {
    return null
  }
}

/** Records a settled session; a cache that fails only costs later copies their reads. */
export async function writeSettledMark(
  container: MedusaContainer,
  sessionId: string,
  mark: SettledMark
): Promise<void> {
  const cache = cacheOf(container)
  if (!cache) return
  await within(cache.set(keyOf(sessionId), mark, MARK_SECONDS), CACHE_WAIT_MS).catch(() => undefined)
}

function isMark(value: unknown): value is SettledMark {
  const mark = value as SettledMark | null
  return (
    !!mark &&
    typeof mark.transactionId === "string" &&
    typeof mark.orderId === "string" &&
    typeof mark.cartId === "string" &&
    (mark.locale === null || typeof mark.locale === "string")
  )
}
