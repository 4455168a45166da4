import type { ILockingModule, MedusaContainer } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import { leasedLock } from "./lock-lease"

/** How long an action on a payment waits for another one to finish. */
const PAYMENT_LOCK_SECONDS = 30

/**
 * Runs `action` while no other action of the plugin's on the same payment
 * runs (Medusa's locking module): the admin's void and an unknown refund's
 * settling, the sweep's follow of a captured payment and its settling of
 * follow-ons, and the provider's part of every capture and refund Medusa
 * makes (payment-record.ts) each read payment.data, ask the service and
 * write it back.
 */
export async function underPaymentLock<T>(
  container: MedusaContainer,
  paymentId: string,
  action: () => Promise<T>
): Promise<T> {
  const locking = container.resolve<ILockingModule>(Modules.LOCKING)
  return locking.execute(`card-service:payment:${paymentId}`, action, leasedLock(PAYMENT_LOCK_SECONDS))
}
