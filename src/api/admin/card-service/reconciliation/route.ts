import type {
  AuthenticatedMedusaRequest,
  MedusaResponse,
} from "@medusajs/framework/http"
import { reconcileEntries } from "../attention-list"
import { runReconcileSweep } from "../../../../jobs/card-service-reconcile"
import type {
  ReconciliationResponse,
  SweepRunResponse,
} from "../response-types"

/**
 * GET /admin/card-service/reconciliation - what the sweep found and did
 * (docs/reconciliation.md): cases that need the store owner first, then
 * what was settled. `?payment_id=` narrows it to one payment and its
 * session (the order widget). Transaction ids and references only.
 */
export async function GET(
  req: AuthenticatedMedusaRequest,
  res: MedusaResponse
) {
  const paymentId =
    typeof req.query.payment_id === "string" ? req.query.payment_id : undefined
  if (paymentId !== undefined && !/^pay_[0-9A-Za-z]+$/.test(paymentId)) {
    return res
      .status(400)
      .json({ message: "payment_id must be a payment id (pay_...)" })
  }
  const entries = await reconcileEntries(req.scope, new Date(), paymentId)
  res.setHeader("Cache-Control", "no-store")
  res.json({ entries } satisfies ReconciliationResponse)
}

/**
 * POST /admin/card-service/reconciliation - runs one sweep now, as the
 * scheduled job would (same lock, same backoff). `ran: false` when another
 * sweep holds the lock (on this or another instance) or the service was
 * down too recently; otherwise what the sweep did.
 */
export async function POST(
  req: AuthenticatedMedusaRequest,
  res: MedusaResponse
) {
  const result = await runReconcileSweep(req.scope)
  res.setHeader("Cache-Control", "no-store")
  res.json(
    (result
      ? { ran: true, ...result }
      : { ran: false }) satisfies SweepRunResponse
  )
}
