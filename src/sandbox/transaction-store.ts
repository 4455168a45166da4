import { randomBytes, randomInt } from "node:crypto"
import { minorToMajor } from "./amount-rules"
import { isMastercardType } from "./card-rules"
import { decisionFor, describeOutcome, RecordStatus } from "./reason-lookup"

/** wire-choices "History records": the step of each kind of request. */
export type Step =
  | "AUTHORIZATION"
  | "AUTHENTICATION"
  | "REVERSAL"
  | "CAPTURE"
  | "REFUND"
  | "VOID"

export type CaptureStatus = "PENDING" | "TRANSMITTED" | "VOIDED" | "TRXN_ERROR"

/** The history record of section 2.1, as payment retrieve answers it. */
export type TransactionRecord = {
  merchantReferenceCode: string
  transactionId: string
  originalTransactionId: string
  step: Step
  reasonCode: string
  status: RecordStatus
  captureStatus?: CaptureStatus
  message: string
  approvalCode: string
  cardType: string
  currencyCode: string
  amount: number
  cardPrefix?: string
  cardSuffix: string
}

/** What the sandbox keeps per transaction. There is no card number here, by design. */
export type StoredTransaction = {
  transactionId: string
  merchantId: string
  merchantReferenceCode: string
  originalTransactionId: string
  step: Step
  reasonCode: string
  approvalCode: string
  cardType: string
  currency: string
  /** Minor-unit digits of the currency; undefined when the request's currency was invalid. */
  digits: number | undefined
  amountMinor: number
  cardPrefix: string
  cardSuffix: string
  createdAt: number
  /** Authorization: set by an accepted reverse. */
  reversed?: boolean
  /** Authorization: the capture that currently uses it (cleared when that capture is voided). */
  activeCaptureId?: string
  /** Authorization: the last capture accepted against it, voided or not. */
  lastCaptureId?: string
  /** Capture: total of its refunds that are not voided. */
  refundedMinor?: number
  /** Refund: the capture it credits (the request may have named the authorization). */
  refundOf?: string
  /** Capture or refund: set when a void was accepted. */
  voided?: boolean
  /** Capture or refund: the processor refused it after acceptance (a test control sets it). */
  transmissionFailed?: boolean
}

export type NewTransaction = Omit<
  StoredTransaction,
  "transactionId" | "createdAt" | "approvalCode"
> & { approvalCode?: string }

export class TransactionStore {
  private readonly byId = new Map<string, StoredTransaction>()

  constructor(
    private readonly now: () => number,
    private readonly settlementMs: () => number
  ) {}

  add(input: NewTransaction): StoredTransaction {
    const approved =
      input.step === "AUTHORIZATION" &&
      decisionFor(input.reasonCode) === "ACCEPT"
    const stored: StoredTransaction = {
      ...input,
      approvalCode:
        input.approvalCode ??
        (approved ? String(randomInt(0, 1_000_000)).padStart(6, "0") : ""),
      transactionId: this.nextId(),
      createdAt: this.now(),
    }
    this.byId.set(stored.transactionId, stored)
    return stored
  }

  get(transactionId: string): StoredTransaction | undefined {
    return this.byId.get(transactionId)
  }

  all(): StoredTransaction[] {
    return [...this.byId.values()]
  }

  clear(): void {
    this.byId.clear()
  }

  /**
   * Section 3 leaves transitions "not shown"; wire-choices fixes them: an
   * accepted capture or refund is PENDING, becomes TRANSMITTED once the
   * settlement time has passed (computed from the clock when asked, so tests
   * move time instead of waiting), and VOIDED after a void.
   */
  captureStatus(tx: StoredTransaction): CaptureStatus | undefined {
    if (tx.step !== "CAPTURE" && tx.step !== "REFUND") {
      return undefined
    }
    if (decisionFor(tx.reasonCode) !== "ACCEPT") {
      return undefined
    }
    if (tx.voided) {
      return "VOIDED"
    }
    if (tx.transmissionFailed) {
      return "TRXN_ERROR"
    }
    return this.now() >= tx.createdAt + this.settlementMs()
      ? "TRANSMITTED"
      : "PENDING"
  }

  toRecord(tx: StoredTransaction): TransactionRecord {
    const { status, message } = describeOutcome(tx.reasonCode)
    const record: TransactionRecord = {
      merchantReferenceCode: tx.merchantReferenceCode,
      transactionId: tx.transactionId,
      originalTransactionId: tx.originalTransactionId,
      step: tx.step,
      reasonCode: tx.reasonCode,
      status,
      message,
      approvalCode: tx.approvalCode,
      cardType: tx.cardType,
      currencyCode: tx.currency,
      amount:
        tx.digits === undefined ? 0 : minorToMajor(tx.amountMinor, tx.digits),
      cardSuffix: tx.cardSuffix,
    }
    const captureStatus = this.captureStatus(tx)
    if (captureStatus) {
      record.captureStatus = captureStatus
    }
    // Section 2.1: the leading digits are not returned for MASTERCARD.
    if (!isMastercardType(tx.cardType)) {
      record.cardPrefix = tx.cardPrefix
    }
    return record
  }

  private nextId(): string {
    return newTransactionId(Date.now())
  }
}

/**
 * A transaction id as a processor issues one: numeric, and not guessable
 * from any other (issue 13: a timestamp and a sequence were enumerated in
 * seconds). 52 digits: the creation time in milliseconds (13 digits, so ids
 * still sort by creation) and 128 random bits (39 digits). The interface
 * shows no length; the plugin takes up to 64 characters.
 */
export function newTransactionId(nowMs: number): string {
  const random = BigInt(`0x${randomBytes(16).toString("hex")}`)
  return `${String(Math.floor(nowMs)).padStart(13, "0")}${random.toString().padStart(39, "0")}`
}

/**
 * Section 8: a merchantReferenceCode equal to one sent in the last 15 minutes
 * is declined with 104. Times come from the injectable clock.
 */
export class ReferenceWindow {
  static readonly WINDOW_MS = 15 * 60 * 1000
  private readonly seenAt = new Map<string, number>()

  constructor(private readonly now: () => number) {}

  /** True when the reference was seen within the window; otherwise remembers it now. */
  isDuplicate(merchantId: string, reference: string): boolean {
    const key = `${merchantId}\u0000${reference}`
    const at = this.seenAt.get(key)
    const now = this.now()
    if (at !== undefined && now - at < ReferenceWindow.WINDOW_MS) {
      return true
    }
    this.seenAt.set(key, now)
    return false
  }

  clear(): void {
    this.seenAt.clear()
  }
}
