import type { PaymentAction } from "./payment-followups"
import type { ReconcileNote } from "../payment-notes/session-notes"

/** One thing the sweep did or found, as it logs it and the admin shows it. */
export type SessionAction = {
  session_id: string
  status: ReconcileNote["status"]
  message: string
}
export type SweepAction = SessionAction | PaymentAction

export type SweepResult = {
  examined: number
  actions: SweepAction[]
  /** The service could not be reached; the caller backs off. */
  serviceDown: boolean
}
