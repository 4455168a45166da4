import type {
  ILockingModule,
  Logger,
  MedusaContainer,
} from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { randomUUID } from "node:crypto"
import { traceSweep } from "../observability/sweep-telemetry"
import {
  sweepCardServicePayments,
  type SweepResult,
} from "../reconciliation/sweep"

/**
 * The reconciliation sweep (issue 14, docs/reconciliation.md) as a Medusa
 * scheduled job. Medusa loads a plugin's jobs from `src/jobs/` and reads
 * `config.schedule` when it loads the file, before any module options exist,
 * so the schedule comes from the environment; the grace period and the
 * per-provider switch are provider options (`reconcileGraceMs`, `reconcile`).
 */

const DEFAULT_SCHEDULE = "* * * * *"
/**
 * The whole sweep is one lock, leased: renewed every third of its lease
 * while the sweep runs, so a long pass keeps it, and an instance killed
 * mid-sweep leaves it for 30 s at most, not the 5 minutes it was taken for
 * before (issue 42: every point bench:crash-points reaches inside the
 * sweep's own work left the next sweeps refused that long).
 */
export const SWEEP_LOCK_KEY = "card-service:reconcile"
export const SWEEP_LEASE_SECONDS = 30
/** While the service is down, wait 1, 2, 4 ... up to 30 minutes between sweeps. */
const BACKOFF_BASE_MS = 60_000
const BACKOFF_MAX_MS = 30 * 60_000

/** The cron expression, or "off"; blank means unset (like every other option). */
export function reconcileSchedule(
  env: NodeJS.ProcessEnv = process.env
): string {
  const given = env.CARD_SERVICE_RECONCILE_SCHEDULE?.trim()
  if (!given) return DEFAULT_SCHEDULE
  if (given === "off") return "off"
  // Five or six cron fields; Medusa's scheduler parses the rest.
  const fields = given.split(/\s+/)
  if (fields.length < 5 || fields.length > 6) {
    throw new Error(
      `CARD_SERVICE_RECONCILE_SCHEDULE must be a cron expression of 5 or 6 fields or "off", got ${fields.length} field(s)`
    )
  }
  return given
}

const SCHEDULE = reconcileSchedule()

let failures = 0
let notBefore = 0

/** For tests: forget the backoff between sweeps. */
export function resetReconcileBackoff(): void {
  failures = 0
  notBefore = 0
}

/**
 * Runs one sweep unless another instance (or an earlier run still going)
 * holds the sweep lock, or the service was down too recently. Returns the
 * sweep's result, or null when it did not run.
 */
export default async function cardServiceReconcileJob(
  container: MedusaContainer
): Promise<SweepResult | null> {
  if (SCHEDULE === "off") return null
  return await runReconcileSweep(container)
}

/** The job's work without the schedule switch: lock, backoff, one sweep. */
export async function runReconcileSweep(
  container: MedusaContainer
): Promise<SweepResult | null> {
  const logger = container.resolve<Logger>(ContainerRegistrationKeys.LOGGER)
  if (Date.now() < notBefore) return null
  const locking = container.resolve<ILockingModule>(Modules.LOCKING)
  const ownerId = randomUUID()
  const lease = { ownerId, expire: SWEEP_LEASE_SECONDS }
  try {
    await locking.acquire(SWEEP_LOCK_KEY, lease)
  } catch {
    // Another sweep is running (here or on another instance): one at a time.
    return null
  }
  // Acquiring again as the same owner renews the lease (Medusa's providers).
  const renewal = setInterval(
    () => void locking.acquire(SWEEP_LOCK_KEY, lease).catch(() => undefined),
    (SWEEP_LEASE_SECONDS * 1000) / 3
  )
  renewal.unref()
  try {
    const result = await traceSweep(() => sweepCardServicePayments(container))
    if (result.serviceDown) {
      failures += 1
      const wait = Math.min(
        BACKOFF_MAX_MS,
        BACKOFF_BASE_MS * 2 ** (failures - 1)
      )
      notBefore = Date.now() + wait
      logger.warn(
        `card-service reconcile: backing off ${Math.round(wait / 1000)} s after the service was unavailable`
      )
    } else {
      failures = 0
      notBefore = 0
    }
    return result
  } finally {
    clearInterval(renewal)
    await locking.release(SWEEP_LOCK_KEY, { ownerId }).catch(() => undefined)
  }
}

export const config = {
  name: "card-service-reconcile",
  // Medusa needs some schedule to register the job; "off" runs nothing.
  schedule: SCHEDULE === "off" ? DEFAULT_SCHEDULE : SCHEDULE,
}
