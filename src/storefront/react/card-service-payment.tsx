"use client"

import { FormEvent, useEffect, useId, useMemo, useState } from "react"
import {
  cardDigits,
  cardTypeFor,
  isPotentiallyValidCardNumber,
  isValidCardNumber,
  SERVICE_CARD_TYPE_LABELS,
} from "../../lib/card-brands"
import {
  BILLING_FIELD_INFO,
  BILLING_FIELDS,
  BillingField,
  countryTakesState,
} from "../../lib/form-field-rules"
import type { FetchLike } from "../backend-api"
import { submitCardServiceForm, type BillingOverrides } from "../form-submit"
import { CardServiceStorefrontError } from "../storefront-error"
import { useCardServiceForm } from "./use-card-service-form"

export type CardServicePaymentProps = {
  /** The Medusa backend's public URL. */
  backendUrl: string
  /** A publishable API key (header x-publishable-api-key). */
  publishableKey: string
  /** The card-service payment session of the cart (provider pp_card-service_card-service). */
  sessionId: string
  /** Called with every error the shopper sees (loading the form, or a refused card). */
  onError?: (error: CardServiceStorefrontError | Error) => void
  /** The submit button's text. Default "Pay now". */
  submitLabel?: string
  /** Extra class on the root element; every part has a card-service-payment__* class. */
  className?: string
  /** Billing values that win over the cart's prefill (e.g. the storefront's own address form). */
  billing?: BillingOverrides
  /** Show the billing fields as editable inputs (default). False: send the cart's as they are. */
  showBilling?: boolean
  /** First year in the expiry list; defaults to this year. */
  currentYear?: number
  fetch?: FetchLike
}

type BillingValues = Record<BillingField, string>

const MONTHS = Array.from({ length: 12 }, (_, i) =>
  String(i + 1).padStart(2, "0")
)

/**
 * A card form for a custom storefront, unstyled: plain labelled inputs with
 * class names (card-service-payment, card-service-payment__field, ...) for
 * the storefront's CSS. The card data never enters React state that leaves
 * the browser: on submit the fields are posted by submitCardServiceForm as a
 * top-level form submission straight to the card service (section 4.2).
 */
export function CardServicePayment(props: CardServicePaymentProps) {
  const { onError, showBilling = true } = props
  const id = useId()
  const form = useCardServiceForm(props)
  const [number, setNumber] = useState("")
  const [numberTouched, setNumberTouched] = useState(false)
  const [cardType, setCardType] = useState("")
  const [month, setMonth] = useState("")
  const [year, setYear] = useState("")
  const [billing, setBilling] = useState<BillingValues>(() => emptyBilling())
  const [submitError, setSubmitError] = useState<string | null>(null)
  const [submitting, setSubmitting] = useState(false)

  // Prefill the billing inputs from each new descriptor (the cart's address),
  // with the storefront's own values on top.
  useEffect(() => {
    if (form.status !== "ready") return
    const values = emptyBilling()
    for (const name of BILLING_FIELDS) {
      values[name] = props.billing?.[name] ?? form.descriptor.fields[name] ?? ""
    }
    setBilling(values)
    setSubmitting(false)
    // props.billing is read once per descriptor on purpose: re-filling on
    // every render would overwrite what the shopper typed.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [form.descriptor])

  useEffect(() => {
    if (form.status === "error") onError?.(form.error)
  }, [form.status, form.error, onError])

  const brand = cardTypeFor(number)
  const numberError =
    number &&
    (numberTouched
      ? !isValidCardNumber(number)
      : !isPotentiallyValidCardNumber(number))
      ? "This card number is not valid. Please check it."
      : null
  const years = useMemo(() => {
    const first = props.currentYear ?? new Date().getFullYear()
    return Array.from({ length: 16 }, (_, i) => String(first + i))
  }, [props.currentYear])

  const onNumberChange = (value: string) => {
    setNumber(value)
    setSubmitError(null)
    const detected = cardTypeFor(value)
    if (detected) setCardType(detected)
  }

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    if (form.status !== "ready" || submitting) return
    setNumberTouched(true)
    try {
      const overrides: BillingOverrides = showBilling
        ? billing
        : (props.billing ?? {})
      submitCardServiceForm(
        form.descriptor,
        {
          number,
          expiryMonth: month,
          expiryYear: year,
          cardType: cardType || null,
        },
        overrides
      )
      // The browser is leaving for the card service; keep the button disabled.
      setSubmitting(true)
      setSubmitError(null)
    } catch (error) {
      const message =
        error instanceof CardServiceStorefrontError
          ? error.message
          : "The payment could not be started. Please try again."
      setSubmitError(message)
      onError?.(error as Error)
    }
  }

  const rootClass = ["card-service-payment", props.className]
    .filter(Boolean)
    .join(" ")

  if (form.status === "loading") {
    return (
      <div className={rootClass} aria-busy="true">
        <p className="card-service-payment__status" role="status">
          Loading the payment form…
        </p>
      </div>
    )
  }
  if (form.status === "error") {
    const code =
      form.error instanceof CardServiceStorefrontError ? form.error.code : null
    return (
      <div className={rootClass}>
        <p className="card-service-payment__error" role="alert">
          {loadErrorText(code)}
        </p>
        {code !== "already_paid" && code !== "session_not_found" ? (
          <button
            type="button"
            className="card-service-payment__retry"
            onClick={form.reload}
          >
            Try again
          </button>
        ) : null}
      </div>
    )
  }

  const numberId = `${id}-number`
  const numberErrorId = `${id}-number-error`
  const brandId = `${id}-brand`
  const brandLabel = SERVICE_CARD_TYPE_LABELS.find(
    ([value]) => value === brand
  )?.[1]
  const stateAllowed = countryTakesState(billing.country)

  return (
    <form
      className={rootClass}
      onSubmit={onSubmit}
      noValidate
      aria-busy={submitting}
    >
      <fieldset className="card-service-payment__fieldset card-service-payment__card">
        <legend className="card-service-payment__legend">Card</legend>
        <div className="card-service-payment__field">
          <label className="card-service-payment__label" htmlFor={numberId}>
            Card number
          </label>
          <input
            id={numberId}
            className="card-service-payment__input"
            type="text"
            inputMode="numeric"
            autoComplete="cc-number"
            maxLength={23}
            required
            value={number}
            aria-invalid={numberError ? true : false}
            aria-describedby={`${brandId} ${numberErrorId}`}
            onChange={(event) => onNumberChange(event.target.value)}
            onBlur={() => setNumberTouched(cardDigits(number).length > 0)}
          />
          <span
            id={brandId}
            className="card-service-payment__brand"
            aria-live="polite"
          >
            {brandLabel ?? ""}
          </span>
          <span
            id={numberErrorId}
            className="card-service-payment__error"
            role={numberError ? "alert" : undefined}
            hidden={!numberError}
          >
            {numberError ?? ""}
          </span>
        </div>
        <SelectField
          id={`${id}-type`}
          label="Card company"
          placeholder="Choose…"
          options={SERVICE_CARD_TYPE_LABELS}
          value={cardType}
          onChange={setCardType}
        />
        <div className="card-service-payment__row">
          <SelectField
            id={`${id}-month`}
            label="Expiry month"
            autoComplete="cc-exp-month"
            placeholder="MM"
            options={MONTHS.map((m) => [m, m])}
            value={month}
            onChange={setMonth}
          />
          <SelectField
            id={`${id}-year`}
            label="Expiry year"
            autoComplete="cc-exp-year"
            placeholder="YYYY"
            options={years.map((y) => [y, y])}
            value={year}
            onChange={setYear}
          />
        </div>
      </fieldset>
      {showBilling ? (
        <fieldset className="card-service-payment__fieldset card-service-payment__billing">
          <legend className="card-service-payment__legend">
            Cardholder and billing address
          </legend>
          {BILLING_FIELDS.map((name) => {
            const info = BILLING_FIELD_INFO[name]
            if (name === "state" && !stateAllowed && !billing.state) return null
            return (
              <div key={name} className="card-service-payment__field">
                <label
                  className="card-service-payment__label"
                  htmlFor={`${id}-${name}`}
                >
                  {info.label}
                </label>
                <input
                  id={`${id}-${name}`}
                  className="card-service-payment__input"
                  name={name}
                  type={
                    name === "email"
                      ? "email"
                      : name === "phone"
                        ? "tel"
                        : "text"
                  }
                  autoComplete={`billing ${info.autocomplete}`}
                  required={info.required}
                  maxLength={name === "country" ? 2 : undefined}
                  value={billing[name]}
                  onChange={(event) =>
                    setBilling((current) => ({
                      ...current,
                      [name]: event.target.value,
                    }))
                  }
                />
              </div>
            )
          })}
        </fieldset>
      ) : null}
      <p
        className="card-service-payment__error card-service-payment__submit-error"
        role="alert"
        hidden={!submitError}
      >
        {submitError ?? ""}
      </p>
      <button
        type="submit"
        className="card-service-payment__submit"
        disabled={submitting}
      >
        {props.submitLabel ?? "Pay now"}
      </button>
      <p className="card-service-payment__note">
        Your card details go straight to the card service; this shop never sees
        them.
      </p>
    </form>
  )
}

/** A required select of the card fieldset, whose empty first choice means "not chosen yet". */
function SelectField(props: {
  id: string
  label: string
  autoComplete?: string
  placeholder: string
  options: ReadonlyArray<readonly [value: string, label: string]>
  value: string
  onChange: (value: string) => void
}) {
  return (
    <div className="card-service-payment__field">
      <label className="card-service-payment__label" htmlFor={props.id}>
        {props.label}
      </label>
      <select
        id={props.id}
        className="card-service-payment__select"
        autoComplete={props.autoComplete}
        required
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
      >
        <option value="">{props.placeholder}</option>
        {props.options.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </div>
  )
}

function emptyBilling(): BillingValues {
  return Object.fromEntries(
    BILLING_FIELDS.map((name) => [name, ""])
  ) as BillingValues
}

function loadErrorText(code: string | null): string {
  switch (code) {
    case "already_paid":
      return "This payment is already complete. There is nothing more to pay."
    case "session_not_found":
      return "This payment could not be found. Go back to the cart and start the payment again."
    case "session_altered":
      return "This payment can no longer be used. Go back to the cart and start the payment again."
    default:
      return "The payment form could not be loaded. Please try again."
  }
}
