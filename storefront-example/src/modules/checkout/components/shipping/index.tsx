"use client"

import { HttpTypes } from "@medusajs/types"
import { usePathname, useRouter, useSearchParams } from "next/navigation"
import { useState } from "react"
import { setShippingMethod } from "@lib/data/cart"
import { convertToLocale } from "@lib/util/money"
import { Button } from "@modules/common/components/ui"
import ErrorMessage from "@modules/checkout/components/error-message"
import StepHeader from "@modules/checkout/components/step-header"

export default function Shipping({
  cart,
  availableShippingMethods,
}: {
  cart: HttpTypes.StoreCart
  availableShippingMethods: HttpTypes.StoreCartShippingOption[]
}) {
  const searchParams = useSearchParams()
  const router = useRouter()
  const pathname = usePathname()
  const isOpen = searchParams.get("step") === "delivery"
  const chosen = cart.shipping_methods?.at(-1)
  const [error, setError] = useState<string | null>(null)
  const [saving, setSaving] = useState<string | null>(null)
  // Checked at once; the cart (and the button) follow when the action returns.
  const [selected, setSelected] = useState(chosen?.shipping_option_id ?? null)

  const choose = async (id: string) => {
    setSelected(id)
    setSaving(id)
    setError(null)
    await setShippingMethod({ cartId: cart.id, shippingMethodId: id }).catch(
      (e: Error) => setError(e.message)
    )
    setSaving(null)
  }

  return (
    <section className="border-b border-ui-border pb-8">
      <StepHeader
        title="Delivery"
        done={!!chosen}
        open={isOpen}
        onEdit={() => router.push(`${pathname}?step=delivery`)}
      />
      {isOpen ? (
        <div className="flex flex-col gap-4">
          <div
            role="radiogroup"
            aria-label="Delivery method"
            className="flex flex-col gap-2"
          >
            {availableShippingMethods.map((option) => {
              const checked = selected === option.id
              return (
                <label
                  key={option.id}
                  className={`flex cursor-pointer items-center justify-between rounded-md border px-6 py-4 ${
                    checked ? "border-ui-fg" : "border-ui-border"
                  }`}
                >
                  <span className="flex items-center gap-3">
                    <input
                      type="radio"
                      name="shipping_option"
                      value={option.id}
                      checked={checked}
                      disabled={!!saving}
                      onChange={() => choose(option.id)}
                    />
                    {option.name}
                  </span>
                  <span>
                    {convertToLocale({
                      amount: option.amount,
                      currency_code: cart.currency_code,
                    })}
                  </span>
                </label>
              )
            })}
          </div>
          <ErrorMessage
            error={error}
            data-testid="delivery-option-error-message"
          />
          <Button
            size="large"
            className="self-start"
            disabled={!chosen || chosen.shipping_option_id !== selected}
            isLoading={!!saving}
            onClick={() => router.push(`${pathname}?step=payment`)}
          >
            Continue to payment
          </Button>
        </div>
      ) : chosen ? (
        <p className="text-sm text-ui-fg-subtle">
          {chosen.name}{" "}
          {convertToLocale({
            amount: chosen.amount,
            currency_code: cart.currency_code,
          })}
        </p>
      ) : null}
    </section>
  )
}
