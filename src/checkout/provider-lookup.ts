import type {
  IPaymentModuleService,
  MedusaContainer,
  PaymentSessionDTO,
} from "@medusajs/framework/types"
import { MedusaError, Modules } from "@medusajs/framework/utils"
import CardServiceProviderService from "../providers/card-service/service"

export const PROVIDER_ID_PREFIX = `pp_${CardServiceProviderService.identifier}_`

type PaymentModuleInternals = {
  paymentProviderService_?: { retrieveProvider(id: string): unknown }
}

/**
 * The provider instance the payment module built from medusa-config, so the
 * routes share its options, its sealing key and its client's connection pool
 * instead of configuring a second copy. Medusa 2.21 keeps provider instances
 * in the payment module's own container; its provider service is the one way
 * to reach them (pinned version, checked by the integration tests).
 */
export function cardServiceProvider(
  container: MedusaContainer,
  providerId: string
): CardServiceProviderService {
  if (!providerId.startsWith(PROVIDER_ID_PREFIX)) {
    throw new MedusaError(
      MedusaError.Types.NOT_FOUND,
      `Payment provider ${providerId} is not the card service`
    )
  }
  const paymentModule = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
  const internals = paymentModule as unknown as PaymentModuleInternals
  const provider = internals.paymentProviderService_?.retrieveProvider(providerId)
  // Compared by identifier, not instanceof: the payment module and the routes
  // may load the class through different module registries (jest, ts-node).
  const identifier = (provider as { constructor?: { identifier?: string } } | undefined)
    ?.constructor?.identifier
  if (identifier !== CardServiceProviderService.identifier) {
    throw new MedusaError(
      MedusaError.Types.NOT_FOUND,
      `Payment provider ${providerId} is not registered in the payment module`
    )
  }
  return provider as CardServiceProviderService
}

/**
 * A payment session of this provider with the provider instance that owns
 * it, or null for an unknown session or another provider's. Only Medusa's
 * definite "not found" means unknown: any other failure (the database
 * unreachable, a timeout) is thrown, because callers treat an unknown session
 * as an orphan and reverse its approval.
 */
export async function loadCardServiceSession(
  container: MedusaContainer,
  sessionId: string,
  { refreshSettings = true }: {
    /**
     * false: the caller only verifies the session's seal, which comes from
     * medusa-config.ts (not the admin's settings), and saves the settings
     * revision's read.
     */
    refreshSettings?: boolean
  } = {}
): Promise<{ session: PaymentSessionDTO; provider: CardServiceProviderService } | null> {
  const paymentModule = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
  const session = await paymentModule.retrievePaymentSession(sessionId).catch((error) => {
    if (MedusaError.isMedusaError(error) && error.type === MedusaError.Types.NOT_FOUND) {
      return null
    }
    throw error
  })
  if (!session || !session.provider_id.startsWith(PROVIDER_ID_PREFIX)) {
    return null
  }
  const provider = cardServiceProvider(container, session.provider_id)
  // The routes use the provider's client and options directly: bring them
  // up to the admin's settings first (service.ts, refreshSettings).
  if (refreshSettings) await provider.refreshSettings()
  return { session, provider }
}
