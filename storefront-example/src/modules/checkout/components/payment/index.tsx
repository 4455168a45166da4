"use client"

import { HttpTypes } from "@medusajs/types"
import {
  needsNewPaymentSession,
  paymentFailureMessage,
} from "medusa-payment-card-service/storefront"
import {
  useParams,
  usePathname,
  useRouter,
  useSearchParams,
} from "next/navigation"
import { useState } from "react"
import { isCardService, paymentInfoMap } from "@lib/constants"
import { initiatePaymentSession } from "@lib/data/cart"
import Button from "@modules/common/components/button"
import ErrorMessage from "@modules/checkout/components/error-message"
import StepHeader from "@modules/checkout/components/step-header"

export default function Payment({
  cart,
  availablePaymentMethods,
}: {
  cart: HttpTypes.StoreCart
  availablePaymentMethods: HttpTypes.StorePaymentProvider[]
}) {
  const searchParams = useSearchParams()
  const router = useRouter()
  const pathname = usePathname()
  const { countryCode } = useParams<{ countryCode: string }>()
  const isOpen = searchParams.get("step") === "payment"
  // Set by the card-service return route when a payment did not go through.
  const paymentError = searchParams.get("payment_error")
  const sessions = cart.payment_collection?.payment_sessions ?? []
  const activeSession = sessions.find((s) => s.status === "pending")
  const [selected, setSelected] = useState(
    activeSession?.provider_id ?? sessions[0]?.provider_id ?? ""
  )
  const [error, setError] = useState<string | null>(null)
  const [submitting, setSubmitting] = useState(false)
  const ready = !!cart.shipping_methods?.length

  const handleSubmit = async () => {
    setSubmitting(true)
    setError(null)
    try {
      // A declined card session takes another attempt (the review step
      // fetches a fresh form); cart_changed and tampered need a new session.
      const current = sessions.find((s) => s.provider_id === selected)
      if (!current || needsNewPaymentSession(paymentError)) {
        await initiatePaymentSession(cart, {
          provider_id: selected,
          data: isCardService(selected)
            ? {
                return_to: `${window.location.origin}/${countryCode}/checkout/card-service`,
              }
            : undefined,
        })
      }
      router.push(`${pathname}?step=review`)
    } catch (e) {
      setError((e as Error).message)
      setSubmitting(false)
    }
  }

  return (
    <section className="border-b border-ui-border pb-8">
      <StepHeader
        title="Payment"
        done={!!activeSession && !paymentError}
        open={isOpen}
        onEdit={() => router.push(`${pathname}?step=payment`)}
      />
      {isOpen ? (
        <div className="flex flex-col gap-4">
          <ErrorMessage
            error={paymentError ? paymentFailureMessage(paymentError) : null}
            data-testid="payment-error-message"
          />
          <div
            role="radiogroup"
            aria-label="Payment method"
            className="flex flex-col gap-2"
          >
            {availablePaymentMethods.map((method) => (
              <label
                key={method.id}
                className={`flex cursor-pointer items-center gap-3 rounded-md border px-6 py-4 ${
                  selected === method.id ? "border-ui-fg" : "border-ui-border"
                }`}
              >
                <input
                  type="radio"
                  name="payment_method"
                  value={method.id}
                  checked={selected === method.id}
                  onChange={() => setSelected(method.id)}
                />
                {paymentInfoMap[method.id]?.title ?? method.id}
              </label>
            ))}
          </div>
          <ErrorMessage
            error={error}
            data-testid="payment-method-error-message"
          />
          <Button
            size="large"
            className="self-start"
            disabled={!selected || !ready}
            isLoading={submitting}
            onClick={handleSubmit}
          >
            Continue to review
          </Button>
        </div>
      ) : activeSession ? (
        <p className="text-sm text-ui-fg-subtle">
          {paymentInfoMap[activeSession.provider_id]?.title ??
            activeSession.provider_id}
        </p>
      ) : null}
    </section>
  )
}
