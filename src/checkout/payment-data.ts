import type { IPaymentModuleService, MedusaContainer } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import type { CardServiceSessionData } from "../providers/card-service/session-data"

/** Replaces payment.data: the provider's data is always the whole state, never a delta. */
export async function savePaymentData(
  container: MedusaContainer,
  paymentId: string,
  data: CardServiceSessionData
): Promise<void> {
  const paymentModule = container.resolve<IPaymentModuleService>(
    Modules.PAYMENT
  )
  // UpdatePaymentDTO declares only the id, but the payment module's update
  // writes any column given, and data is one of them.
  await paymentModule.updatePayment({ id: paymentId, data } as { id: string })
}
