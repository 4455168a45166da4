"use client"

import {
  ChangeEvent,
  ComponentType,
  FormEvent,
  ReactNode,
  useEffect,
  useId,
  useMemo,
  useState,
} from "react"
import {
  cardTypeFor,
  isPotentiallyValidCardNumber,
  isValidCardNumber,
  SERVICE_CARD_TYPE_LABELS,
} from "../../lib/card-brands"
import type { FetchLike } from "../backend-api"
import { submitCardServiceForm } from "../form-submit"
import { cardServicePaymentError, isCardService } from "../payment-step"
import { useCardServiceForm } from "./use-card-service-form"

/**
 * The storefront's own UI components, passed in so the card form looks like
 * the rest of its checkout. The prop shapes are the ones Medusa's Next.js
 * starter's kit takes (`@modules/common/components/ui` and its `Input`,
 * `NativeSelect`, `ErrorMessage`); any components that accept these props fit.
 */
export type CardServiceKit = {
  Button: ComponentType<{
    type?: "submit" | "button"
    size?: "large"
    variant?: "secondary"
    isLoading?: boolean
    disabled?: boolean
    onClick?: () => void
    className?: string
    children?: ReactNode
    "data-testid"?: string
  }>
  ErrorMessage?: ComponentType<{
    error?: string | null
    "data-testid"?: string
  }>
}

export type CardServiceFormKit = CardServiceKit & {
  ErrorMessage: NonNullable<CardServiceKit["ErrorMessage"]>
  Input: ComponentType<{
    label: string
    name: string
    id?: string
    value?: string
    onChange?: (event: ChangeEvent<HTMLInputElement>) => void
    onBlur?: () => void
    inputMode?: "numeric"
    autoComplete?: string
    required?: boolean
    "aria-invalid"?: boolean
    "aria-describedby"?: string
    "data-testid"?: string
  }>
  NativeSelect: ComponentType<{
    id?: string
    name?: string
    placeholder?: string
    value?: string
    onChange?: (event: ChangeEvent<HTMLSelectElement>) => void
    autoComplete?: string
    required?: boolean
    children?: ReactNode
    "data-testid"?: string
  }>
  Label?: ComponentType<{
    htmlFor?: string
    className?: string
    children?: ReactNode
  }>
}

type SessionLike = {
  id: string
  provider_id: string
  status?: string
  data?: Record<string, unknown> | null
}

/** The parts of a store API cart (HttpTypes.StoreCart) the components read. */
export type CartLike = {
  email?: string | null
  shipping_address?: object | null
  billing_address?: object | null
  shipping_methods?: unknown[] | null
  payment_collection?: { payment_sessions?: SessionLike[] | null } | null
}

type CommonProps = {
  /** The cart; its card-service payment session is the one paid. */
  cart: CartLike
  /** The place-order button's text. Default "Place order". */
  submitLabel?: string
  /** The place-order button's test id. Default "submit-order-button", the starter's. */
  "data-testid"?: string
}

export type CardServiceFormProps = CommonProps & {
  ui: CardServiceFormKit
  /** Defaults to NEXT_PUBLIC_MEDUSA_BACKEND_URL (inlined at build time by Next). */
  backendUrl?: string
  /** Defaults to NEXT_PUBLIC_MEDUSA_PUBLISHABLE_KEY (inlined at build time by Next). */
  publishableKey?: string
  /** The first year in the expiry list; defaults to this year. */
  currentYear?: number
  fetch?: FetchLike
}

export type CardServicePayButtonProps = CommonProps & { ui: CardServiceKit }

const MONTHS = Array.from({ length: 12 }, (_, i) =>
  String(i + 1).padStart(2, "0")
)

// Layout only; the look comes from the kit. Inline, because a CSS framework
// such as the starter's Tailwind generates no class it does not find in the
// store's own sources.
const column = {
  display: "flex",
  flexDirection: "column",
  gap: "1rem",
} as const
const pair = {
  display: "grid",
  gridTemplateColumns: "1fr 1fr",
  gap: "1rem",
} as const
const small = {
  fontSize: "0.75rem",
  lineHeight: "1.25rem",
  opacity: 0.75,
} as const

/**
 * The card form of the review step, built from the storefront's own
 * components. Only the card is asked for: the billing fields come filled
 * from the cart's billing address. "Place order" posts the card from the
 * browser straight to the card service (section 4.2); the plugin completes
 * the cart after 3-D Secure, so the storefront does not call placeOrder.
 */
export function CardServiceForm(props: CardServiceFormProps) {
  const { ui } = props
  const { Input, NativeSelect, Button, ErrorMessage } = ui
  const { session, notReady } = checkoutState(props.cart)
  const id = useId()
  const form = useCardServiceForm({
    backendUrl:
      props.backendUrl ?? process.env.NEXT_PUBLIC_MEDUSA_BACKEND_URL ?? "",
    publishableKey:
      props.publishableKey ??
      process.env.NEXT_PUBLIC_MEDUSA_PUBLISHABLE_KEY ??
      "",
    sessionId: notReady || !session ? null : session.id,
    fetch: props.fetch,
  })
  const [card, setCard] = useState({ number: "", month: "", year: "" })
  const [touched, setTouched] = useState(false)
  const [error, setError] = useReturnedFailure()
  const [submitting, setSubmitting] = useState(false)
  const years = useMemo(() => {
    const first = props.currentYear ?? new Date().getFullYear()
    return Array.from({ length: 15 }, (_, i) => String(first + i))
  }, [props.currentYear])
  const brand = SERVICE_CARD_TYPE_LABELS.find(
    ([v]) => v === cardTypeFor(card.number)
  )
  const numberError =
    card.number &&
    !(touched
      ? isValidCardNumber(card.number)
      : isPotentiallyValidCardNumber(card.number))
      ? "This card number is not valid. Please check it."
      : null
  const payUrl = hostedPageUrl(session)

  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    if (form.status !== "ready" || submitting) return
    setTouched(true)
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

  if (!session) {
    return (
      <ErrorMessage
        error="This payment cannot be used. Please choose your payment method again."
        data-testid="card-form-error-message"
      />
    )
  }
  if (form.status === "error") {
    return (
      <div style={column}>
        <ErrorMessage
          error="The payment form could not be loaded. Please try again."
          data-testid="card-form-error-message"
        />
        <div>
          <Button variant="secondary" onClick={form.reload}>
            Try again
          </Button>
        </div>
      </div>
    )
  }
  // An expiry select with a label that stays when a value is chosen (the
  // starter's NativeSelect has only a placeholder).
  const expiry = (
    part: "month" | "year",
    label: string,
    placeholder: string,
    values: string[]
  ) => (
    <div style={{ ...column, gap: "0.5rem" }}>
      {ui.Label ? (
        <ui.Label htmlFor={`${id}-${part}`}>{label}</ui.Label>
      ) : (
        <label htmlFor={`${id}-${part}`} style={small}>
          {label}
        </label>
      )}
      <NativeSelect
        id={`${id}-${part}`}
        name={`card-expiry-${part}`}
        placeholder={placeholder}
        autoComplete={`cc-exp-${part}`}
        required
        value={card[part]}
        onChange={(e) => setCard({ ...card, [part]: e.target.value })}
      >
        {values.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </NativeSelect>
    </div>
  )
  return (
    <form onSubmit={onSubmit} noValidate style={column}>
      <div>
        <div style={{ position: "relative" }}>
          <Input
            label="Card number"
            name="card-number"
            // The starter's Input labels its input by name (htmlFor={name}).
            id="card-number"
            inputMode="numeric"
            autoComplete="cc-number"
            required
            value={card.number}
            onChange={(e) => {
              setError(null)
              setCard({ ...card, number: e.target.value })
            }}
            onBlur={() => setTouched(true)}
            aria-invalid={!!numberError}
          />
          <span
            style={{
              position: "absolute",
              right: "1rem",
              top: "0.75rem",
              fontSize: "0.875rem",
            }}
            data-testid="card-brand"
          >
            {brand?.[1]}
          </span>
        </div>
        <ErrorMessage error={numberError} data-testid="card-number-error" />
      </div>
      <div style={pair}>
        {expiry("month", "Expiry month", "MM", MONTHS)}
        {expiry("year", "Expiry year", "YYYY", years)}
      </div>
      <ErrorMessage error={error} data-testid="card-error-message" />
      <div>
        <Button
          type="submit"
          size="large"
          disabled={notReady || form.status !== "ready"}
          isLoading={submitting || (!notReady && form.status === "loading")}
          data-testid={props["data-testid"] ?? "submit-order-button"}
        >
          {props.submitLabel ?? "Place order"}
        </Button>
      </div>
      <p style={small}>
        Your card details go straight to the card service; this shop never sees
        them.
        {payUrl ? (
          <>
            {" "}
            <a
              href={payUrl}
              style={{ textDecoration: "underline" }}
              data-testid="hosted-page-link"
            >
              Or pay on the card service&apos;s own page.
            </a>
          </>
        ) : null}
      </p>
    </form>
  )
}

/**
 * The hosted-page variant: a "Place order" button that sends the shopper to
 * the plugin's payment page for the session (card fields, 3-D Secure, then
 * back through the return route). No card form in the storefront at all.
 */
export function CardServicePayButton(props: CardServicePayButtonProps) {
  const { Button, ErrorMessage = PlainError } = props.ui
  const { session, notReady } = checkoutState(props.cart)
  const [leaving, setLeaving] = useState(false)
  const [failure] = useReturnedFailure()
  const payUrl = hostedPageUrl(session)
  return (
    <>
      <ErrorMessage error={failure} data-testid="card-error-message" />
      <Button
        size="large"
        disabled={notReady || !payUrl}
        isLoading={leaving}
        onClick={() => {
          setLeaving(true)
          window.location.assign(payUrl!)
        }}
        data-testid={props["data-testid"] ?? "submit-order-button"}
      >
        {props.submitLabel ?? "Place order"}
      </Button>
    </>
  )
}

/**
 * The cart's card-service session (the one a shopper can still pay on), and
 * the starter's own `notReady`: the plugin turns the cart into an order as
 * soon as the payment is confirmed, so address, e-mail and delivery must be
 * there before the shopper pays.
 */
function checkoutState(cart: CartLike): {
  session: SessionLike | null
  notReady: boolean
} {
  const sessions = (cart.payment_collection?.payment_sessions ?? []).filter(
    (s) => isCardService(s.provider_id)
  )
  const session =
    sessions.find(
      (s) => s.status === "pending" || s.status === "requires_more"
    ) ??
    sessions[0] ??
    null
  const notReady =
    !cart.shipping_address ||
    !cart.billing_address ||
    !cart.email ||
    (cart.shipping_methods?.length ?? 0) < 1
  return { session, notReady }
}

/**
 * The failure the return route sent the shopper back with
 * (`?payment_error=<code>`), as the shopper's sentence. Read after mount, so
 * the server's render and the browser's first one agree.
 */
function useReturnedFailure() {
  const [message, setMessage] = useState<string | null>(null)
  useEffect(() => {
    setMessage(
      cardServicePaymentError(new URLSearchParams(window.location.search))
    )
  }, [])
  return [message, setMessage] as const
}

function PlainError(props: { error?: string | null; "data-testid"?: string }) {
  return props.error ? (
    <p role="alert" data-testid={props["data-testid"]}>
      {props.error}
    </p>
  ) : null
}

function hostedPageUrl(session: SessionLike | null): string | null {
  const url = session?.data?.pay_url
  return typeof url === "string" && /^https?:\/\//.test(url) ? url : null
}
