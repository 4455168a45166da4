import { CardServiceError } from "../lib/card-service-error"

/** Whether an error says the card service is unreachable or failing: the sweep stops and backs off. */
export function isServiceDown(error: unknown): boolean {
  return (
    CardServiceError.is(error) &&
    (error.category === "service_error" ||
      error.category === "timeout" ||
      (error.httpStatus !== undefined && error.httpStatus >= 500))
  )
}
