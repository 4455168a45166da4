"use client"

import { paymentInfoMap } from "@lib/constants"
import { initiatePaymentSession } from "@lib/data/cart"
import { HttpTypes } from "@medusajs/types"
import { cardServicePaymentError } from "medusa-payment-card-service/storefront"
import ErrorMessage from "@modules/checkout/components/error-message"
import StepHeader from "@modules/checkout/components/step-header"
import { Button } from "@modules/common/components/ui"
import { usePathname, useRouter, useSearchParams } from "next/navigation"
import { useState } from "react"

/**
 * The payment step in the starter's shape: the active session is the cart's
 * pending one, the chosen method starts as its provider, and "Continue to
 * review" creates a session only when the chosen provider has none.
 */
export default function Payment({
  cart,
  availablePaymentMethods,
}: {
  cart: HttpTypes.StoreCart
  availablePaymentMethods: HttpTypes.StorePaymentProvider[]
}) {
  const activeSession = cart.payment_collection?.payment_sessions?.find(
    (paymentSession) => paymentSession.status === "pending"
  )

  const [isLoading, setIsLoading] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [selectedPaymentMethod, setSelectedPaymentMethod] = useState(
    activeSession?.provider_id ?? ""
  )

  const searchParams = useSearchParams()
  const router = useRouter()
  const pathname = usePathname()

  const isOpen = searchParams.get("step") === "payment"
  const paymentReady =
    !!activeSession && (cart?.shipping_methods?.length ?? 0) !== 0

  const handleSubmit = async () => {
    setIsLoading(true)
    try {
      const checkActiveSession =
        activeSession?.provider_id === selectedPaymentMethod

      if (!checkActiveSession) {
        await initiatePaymentSession(cart, {
          provider_id: selectedPaymentMethod,
        })
      }

      return router.push(`${pathname}?step=review`, { scroll: false })
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err))
    } finally {
      setIsLoading(false)
    }
  }

  return (
    <section className="border-b border-ui-border pb-8">
      <StepHeader
        title="Payment"
        done={!isOpen && paymentReady}
        open={isOpen}
        onEdit={() => router.push(`${pathname}?step=payment`)}
        editTestId="edit-payment-button"
      />
      {isOpen ? (
        <div className="flex flex-col gap-4">
          <div
            role="radiogroup"
            aria-label="Payment method"
            className="flex flex-col gap-2"
          >
            {availablePaymentMethods.map((method) => (
              <label
                key={method.id}
                className={`flex cursor-pointer items-center gap-3 rounded-md border px-6 py-4 ${
                  selectedPaymentMethod === method.id
                    ? "border-ui-fg"
                    : "border-ui-border"
                }`}
              >
                <input
                  type="radio"
                  name="payment_method"
                  value={method.id}
                  checked={selectedPaymentMethod === method.id}
                  onChange={() => {
                    setError(null)
                    setSelectedPaymentMethod(method.id)
                  }}
                />
                <span className="flex-1">
                  {paymentInfoMap[method.id]?.title ?? method.id}
                </span>
                {paymentInfoMap[method.id]?.icon}
              </label>
            ))}
          </div>
          <ErrorMessage error={cardServicePaymentError(searchParams)} />
          <ErrorMessage
            error={error}
            data-testid="payment-method-error-message"
          />
          <div>
            <Button
              size="large"
              onClick={handleSubmit}
              isLoading={isLoading}
              disabled={!selectedPaymentMethod}
              data-testid="submit-payment-button"
            >
              Continue to review
            </Button>
          </div>
        </div>
      ) : activeSession ? (
        <p
          className="flex items-center gap-2 text-sm text-ui-fg-subtle"
          data-testid="payment-method-summary"
        >
          {paymentInfoMap[activeSession.provider_id]?.icon}
          {paymentInfoMap[activeSession.provider_id]?.title ??
            activeSession.provider_id}
        </p>
      ) : null}
    </section>
  )
}
