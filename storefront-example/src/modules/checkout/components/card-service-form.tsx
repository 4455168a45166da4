"use client"

import { HttpTypes } from "@medusajs/types"
import {
  cardTypeFor,
  CardServiceStorefrontError,
  isPotentiallyValidCardNumber,
  SERVICE_CARD_TYPE_LABELS,
  submitCardServiceForm,
} from "medusa-payment-card-service/storefront"
import { useCardServiceForm } from "medusa-payment-card-service/storefront/react"
import { FormEvent, useState } from "react"
import Button from "@modules/common/components/button"
import ErrorMessage from "@modules/common/components/error-message"
import Input from "@modules/common/components/input"
import NativeSelect from "@modules/common/components/native-select"

const MONTHS = Array.from({ length: 12 }, (_, i) =>
  String(i + 1).padStart(2, "0")
)
const YEARS = Array.from({ length: 15 }, (_, i) =>
  String(new Date().getFullYear() + i)
)

/**
 * The card form in the starter's own inputs. The billing fields come filled
 * from the cart's billing address (the address step), so only the card is
 * asked for. On "Place order" the browser posts the card straight to the card
 * service; the plugin completes the cart after 3-D Secure.
 */
export default function CardServiceForm({
  session,
  notReady,
  backendUrl,
  publishableKey,
}: {
  session: HttpTypes.StorePaymentSession
  notReady: boolean
  backendUrl: string
  publishableKey: string
}) {
  const form = useCardServiceForm({
    backendUrl,
    publishableKey,
    sessionId: notReady ? null : session.id,
  })
  const [number, setNumber] = useState("")
  const [month, setMonth] = useState("")
  const [year, setYear] = useState("")
  const [error, setError] = useState<string | null>(null)
  const [submitting, setSubmitting] = useState(false)
  const brand = cardTypeFor(number)
  const brandLabel = SERVICE_CARD_TYPE_LABELS.find(
    ([value]) => value === brand
  )?.[1]

  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    if (form.status !== "ready") return
    try {
      submitCardServiceForm(form.descriptor, {
        number,
        expiryMonth: month,
        expiryYear: year,
      })
      setSubmitting(true) // the page is leaving for the card service
    } catch (e) {
      setError(
        e instanceof CardServiceStorefrontError
          ? e.message
          : "The payment could not be started. Please try again."
      )
    }
  }

  if (form.status === "error") {
    return (
      <div className="flex flex-col gap-4">
        <ErrorMessage
          error="The payment form could not be loaded. Please try again."
          data-testid="card-form-error"
        />
        <Button
          variant="secondary"
          className="self-start"
          onClick={form.reload}
        >
          Try again
        </Button>
      </div>
    )
  }

  const payUrl = (session.data as { pay_url?: string } | undefined)?.pay_url
  return (
    <form
      onSubmit={onSubmit}
      noValidate
      className="flex flex-col gap-4"
      data-testid="card-form"
    >
      <div className="relative">
        <Input
          label="Card number"
          name="card-number"
          inputMode="numeric"
          autoComplete="cc-number"
          maxLength={23}
          required
          value={number}
          onChange={(e) => {
            setNumber(e.target.value)
            setError(null)
          }}
          error={
            number && !isPotentiallyValidCardNumber(number)
              ? "This card number is not valid. Please check it."
              : null
          }
        />
        <span
          aria-live="polite"
          className="absolute right-4 top-4 text-sm font-medium text-ui-fg-subtle"
          data-testid="card-brand"
        >
          {brandLabel ?? ""}
        </span>
      </div>
      <div className="grid grid-cols-2 gap-4">
        <NativeSelect
          label="Expiry month"
          placeholder="Month (MM)"
          autoComplete="cc-exp-month"
          required
          value={month}
          onChange={(e) => setMonth(e.target.value)}
        >
          {MONTHS.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </NativeSelect>
        <NativeSelect
          label="Expiry year"
          placeholder="Year (YYYY)"
          autoComplete="cc-exp-year"
          required
          value={year}
          onChange={(e) => setYear(e.target.value)}
        >
          {YEARS.map((y) => (
            <option key={y} value={y}>
              {y}
            </option>
          ))}
        </NativeSelect>
      </div>
      <ErrorMessage error={error} data-testid="card-error-message" />
      <Button
        type="submit"
        size="large"
        className="w-full sm:w-auto sm:self-start"
        disabled={notReady || form.status !== "ready"}
        isLoading={submitting || (!notReady && form.status === "loading")}
        data-testid="submit-order-button"
      >
        Place order
      </Button>
      <p className="text-xs text-ui-fg-muted">
        Your card details go straight to the card service; this shop never sees
        them.
        {payUrl ? (
          <>
            {" "}
            Or{" "}
            <a
              href={payUrl}
              className="text-ui-interactive underline"
              data-testid="hosted-page-link"
            >
              pay on the card service&apos;s own page
            </a>
            .
          </>
        ) : null}
      </p>
    </form>
  )
}
