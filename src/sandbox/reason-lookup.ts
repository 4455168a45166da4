import { describeReasonCode } from "../lib/reason-codes"

/** The history-record status of section 2.1, derived from the reply flag of section 7. */
export type RecordStatus = "successful" | "declined" | "error"

/**
 * The status and message a record carries for a reason code. The table itself
 * lives once in src/lib/reason-codes.ts (section 7); the sandbox only reads it.
 */
export function describeOutcome(reasonCode: string): {
  status: RecordStatus
  message: string
} {
  const entry = describeReasonCode(reasonCode)
  const letter = entry.flag?.charAt(0)
  // wire-choices "History records": status comes from the flag letter S/D/E.
  // Codes without a flag (490, 491) refuse the transaction, so they read as declined.
  const status: RecordStatus =
    letter === "S" ? "successful" : letter === "E" ? "error" : "declined"
  return { status, message: entry.meaning }
}

export function decisionFor(reasonCode: string): "ACCEPT" | "REJECT" {
  // Section 7: 100 is success; 110 approves a smaller amount, which is still an approval.
  return reasonCode === "100" || reasonCode === "110" ? "ACCEPT" : "REJECT"
}
