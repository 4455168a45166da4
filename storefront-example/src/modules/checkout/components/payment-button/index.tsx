"use client"

import { isManual } from "@lib/constants"
import { HttpTypes } from "@medusajs/types"
import ErrorMessage from "@modules/checkout/components/error-message"
import Input from "@modules/common/components/input"
import NativeSelect from "@modules/common/components/native-select"
import { Button, Label } from "@modules/common/components/ui"
import {
  CardServiceForm,
  CardServicePayButton,
  isCardService,
} from "medusa-payment-card-service/storefront/react"

/**
 * Where the example's card form reaches the backend, and whether it shows
 * the hosted-page variant of docs/storefront.md instead (see the checkout page).
 */
export type CardServiceConfig = {
  backendUrl: string
  publishableKey: string
  hostedOnly: boolean
}

/**
 * The review step's button, in the starter's shape: it switches on the
 * provider of the cart's first payment session.
 */
export default function PaymentButton({
  cart,
  cardService,
  "data-testid": dataTestId,
}: {
  cart: HttpTypes.StoreCart
  cardService: CardServiceConfig
  "data-testid": string
}) {
  const notReady =
    !cart ||
    !cart.shipping_address ||
    !cart.billing_address ||
    !cart.email ||
    (cart.shipping_methods?.length ?? 0) < 1

  const paymentSession = cart.payment_collection?.payment_sessions?.[0]

  const { hostedOnly, ...cardServiceBackend } = cardService

  switch (true) {
    case isCardService(paymentSession?.provider_id) && hostedOnly:
      return <CardServicePayButton cart={cart} ui={{ Button, ErrorMessage }} />
    case isCardService(paymentSession?.provider_id):
      return (
        <CardServiceForm
          cart={cart}
          ui={{ Button, ErrorMessage, Input, Label, NativeSelect }}
          {...cardServiceBackend}
        />
      )
    case isManual(paymentSession?.provider_id):
      return (
        <Button disabled={notReady} size="large" data-testid={dataTestId}>
          Place order
        </Button>
      )
    default:
      return <Button disabled>Select a payment method</Button>
  }
}
