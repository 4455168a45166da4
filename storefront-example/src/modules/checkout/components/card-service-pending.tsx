"use client"

import {
  paymentFailureMessage,
  pollCardServiceSession,
} from "medusa-payment-card-service/storefront"
import Link from "next/link"
import { useEffect, useState } from "react"

type Shown = "checking" | "review" | "slow" | "error"

/**
 * The result has not reached Medusa yet (the service's callback can come a
 * moment after the browser), or the service has the payment under review.
 * Polls the session; once it is decided, the return route takes over again
 * (it clears the cart cookie for an order, or opens the payment step).
 */
export default function CardServicePending({
  countryCode,
  sessionId,
  backendUrl,
  publishableKey,
}: {
  countryCode: string
  sessionId: string
  backendUrl: string
  publishableKey: string
}) {
  const [shown, setShown] = useState<Shown>("checking")

  useEffect(() => {
    if (!sessionId) {
      setShown("error")
      return
    }
    const controller = new AbortController()
    pollCardServiceSession({
      backendUrl,
      publishableKey,
      sessionId,
      intervalMs: 2000,
      timeoutMs: 60_000,
      signal: controller.signal,
      onUpdate: (s) => {
        // Under review (480): a person decides, possibly much later.
        if (s.outcome === "pending" && s.failure?.code === "480") {
          setShown("review")
          controller.abort()
        }
      },
    }).then(
      (s) => {
        if (s.outcome === "pending") setShown("slow")
        else
          window.location.replace(
            `/${countryCode}/checkout/card-service?session_id=${encodeURIComponent(s.id)}`
          )
      },
      () => {
        if (!controller.signal.aborted) setShown("error")
      }
    )
    return () => controller.abort()
  }, [backendUrl, publishableKey, sessionId, countryCode])

  return (
    <div
      className="mx-auto flex max-w-xl flex-col gap-4 py-8"
      data-testid="payment-pending"
    >
      <h1 className="text-2xl font-semibold">
        {shown === "review"
          ? "Payment under review"
          : "Confirming your payment"}
      </h1>
      <p role="status" data-testid="payment-pending-message">
        {shown === "checking"
          ? "Please wait a moment while we confirm your payment with the card service."
          : shown === "review"
            ? paymentFailureMessage("480")
            : shown === "slow"
              ? "This is taking longer than usual. If your payment went through, you will get an order confirmation by e-mail; please do not pay again before it arrives."
              : "We could not check your payment just now. If it went through, you will get an order confirmation by e-mail."}
      </p>
      {shown !== "checking" ? (
        <Link
          href={`/${countryCode}`}
          className="text-ui-interactive underline"
        >
          Back to the store
        </Link>
      ) : null}
    </div>
  )
}
