import type {
  IPaymentModuleService,
  MedusaContainer,
  PaymentDTO,
} from "@medusajs/framework/types"
import { MathBN, MedusaError, Modules } from "@medusajs/framework/utils"
import {
  cardServiceProvider,
  PROVIDER_ID_PREFIX,
} from "../../../checkout/provider-lookup"
import type CardServiceProviderService from "../../../providers/card-service/service"
import type { CardServiceSessionData } from "../../../providers/card-service/session-data"

export type CardServicePayment = {
  payment: PaymentDTO
  provider: CardServiceProviderService
  /** payment.data when it is this provider's and its seal holds; null otherwise. */
  session: CardServiceSessionData | null
  /** What Medusa's own records say, in major units. */
  medusa: { amount: number; captured: number; refunded: number }
}

/**
 * A payment of the card-service provider, with the provider instance the
 * payment module built (so the routes use its client and options). Any other
 * payment, or none, is a 404: the admin routes only speak about their own.
 */
export async function loadCardServicePayment(
  container: MedusaContainer,
  paymentId: string
): Promise<CardServicePayment> {
  const paymentModule = container.resolve<IPaymentModuleService>(
    Modules.PAYMENT
  )
  const payment = await paymentModule
    .retrievePayment(paymentId, {
      select: [
        "id",
        "provider_id",
        "data",
        "amount",
        "currency_code",
        "captured_at",
        "canceled_at",
        "payment_collection_id",
      ],
      relations: ["captures", "refunds"],
    })
    .catch(() => null)
  if (!payment || !payment.provider_id.startsWith(PROVIDER_ID_PREFIX)) {
    throw new MedusaError(
      MedusaError.Types.NOT_FOUND,
      `Card-service payment ${paymentId} was not found`
    )
  }
  const provider = cardServiceProvider(container, payment.provider_id)
  await provider.refreshSettings()
  return {
    payment,
    provider,
    session: provider.verifySession(payment.data),
    medusa: {
      amount: MathBN.convert(payment.amount).toNumber(),
      captured: sum((payment.captures ?? []).map((c) => c.amount)),
      refunded: sum((payment.refunds ?? []).map((r) => r.amount)),
    },
  }
}

function sum(values: Parameters<typeof MathBN.convert>[0][]): number {
  return values
    .reduce<ReturnType<typeof MathBN.convert>>(
      (total, value) => MathBN.add(total, value),
      MathBN.convert(0)
    )
    .toNumber()
}
