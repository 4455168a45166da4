import type { JsonAnswer } from "./json-endpoint"
import { SandboxContext } from "./sandbox-context"

export const RETRIEVE_PREFIX = "/payment/retrieve/"

/**
 * GET /payment/retrieve/{merchantId}/{transactionId} (section 2.1): the
 * history record; 404 when the merchant is not this sandbox's, or the
 * transaction is unknown or belongs to another merchant.
 */
export function retrieve(ctx: SandboxContext, pathname: string): JsonAnswer {
  const parts = pathname.split("/")
  const notFound = { status: 404, payload: { error: "not_found" } }
  if (parts.length !== 5) {
    return notFound
  }
  const merchantId = safeDecode(parts[3])
  const tx = ctx.store.get(safeDecode(parts[4]))
  if (!tx) {
    ctx.retrieves.noteUnknown()
    return notFound
  }
  if (merchantId !== ctx.credentials.merchantId || tx.merchantId !== merchantId) {
    return notFound
  }
  ctx.retrieves.note(tx.transactionId, ctx.now())
  return { status: 200, payload: ctx.store.toRecord(tx) }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}
