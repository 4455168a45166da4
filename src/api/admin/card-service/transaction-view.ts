import { CardServiceError } from "../../../lib/card-service-error"
import type { CardServiceClient } from "../../../lib/card-service-client"
import { fromNumericCurrency } from "../../../lib/iso-codes"
import { describeReasonCode } from "../../../lib/reason-codes"
import type { TransactionRecord } from "../../../lib/wire-schemas"
import type {
  CardServiceSessionData,
  Operation,
  TransactionLogEntry,
} from "../../../providers/card-service/session-data"
import type { TransactionRow } from "./response-types"
import { isServiceFailure } from "./service-failure"

const OPERATION_BY_STEP: Record<string, Operation> = {
  AUTHORIZATION: "authorization",
  AUTHENTICATION: "authorization",
  CAPTURE: "capture",
  REFUND: "refund",
  VOID: "void",
  REVERSAL: "reversal",
}

/**
 * Every service transaction the payment's data names, each read from the
 * service's own record (section 4.5): payment.data is only the index, the
 * record is the truth (house style: Vendure). The service offers no search by
 * reference, so a transaction that payment.data does not name is not shown.
 *
 * Throws the client's error when the service cannot be asked at all; a
 * transaction the service does not know becomes a row with a problem.
 */
export async function transactionRows(
  client: CardServiceClient,
  session: CardServiceSessionData
): Promise<TransactionRow[]> {
  const entries = logEntries(session)
  const ids = [
    ...new Set(
      entries.flatMap((e) => (e.transaction_id ? [e.transaction_id] : []))
    ),
  ]
  const settled = await Promise.allSettled(ids.map((id) => client.retrieve(id)))
  const records = new Map<string, TransactionRecord | Error>()
  settled.forEach((outcome, index) => {
    if (outcome.status === "fulfilled") {
      records.set(ids[index], outcome.value)
      return
    }
    if (isServiceFailure(outcome.reason)) throw outcome.reason
    records.set(ids[index], outcome.reason as Error)
  })

  const seen = new Set<string>()
  const rows: TransactionRow[] = []
  for (const entry of entries) {
    if (entry.transaction_id) {
      if (seen.has(entry.transaction_id)) continue
      seen.add(entry.transaction_id)
    }
    const found = entry.transaction_id
      ? records.get(entry.transaction_id)
      : undefined
    rows.push(
      toRow(entry, found instanceof Error ? found : (found ?? null), session)
    )
  }
  return rows.map((row) => withVoidability(row, rows, session))
}

/** The log, with the approval and the capture first added when the log does not name them. */
function logEntries(session: CardServiceSessionData): TransactionLogEntry[] {
  const entries = [...session.transactions]
  const named = (id: string) => entries.some((e) => e.transaction_id === id)
  if (
    session.capture?.transaction_id &&
    !named(session.capture.transaction_id)
  ) {
    entries.unshift({
      transaction_id: session.capture.transaction_id,
      operation: "capture",
      decision: "ACCEPT",
      reason_code: null,
      amount: session.capture.amount,
      at: "",
    })
  }
  if (session.transaction_id && !named(session.transaction_id)) {
    entries.unshift({
      transaction_id: session.transaction_id,
      operation: "authorization",
      decision: "ACCEPT",
      reason_code: null,
      amount: session.amount,
      at: "",
    })
  }
  return entries
}

function toRow(
  entry: TransactionLogEntry,
  record: TransactionRecord | Error | null,
  session: CardServiceSessionData
): TransactionRow {
  const base: TransactionRow = {
    transaction_id: entry.transaction_id,
    operation: entry.operation,
    step: null,
    status: null,
    reason: entry.reason_code ? reasonOf(entry.reason_code) : null,
    capture_status: null,
    amount: entry.amount,
    currency_code: session.currency_code,
    card: session.card ? cardOf(session.card.type, session.card.suffix) : null,
    original_transaction_id: null,
    recorded_at: entry.at || null,
    voided: entry.voided === true,
    voidable: false,
    not_voidable_reason: null,
    problem: null,
    no_record: false,
    unknown_refund_id:
      entry.operation === "refund" && entry.decision === "UNKNOWN"
        ? (entry.key ?? null)
        : null,
  }
  if (!entry.transaction_id) {
    return {
      ...base,
      problem:
        entry.decision === "UNKNOWN"
          ? "The service did not answer this request; its outcome is unknown"
          : "The service did not name this transaction, so its record cannot be read",
    }
  }
  if (record instanceof Error) {
    const notFound = CardServiceError.isNotFound(record)
    return {
      ...base,
      no_record: notFound,
      problem: notFound
        ? "The service has no record of this transaction"
        : `The service's record could not be read: ${record.message}`,
    }
  }
  if (!record) return base
  return {
    ...base,
    operation: OPERATION_BY_STEP[record.step] ?? entry.operation,
    step: record.step,
    status: record.status,
    reason: reasonOf(record.reasonCode),
    capture_status: record.captureStatus ?? null,
    amount: record.amount,
    currency_code: currencyOf(record.currencyCode, session.currency_code),
    card: cardOf(record.cardType, record.cardSuffix),
    original_transaction_id: record.originalTransactionId || null,
    voided: base.voided || record.captureStatus === "VOIDED",
  }
}

/**
 * Offered only where the service would accept the void (section 2.4 and the
 * 246 rule): a successful CAPTURE or REFUND that is still PENDING and not
 * voided, and for a capture, no refund of it still standing.
 */
function withVoidability(
  row: TransactionRow,
  rows: TransactionRow[],
  session: CardServiceSessionData
): TransactionRow {
  if (row.step !== "CAPTURE" && row.step !== "REFUND") return row
  const refuse = (reason: string) => ({
    ...row,
    voidable: false,
    not_voidable_reason: reason,
  })
  if (row.voided) return refuse("Already voided")
  if (row.status !== "successful")
    return refuse("The service did not accept this transaction")
  if (row.capture_status === "TRANSMITTED") {
    return refuse(
      row.step === "CAPTURE"
        ? "Already sent to the processor; refund it instead"
        : "Already sent to the processor"
    )
  }
  if (row.capture_status !== "PENDING") {
    return refuse(`Not voidable in state ${row.capture_status ?? "unknown"}`)
  }
  if (row.step === "CAPTURE") {
    const standingRefund = rows.some(
      (other) =>
        other.step === "REFUND" &&
        other.status === "successful" &&
        !other.voided &&
        (other.original_transaction_id === row.transaction_id ||
          session.capture?.transaction_id === row.transaction_id)
    )
    if (standingRefund)
      return refuse("It has refunds that are not voided; void those first")
  }
  return { ...row, voidable: true, not_voidable_reason: null }
}

function reasonOf(code: string) {
  const { flag, meaning } = describeReasonCode(code)
  return { code, flag, meaning }
}

/** Brand and the last digits only; the service never returns more than prefix and suffix. */
function cardOf(brand: string, suffix: string) {
  return { brand, masked: `•••• ${suffix}` }
}

function currencyOf(numeric: string, fallback: string): string {
  try {
    return fromNumericCurrency(numeric)
  } catch {
    return fallback
  }
}
