"use client"

import { HttpTypes } from "@medusajs/types"
import { useSearchParams } from "next/navigation"
import PaymentButton, {
  CardServiceConfig,
} from "@modules/checkout/components/payment-button"

export default function Review({
  cart,
  cardService,
}: {
  cart: HttpTypes.StoreCart
  cardService: CardServiceConfig
}) {
  const isOpen = useSearchParams().get("step") === "review"
  return (
    <section>
      <h2
        className={`mb-4 text-2xl font-semibold ${isOpen ? "" : "text-ui-fg-muted"}`}
      >
        Review
      </h2>
      {isOpen ? (
        <div className="flex flex-col gap-4">
          <p className="text-sm text-ui-fg-subtle">
            By placing your order, you agree to our terms of sale and confirm
            that you have read our privacy policy.
          </p>
          <PaymentButton
            cart={cart}
            cardService={cardService}
            data-testid="submit-order-button"
          />
        </div>
      ) : null}
    </section>
  )
}
