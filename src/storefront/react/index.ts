"use client"

/**
 * medusa-payment-card-service/storefront/react: a card form component and a
 * hook for React 18+ storefronts such as Medusa's Next.js starter. Client
 * components ("use client"); unstyled, with card-service-payment__* class
 * names. See docs/storefront.md.
 */
export { CardServicePayment } from "./card-service-payment"
export type { CardServicePaymentProps } from "./card-service-payment"
export { useCardServiceForm } from "./use-card-service-form"
export type {
  CardServiceFormState,
  UseCardServiceFormOptions,
} from "./use-card-service-form"
