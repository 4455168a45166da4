import type { MedusaRequest } from "@medusajs/framework/http"
import type {
  IPaymentModuleService,
  MedusaContainer,
} from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import {
  createTranslator,
  parseAcceptLanguage,
  type MessageOverrides,
  type Translator,
} from "../lib/i18n"
import { cardServiceProvider, PROVIDER_ID_PREFIX } from "./provider-lookup"

/**
 * The shopper's language for a checkout page or message: the cart's locale
 * first (Medusa 2.21 carts carry one, a BCP 47 tag the storefront sets;
 * regions have none), then the browser's Accept-Language, then English. The
 * store owner's strings (the provider's `messages` option) come over the
 * built-in ones.
 */
export function shopperText(
  req: Pick<MedusaRequest, "headers">,
  overrides: MessageOverrides | undefined,
  cartLocale?: string | null
): Translator {
  return createTranslator({
    candidates: [
      cartLocale,
      ...parseAcceptLanguage(req.headers["accept-language"]),
    ],
    overrides,
  })
}

/**
 * The `messages` option for a page that belongs to no known session (an
 * unknown or mistyped address): the first card-service provider's, so a
 * store owner's wording holds there too.
 */
export async function anyProviderMessages(
  container: MedusaContainer
): Promise<MessageOverrides | undefined> {
  try {
    const paymentModule = container.resolve<IPaymentModuleService>(
      Modules.PAYMENT
    )
    const providers = await paymentModule.listPaymentProviders({
      is_enabled: true,
    })
    const ours = providers.find(({ id }) => id.startsWith(PROVIDER_ID_PREFIX))
    return ours
      ? cardServiceProvider(container, ours.id).options.messages
      : undefined
  } catch {
    // The built-in wording is a fine answer for an address that leads nowhere.
    return undefined
  }
}
