import type { MedusaResponse } from "@medusajs/framework/http"
import {
  CardServiceError,
  type CardServiceErrorCategory,
} from "../../../lib/card-service-error"

/**
 * What the admin routes answer when the card service itself failed (as
 * opposed to refusing a request): the client's category, a lead sentence an
 * operator can act on, and the client's message (which the client scrubs of
 * secrets and card numbers). Medusa's MedusaError types have no 502/503, and
 * a dashboard must tell "service down" apart from "bad request", so these
 * answers are written directly.
 */
const FAILURES: Partial<
  Record<CardServiceErrorCategory, { status: number; lead: string }>
> = {
  service_error: { status: 503, lead: "The card service is unavailable" },
  timeout: { status: 503, lead: "The card service did not answer in time" },
  credentials: {
    status: 502,
    lead: "The card service refused this store's credentials (check clientCode, clientSecret, verifyId and merchantId)",
  },
  invalid_response: {
    status: 502,
    lead: "The card service answered something unexpected",
  },
  indeterminate: {
    status: 502,
    lead: "The card service did not answer, so the outcome is unknown",
  },
}

export type ServiceFailureBody = {
  type: "card_service_unavailable" | "card_service_failed"
  category: CardServiceErrorCategory
  message: string
}

/** True when the error means "the service failed", not "the service said no". */
export function isServiceFailure(error: unknown): error is CardServiceError {
  return CardServiceError.is(error) && FAILURES[error.category] !== undefined
}

export function serviceFailure(error: CardServiceError): {
  status: number
  body: ServiceFailureBody
} {
  const failure = FAILURES[error.category] ?? {
    status: 502,
    lead: "The card service failed",
  }
  return {
    status: failure.status,
    body: {
      type:
        failure.status === 503
          ? "card_service_unavailable"
          : "card_service_failed",
      category: error.category,
      message: `${failure.lead}. ${error.message}`,
    },
  }
}

export function sendServiceFailure(
  res: MedusaResponse,
  error: CardServiceError
): void {
  const { status, body } = serviceFailure(error)
  res.status(status).json(body)
}
