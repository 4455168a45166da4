import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"

/** Medusa's order ids as the notes write them: `order_` and a ULID. */
const ORDER_ID = /\border_[0-9A-HJKMNP-TV-Z]{26}\b/g

/**
 * The notes name orders by Medusa's id (`order_01M8…`), written when the
 * sweep or a verdict acted; the store owner knows them by their display
 * number (#5), which the admin shows everywhere else (issue 41). Each id in
 * the texts becomes `#<display_id>`, read in one query when shown, so old
 * notes read the same; an id whose order is gone stays as it is.
 */
export async function withOrderDisplayIds(container: MedusaContainer, texts: string[]): Promise<string[]> {
  const ids = [...new Set(texts.flatMap((text) => text.match(ORDER_ID) ?? []))]
  if (!ids.length) return texts
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const { data } = await query.graph({ entity: "order", fields: ["id", "display_id"], filters: { id: ids } })
  const shown = new Map<string, string>()
  for (const order of data as { id: string; display_id?: number | null }[]) {
    if (order.display_id != null) shown.set(order.id, `#${order.display_id}`)
  }
  return texts.map((text) => text.replace(ORDER_ID, (id) => shown.get(id) ?? id))
}
