/**
 * The verdict on a reverse, capture, refund or void: field checks (sections
 * 2.3 and 2.4), then the state rules of each kind (section 7). Longer than
 * most files here on purpose: which reason code wins depends on the order of
 * all these checks together, and that order is read and reviewed in one place.
 */
import {
  currencyDigits,
  parseMajorAmount,
  parseVoidAmount,
} from "./amount-rules"
import { decisionFor } from "./reason-lookup"
import { StoredTransaction, TransactionStore } from "./transaction-store"

export type FollowOnKind = "reverse" | "capture" | "refund" | "void"

/** Section 2.5: what reverse, capture, refund and void answer. */
export type OperationResult = {
  decision: "ACCEPT" | "REJECT"
  reasonCode: string
  transactionId: string
  originalTransactionId: string
}

const STEP_OF = {
  reverse: "REVERSAL",
  capture: "CAPTURE",
  refund: "REFUND",
  void: "VOID",
} as const

/** Section 2.3 fields (reverse, capture, refund). */
const FOLLOW_ON_FIELDS = [
  "merchantId",
  "merchantReferenceCode",
  "currency",
  "amount",
  "email",
  "originalTransactionId",
] as const

/** Section 2.4 fields (void). */
const VOID_FIELDS = [
  "merchantId",
  "merchantReferenceCode",
  "currency",
  "amount",
  "email",
  "transactionId",
  "type",
] as const

type Body = Record<string, unknown>

type Checked = {
  reasonCode: string
  /** The transaction the request acts on, when it exists. */
  original?: StoredTransaction
  amountMinor: number
  digits: number | undefined
  apply?: (created: StoredTransaction) => void
}

/**
 * Applies one follow-on request to the store and records it, accepted or
 * not (wire-choices: a rejected request still gets a transactionId).
 */
export function applyFollowOn(
  store: TransactionStore,
  kind: FollowOnKind,
  body: Body,
  merchantId: string
): OperationResult {
  const checked = check(store, kind, body, merchantId)
  const referenced =
    kind === "void" ? body.transactionId : body.originalTransactionId
  const original = checked.original
  const created = store.add({
    merchantId,
    merchantReferenceCode: stringOr(body.merchantReferenceCode),
    originalTransactionId: stringOr(referenced),
    step: STEP_OF[kind],
    reasonCode: checked.reasonCode,
    cardType: original?.cardType ?? "",
    currency: stringOr(body.currency),
    digits: checked.digits,
    amountMinor: checked.amountMinor,
    cardPrefix: original?.cardPrefix ?? "",
    cardSuffix: original?.cardSuffix ?? "",
  })
  if (checked.reasonCode === "100") {
    checked.apply?.(created)
  }
  return {
    decision: decisionFor(checked.reasonCode),
    reasonCode: checked.reasonCode,
    transactionId: created.transactionId,
    originalTransactionId: created.originalTransactionId,
  }
}

function check(
  store: TransactionStore,
  kind: FollowOnKind,
  body: Body,
  merchantId: string
): Checked {
  const fields = kind === "void" ? VOID_FIELDS : FOLLOW_ON_FIELDS
  const rejected = (
    reasonCode: string,
    original?: StoredTransaction
  ): Checked => ({
    reasonCode,
    original,
    digits,
    amountMinor: amountMinor ?? 0,
  })
  const digits = currencyDigits(body.currency)
  const amountMinor =
    digits === undefined
      ? undefined
      : kind === "void"
        ? parseVoidAmount(body.amount, digits)
        : // wire-choices: amount is a JSON number in 2.3; a string is invalid.
          typeof body.amount === "number"
          ? parseMajorAmount(body.amount, digits)
          : undefined

  if (fields.some((name) => isMissing(body[name]))) {
    return rejected("101")
  }
  const textOk = fields.every(
    (name) => name === "amount" || typeof body[name] === "string"
  )
  if (
    !textOk ||
    body.merchantId !== merchantId ||
    (body.merchantReferenceCode as string).length > 50 ||
    !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(body.email as string) ||
    digits === undefined ||
    amountMinor === undefined ||
    (kind === "void" && body.type !== "CAPTURE" && body.type !== "REFUND")
  ) {
    return rejected("102")
  }
  const referenced = (
    kind === "void" ? body.transactionId : body.originalTransactionId
  ) as string
  const original = store.get(referenced)
  if (!original || original.merchantId !== merchantId) {
    return rejected("241")
  }
  const rules = {
    reverse: checkReverse,
    capture: checkCapture,
    refund: checkRefund,
    void: checkVoid,
  }
  const outcome = rules[kind](original, {
    store,
    amountMinor,
    body,
    sameCurrency: original.currency === body.currency,
  })
  return {
    ...outcome,
    original: outcome.original ?? original,
    digits,
    amountMinor,
  }
}

type RuleOutcome = Pick<Checked, "reasonCode" | "apply"> & {
  original?: StoredTransaction
}

/** What the state rules of every kind may weigh besides the transaction acted on. */
type RuleRequest = {
  store: TransactionStore
  amountMinor: number
  body: Body
  /**
   * A follow-on moves money already held in one currency; another currency
   * is an invalid field rather than a state problem.
   */
  sameCurrency: boolean
}

/** The state rules of one follow-on kind, once its fields and target are known. */
type Rule = (target: StoredTransaction, request: RuleRequest) => RuleOutcome

const isApprovedAuthorization = (tx: StoredTransaction) =>
  tx.step === "AUTHORIZATION" && decisionFor(tx.reasonCode) === "ACCEPT"

/**
 * Reverse and capture both act on an approved authorization that is not
 * reversed, in its own currency; they differ only in the code for one that
 * was never approved.
 */
function refuseUnusableAuthorization(
  auth: StoredTransaction,
  sameCurrency: boolean,
  notApprovedCode: string
): RuleOutcome | undefined {
  if (!isApprovedAuthorization(auth)) {
    return { reasonCode: notApprovedCode }
  }
  if (!sameCurrency) {
    return { reasonCode: "102" }
  }
  if (auth.reversed) {
    return { reasonCode: "237" }
  }
  return undefined
}

const checkReverse: Rule = (auth, { store, amountMinor, sameCurrency }) => {
  const refused = refuseUnusableAuthorization(auth, sameCurrency, "241")
  if (refused) {
    return refused
  }
  const capture = auth.activeCaptureId
    ? store.get(auth.activeCaptureId)
    : undefined
  if (capture) {
    // A captured authorization cannot be reversed: once the capture is
    // settled that is 238; while it is pending, 243 (void the capture first).
    return {
      reasonCode:
        store.captureStatus(capture) === "TRANSMITTED" ? "238" : "243",
    }
  }
  // Section 7, 239: a reversal releases the whole authorization.
  return acceptWholeAmount(auth, amountMinor, () => {
    auth.reversed = true
  })
}

const checkCapture: Rule = (auth, { amountMinor, sameCurrency }) => {
  if (auth.step !== "AUTHORIZATION" && auth.step !== "AUTHENTICATION") {
    return { reasonCode: "241" }
  }
  // Section 7, 242: no authorization that succeeded (an authentication-only
  // request or a declined one), or the authorization is already used.
  const refused = refuseUnusableAuthorization(auth, sameCurrency, "242")
  if (refused) {
    return refused
  }
  if (auth.activeCaptureId) {
    return { reasonCode: "242" }
  }
  // A partial capture is allowed; more than authorized is 235.
  if (amountMinor > auth.amountMinor) {
    return { reasonCode: "235" }
  }
  return {
    reasonCode: "100",
    apply: (created) => {
      created.refundedMinor = 0
      auth.activeCaptureId = created.transactionId
      auth.lastCaptureId = created.transactionId
    },
  }
}

const checkRefund: Rule = (target, { store, amountMinor, sameCurrency }) => {
  let capture: StoredTransaction | undefined = target
  // The refund may name the capture or, for convenience, the authorization
  // it captured; both lead to the same capture (docs/sandbox.md).
  if (target.step === "AUTHORIZATION") {
    if (target.reversed) {
      return { reasonCode: "237" }
    }
    capture = target.lastCaptureId ? store.get(target.lastCaptureId) : undefined
  }
  if (
    !capture ||
    capture.step !== "CAPTURE" ||
    decisionFor(capture.reasonCode) !== "ACCEPT"
  ) {
    return { reasonCode: "241" }
  }
  if (!sameCurrency) {
    return { reasonCode: "102" }
  }
  if (capture.voided) {
    return { reasonCode: "247", original: capture }
  }
  // Refunds may repeat, but never above what was captured.
  const refundable = capture.amountMinor - (capture.refundedMinor ?? 0)
  if (amountMinor > refundable) {
    return { reasonCode: "235", original: capture }
  }
  const captured = capture
  return {
    reasonCode: "100",
    original: capture,
    apply: (created) => {
      created.refundOf = captured.transactionId
      captured.refundedMinor = (captured.refundedMinor ?? 0) + amountMinor
    },
  }
}

const checkVoid: Rule = (
  target,
  { store, amountMinor, body, sameCurrency }
) => {
  // Section 2.4 / 8: only a CAPTURE or a REFUND can be voided; anything else
  // is "the transaction type cannot be voided" (246).
  if (target.step !== "CAPTURE" && target.step !== "REFUND") {
    return { reasonCode: "246" }
  }
  if (target.step !== body.type) {
    return { reasonCode: "102" }
  }
  if (!sameCurrency) {
    return { reasonCode: "102" }
  }
  const status = store.captureStatus(target)
  // Not a payout (a declined capture), already voided, or already
  // submitted to the processor: not voidable.
  if (status !== "PENDING") {
    return { reasonCode: "246" }
  }
  if (target.step === "CAPTURE" && (target.refundedMinor ?? 0) > 0) {
    // Voiding a capture with live refunds would leave credits for money never taken.
    return { reasonCode: "246" }
  }
  return acceptWholeAmount(target, amountMinor, () => {
    target.voided = true
    // Both parents exist: an accepted capture names its authorization, an
    // accepted refund records its capture (checkCapture, checkRefund).
    if (target.step === "CAPTURE") {
      // Section 3, VOIDED: "the authorization itself is not deleted", so it
      // can be captured again. A pending capture is always the one in use:
      // a second capture is refused (242) while it is.
      store.get(target.originalTransactionId)!.activeCaptureId = undefined
    } else {
      const capture = store.get(target.refundOf!)!
      capture.refundedMinor = (capture.refundedMinor ?? 0) - target.amountMinor
    }
  })
}

/** Reverse and void act on the whole amount or not at all (section 7, 239). */
function acceptWholeAmount(
  target: StoredTransaction,
  amountMinor: number,
  apply: () => void
): RuleOutcome {
  if (amountMinor !== target.amountMinor) {
    return { reasonCode: "239" }
  }
  return { reasonCode: "100", apply }
}

function isMissing(value: unknown): boolean {
  return value === undefined || value === null || value === ""
}

/** A record's text field (section 2.1: Strings) from whatever the body held. */
function stringOr(value: unknown): string {
  return value === undefined || value === null ? "" : String(value)
}
