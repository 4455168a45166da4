"use client"

import { HttpTypes } from "@medusajs/types"
import {
  cardTypeFor,
  isPotentiallyValidCardNumber,
  SERVICE_CARD_TYPE_LABELS,
  submitCardServiceForm,
} from "medusa-payment-card-service/storefront"
import { useCardServiceForm } from "medusa-payment-card-service/storefront/react"
import { FormEvent, useState } from "react"
import ErrorMessage from "@modules/checkout/components/error-message"
import Button from "@modules/common/components/button"
import Input from "@modules/common/components/input"
import NativeSelect from "@modules/common/components/native-select"

const MONTHS = Array.from({ length: 12 }, (_, i) => `${i + 1}`.padStart(2, "0"))
const YEARS = Array.from(
  { length: 15 },
  (_, i) => `${new Date().getFullYear() + i}`
)

/**
 * The card form in the storefront's own inputs. The billing fields come
 * filled from the cart's billing address, so only the card is asked for.
 * "Place order" posts the card from the browser straight to the card
 * service; the plugin completes the cart after 3-D Secure.
 */
export default function CardServiceForm(props: {
  session: HttpTypes.StorePaymentSession
  notReady: boolean
  backendUrl: string
  publishableKey: string
}) {
  const { session, notReady, backendUrl, publishableKey } = props
  const form = useCardServiceForm({
    backendUrl,
    publishableKey,
    sessionId: notReady ? null : session.id,
  })
  const [card, setCard] = useState({ number: "", month: "", year: "" })
  const [error, setError] = useState<string | null>(null)
  const [submitting, setSubmitting] = useState(false)
  const brand = SERVICE_CARD_TYPE_LABELS.find(
    ([v]) => v === cardTypeFor(card.number)
  )
  const payUrl = (session.data as { pay_url?: string } | undefined)?.pay_url

  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    if (form.status !== "ready") return
    try {
      submitCardServiceForm(form.descriptor, {
        number: card.number,
        expiryMonth: card.month,
        expiryYear: card.year,
      })
      setSubmitting(true) // the page is leaving for the card service
    } catch (e) {
      setError((e as Error).message) // invalid number, unknown card, past expiry
    }
  }

  if (form.status === "error") {
    return (
      <div className="flex flex-col gap-4">
        <ErrorMessage error="The payment form could not be loaded. Please try again." />
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
  return (
    <form onSubmit={onSubmit} noValidate className="flex flex-col gap-4">
      <div className="relative">
        <Input
          label="Card number"
          name="card-number"
          inputMode="numeric"
          autoComplete="cc-number"
          required
          value={card.number}
          onChange={(e) => setCard({ ...card, number: e.target.value })}
          error={
            !card.number || isPotentiallyValidCardNumber(card.number)
              ? null
              : "This card number is not valid."
          }
        />
        <span
          className="absolute right-4 top-4 text-sm"
          data-testid="card-brand"
        >
          {brand?.[1]}
        </span>
      </div>
      <div className="grid grid-cols-2 gap-4">
        <NativeSelect
          label="Expiry month"
          placeholder="Month (MM)"
          autoComplete="cc-exp-month"
          value={card.month}
          onChange={(e) => setCard({ ...card, month: e.target.value })}
        >
          {MONTHS.map((m) => (
            <option key={m}>{m}</option>
          ))}
        </NativeSelect>
        <NativeSelect
          label="Expiry year"
          placeholder="Year (YYYY)"
          autoComplete="cc-exp-year"
          value={card.year}
          onChange={(e) => setCard({ ...card, year: e.target.value })}
        >
          {YEARS.map((y) => (
            <option key={y}>{y}</option>
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
        them.{" "}
        {payUrl ? (
          <a href={payUrl} className="underline" data-testid="hosted-page-link">
            Or pay on the card service&apos;s own page.
          </a>
        ) : null}
      </p>
    </form>
  )
}
