"use client"

import { HttpTypes } from "@medusajs/types"
import { isCardService } from "@lib/constants"
import Button from "@modules/common/components/button"
import CardServiceForm from "@modules/checkout/components/card-service-form"

export type CardServiceConfig = { backendUrl: string; publishableKey: string }

export default function PaymentButton({
  cart,
  cardService,
}: {
  cart: HttpTypes.StoreCart
  cardService: CardServiceConfig
}) {
  // The starter's check: the plugin turns the cart into an order as soon as
  // the payment is confirmed, so everything must be there before paying.
  const notReady =
    !cart ||
    !cart.shipping_address ||
    !cart.billing_address ||
    !cart.email ||
    (cart.shipping_methods?.length ?? 0) < 1

  const paymentSession = cart.payment_collection?.payment_sessions?.[0]
  if (isCardService(paymentSession?.provider_id)) {
    return (
      <CardServiceForm
        session={paymentSession!}
        notReady={notReady}
        {...cardService}
      />
    )
  }
  return <Button disabled>Select a payment method</Button>
}
