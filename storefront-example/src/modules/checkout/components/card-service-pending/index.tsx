"use client"

import {
  paymentFailureMessage,
  pollCardServiceSession,
} from "medusa-payment-card-service/storefront"
import { useEffect, useState } from "react"

const SLOW =
  "This is taking longer than usual. If your payment went through, your order confirmation will follow by e-mail; please do not pay again before it arrives."

/**
 * The result is not in yet, or the card service has the payment under review
 * (480). Polls; once decided, the return route takes over again (it clears
 * the cart cookie for an order, or opens the payment step).
 */
export default function CardServicePending(props: {
  countryCode: string
  sessionId: string
  backendUrl: string
  publishableKey: string
}) {
  const { countryCode, sessionId, backendUrl, publishableKey } = props
  const [message, setMessage] = useState(
    "Please wait a moment while we confirm your payment with the card service."
  )
  useEffect(() => {
    const controller = new AbortController()
    pollCardServiceSession({
      backendUrl,
      publishableKey,
      sessionId,
      timeoutMs: 60_000,
      signal: controller.signal,
      onUpdate: (session) => {
        if (session.outcome === "pending" && session.failure?.code === "480") {
          setMessage(paymentFailureMessage("480"))
          controller.abort()
        }
      },
    }).then(
      (session) =>
        session.outcome === "pending"
          ? setMessage(SLOW)
          : window.location.replace(
              `/${countryCode}/checkout/card-service?session_id=${session.id}`
            ),
      () => controller.signal.aborted || setMessage(SLOW)
    )
    return () => controller.abort()
  }, [countryCode, sessionId, backendUrl, publishableKey])

  return (
    <div className="mx-auto flex max-w-xl flex-col gap-4 py-8">
      <h1 className="text-2xl font-semibold">Your payment</h1>
      <p role="status" data-testid="payment-pending-message">
        {message}
      </p>
    </div>
  )
}
