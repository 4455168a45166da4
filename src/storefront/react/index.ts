"use client"

/**
 * medusa-payment-card-service/storefront/react: a card form component and a
 * hook for React 18+ storefronts such as Medusa's Next.js starter. Client
 * components ("use client"); unstyled, with card-service-payment__* class
 * names. See docs/storefront.md.
 */
export { CardServiceForm, CardServicePayButton } from "./card-service-form"
export type {
  CartLike,
  CardServiceFormKit,
  CardServiceFormProps,
  CardServiceKit,
  CardServicePayButtonProps,
} from "./card-service-form"
export { CardServiceOrderNotice, isOrderOnHold } from "./card-service-order-notice"
export type { CardServiceOrderNoticeProps, OrderLike } from "./card-service-order-notice"
export { CardServicePayment } from "./card-service-payment"
// So that a file of the starter needs one import of this package.
export { cardServicePaymentError, isCardService } from "../payment-step"
export type { CardServicePaymentProps } from "./card-service-payment"
export { useCardServiceForm } from "./use-card-service-form"
export type {
  CardServiceFormState,
  UseCardServiceFormOptions,
} from "./use-card-service-form"
