import { MedusaError } from "@medusajs/framework/utils"
import type { Logger } from "@medusajs/framework/types"
import { CardServiceError } from "../../lib/card-service-error"

/**
 * A failure on the way to the card service, as the MedusaError whose type
 * gives the right HTTP answer (Medusa maps INVALID_DATA to 400, NOT_ALLOWED
 * to 400, UNEXPECTED_STATE to 500). The message never carries more than the
 * client's error does, which holds no secrets or card data; what only the
 * store owner needs goes to the log.
 */
export function toMedusaError(
  error: unknown,
  operation: string,
  logger: Logger
): MedusaError {
  if (error instanceof MedusaError) return error
  if (!(error instanceof CardServiceError)) {
    logger.error(`card-service: ${operation} failed: ${messageOf(error)}`)
    return new MedusaError(
      MedusaError.Types.UNEXPECTED_STATE,
      `card-service: ${operation} failed unexpectedly`
    )
  }
  switch (error.category) {
    case "invalid_request":
      return new MedusaError(
        MedusaError.Types.INVALID_DATA,
        `card-service: ${error.message}`
      )
    case "declined":
    case "not_allowed_in_state":
      return new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        `card-service: ${error.message}`
      )
    case "indeterminate":
      logger.error(`card-service: ${error.message}`)
      return new MedusaError(
        MedusaError.Types.UNEXPECTED_STATE,
        `card-service: the outcome of the ${operation} is unknown (the service did not answer). Check the payment in the card-service panel of the order before trying again.`
      )
    default:
      logger.error(`card-service: ${error.message}`)
      return new MedusaError(
        MedusaError.Types.UNEXPECTED_STATE,
        `card-service: ${error.message}`
      )
  }
}

/** Whether the service refused with one of these reason codes (section 7). */
export function isReason(
  error: unknown,
  codes: ReadonlySet<string>
): error is CardServiceError & { reasonCode: string } {
  return (
    error instanceof CardServiceError &&
    error.reasonCode !== undefined &&
    codes.has(error.reasonCode)
  )
}

/** Whether a money operation may or may not have happened (no answer after sending). */
export function isIndeterminate(error: unknown): error is CardServiceError {
  return error instanceof CardServiceError && error.category === "indeterminate"
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
