/**
 * medusa-payment-card-service/storefront: a small, framework-free helper for
 * a custom storefront's card form. It imports nothing from @medusajs/* and
 * touches no DOM at import time, so it bundles anywhere and is safe to import
 * during server-side rendering. See docs/storefront.md.
 */
export {
  cardDigits,
  cardTypeFor,
  isPotentiallyValidCardNumber,
  isValidCardNumber,
  SERVICE_CARD_TYPE_LABELS,
} from "../lib/card-brands"
export type { ServiceCardType } from "../lib/card-brands"
export {
  fetchCardServiceForm,
  getCardServiceSession,
  parseFormDescriptor,
  pollCardServiceSession,
} from "./backend-api"
export type {
  BackendOptions,
  CardServiceFormDescriptor,
  CardServiceSessionState,
  FetchLike,
  PollOptions,
} from "./backend-api"
export { cardServiceFormFields, submitCardServiceForm } from "./form-submit"
export type { BillingOverrides, CardInput, SubmitOptions } from "./form-submit"
export {
  BILLING_FIELD_INFO,
  BILLING_FIELDS,
  CARD_FIELDS,
  countryTakesState,
} from "../lib/form-field-rules"
export type { BillingField, CardField } from "../lib/form-field-rules"
export {
  needsNewPaymentSession,
  paymentFailureMessage,
} from "./failure-messages"
export {
  CARD_SERVICE_PROVIDER_PREFIX,
  cardServicePaymentError,
  cardServiceSessionInput,
  isCardService,
} from "./payment-step"
export { parseReturnParams } from "./return-params"
export type { CardServiceReturn } from "./return-params"
export { resolveCardServiceReturn } from "./return-step"
export type { CardServiceReturnStep } from "./return-step"
export { CardServiceStorefrontError } from "./storefront-error"
export type { CardServiceStorefrontErrorCode } from "./storefront-error"
