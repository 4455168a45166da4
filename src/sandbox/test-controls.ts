import { randomBytes } from "node:crypto"
import { currencyDigits, parseMajorAmount } from "./amount-rules"
import {
  CallbackDelivery,
  CallbackDispatcher,
  CallbackKnobs,
  DEFAULT_CALLBACK_KNOBS,
} from "./callback-delivery"
import { brandOfNumber } from "./card-rules"
import { AnswerHolds, FaultQueue, FaultSpec, HoldSpec } from "./fault-knobs"
import { approvedAmount } from "./payment-result"
import { RequestLog, SandboxRequest } from "./request-log"
import { RetrieveTally } from "./request-tally"
import { OpenReview, ReviewDesk, ReviewVerdict } from "./review-desk"
import { SandboxContext } from "./sandbox-context"
import {
  CodeScoping,
  DEFAULT_CREDENTIALS,
  SandboxCredentials,
  SandboxOptions,
  SILENT_LOGGER,
} from "./sandbox-options"
import { NetworkLatency, NO_LATENCY } from "./network-latency"
import { ChallengeSessions, VerificationCodes } from "./session-store"
import { DEFAULT_CARD_BEHAVIOUR, findTestCard } from "./test-cards"
import {
  ReferenceWindow,
  TransactionRecord,
  TransactionStore,
} from "./transaction-store"

/**
 * The in-process API that tests, scripts and the benchmark drive: the clock,
 * callback knobs, faults, inspection of what happened, and set-up shortcuts.
 * It owns the sandbox's state and hands it to the endpoint handlers as one
 * SandboxContext; CardServiceSandbox adds the HTTP listener on top.
 */
export class SandboxTestControls {
  readonly credentials: SandboxCredentials
  /** Global callback knobs; assign fields at runtime (`sandbox.callbackKnobs.retries = 0`). */
  readonly callbackKnobs: CallbackKnobs
  settlementMs: number
  verificationTtlMs: number
  challengeTtlMs: number
  /**
   * Reviews (480) conclude on their own this long after the result, with the
   * card's planned verdict; undefined: only by concludeReview. Can be changed
   * at runtime; a review opened before the change keeps its timer.
   */
  reviewAfterMs: number | undefined
  /** What a code posted in a form is good for (CodeScoping); can be changed at runtime. */
  codeScoping: CodeScoping
  /** The round trip every request waits before it is handled (network-latency.ts); setLatency changes it. */
  readonly latency: NetworkLatency

  protected readonly context: SandboxContext
  protected readonly requestLog = new RequestLog()
  private readonly knobsByReference = new Map<string, Partial<CallbackKnobs>>()
  private readonly defaultCallbackFormat: "json" | "form"
  private clockBase: () => number
  private clockOffset = 0

  constructor(protected readonly options: SandboxOptions = {}) {
    this.credentials = { ...DEFAULT_CREDENTIALS, ...options.credentials }
    this.settlementMs = options.settlementMs ?? 5 * 60 * 1000
    this.verificationTtlMs = options.verificationTtlMs ?? 30 * 60 * 1000
    this.challengeTtlMs = options.challengeTtlMs ?? 30 * 60 * 1000
    this.codeScoping = options.codeScoping ?? "permissive"
    this.defaultCallbackFormat = options.callbackFormat ?? "json"
    this.callbackKnobs = {
      ...DEFAULT_CALLBACK_KNOBS,
      format: this.defaultCallbackFormat,
      ...options.callbackKnobs,
    }
    this.clockBase = options.now ?? Date.now
    this.reviewAfterMs = options.reviewAfterMs
    this.latency = { ...NO_LATENCY, ...options.latency }
    const logger = options.logger ?? SILENT_LOGGER
    const context: Omit<SandboxContext, "reviews"> = {
      credentials: this.credentials,
      logger,
      now: this.now,
      store: new TransactionStore(this.now, () => this.settlementMs),
      references: new ReferenceWindow(this.now),
      challenges: new ChallengeSessions(this.now, () => this.challengeTtlMs),
      verificationCodes: new VerificationCodes(
        this.now,
        () => this.verificationTtlMs
      ),
      dispatcher: new CallbackDispatcher(logger, options.callbackConnections),
      faults: new FaultQueue(),
      holds: new AnswerHolds(),
      codeScoping: () => this.codeScoping,
      formCodeUses: [],
      retrieves: new RetrieveTally(),
      knobsFor: (merchantReferenceCode) => ({
        ...this.callbackKnobs,
        ...this.knobsByReference.get(merchantReferenceCode),
      }),
    }
    this.context = {
      ...context,
      reviews: new ReviewDesk(context, () => this.reviewAfterMs),
    }
  }

  // Clock ---------------------------------------------------------------

  /** The sandbox's current time in ms (the injected clock plus any advance). */
  readonly now = (): number => this.clockBase() + this.clockOffset

  /** Sets the clock to a fixed time or a time source; clears any advance. */
  setClock(now: number | (() => number)): void {
    this.clockBase = typeof now === "number" ? () => now : now
    this.clockOffset = 0
  }

  advanceClock(ms: number): void {
    this.clockOffset += ms
  }

  // Knobs ---------------------------------------------------------------

  /** Changes callback knobs globally, or for one merchantReferenceCode only. */
  setCallbackKnobs(
    knobs: Partial<CallbackKnobs>,
    merchantReferenceCode?: string
  ): void {
    if (merchantReferenceCode === undefined) {
      Object.assign(this.callbackKnobs, knobs)
      return
    }
    this.knobsByReference.set(merchantReferenceCode, {
      ...this.knobsByReference.get(merchantReferenceCode),
      ...knobs,
    })
  }

  /** Changes the round trip added to every request (the start-up one comes back on resetKnobs). */
  setLatency(latency: Partial<NetworkLatency>): void {
    Object.assign(this.latency, latency)
  }

  /** Queues a fault for the next matching JSON request(s). */
  injectFault(fault: FaultSpec): void {
    this.context.faults.add(fault)
  }

  clearFaults(): void {
    this.context.faults.clear()
    this.context.holds.clear()
  }

  /**
   * Holds the answer of the next matching JSON request after the service
   * has acted on it, until `onHold`'s holder releases or drops it (the
   * crash-point harness kills the caller meanwhile). In process only.
   */
  holdAnswer(spec: HoldSpec): void {
    this.context.holds.add(spec)
  }

  /** Back to the start-up knobs: callback knobs, per-reference knobs, faults and the latency. */
  resetKnobs(): void {
    Object.assign(this.callbackKnobs, DEFAULT_CALLBACK_KNOBS, {
      format: this.defaultCallbackFormat,
      ...this.options.callbackKnobs,
    })
    Object.assign(this.latency, NO_LATENCY, this.options.latency)
    this.knobsByReference.clear()
    this.context.faults.clear()
    this.context.holds.clear()
  }

  // Inspection ----------------------------------------------------------

  /** Every recorded transaction as section 2.1 records, oldest first. */
  transactions(): TransactionRecord[] {
    const { store } = this.context
    return store.all().map((tx) => store.toRecord(tx))
  }

  transaction(transactionId: string): TransactionRecord | undefined {
    const { store } = this.context
    const tx = store.get(transactionId)
    return tx ? store.toRecord(tx) : undefined
  }

  /** When the sandbox recorded a transaction (its clock, ms), e.g. when a capture was accepted. */
  recordedAt(transactionId: string): number | undefined {
    return this.context.store.get(transactionId)?.createdAt
  }

  /** Every callback attempt (and drop), in order, with the status the merchant answered. */
  callbacks(): CallbackDelivery[] {
    return [...this.context.dispatcher.deliveries]
  }

  /** Resolves once at least `count` attempts (or what `predicate` asks for) are recorded. */
  waitForCallbacks(
    countOrPredicate: number | ((deliveries: CallbackDelivery[]) => boolean),
    timeoutMs = 5000
  ): Promise<CallbackDelivery[]> {
    const predicate =
      typeof countOrPredicate === "number"
        ? (d: CallbackDelivery[]) => d.length >= countOrPredicate
        : countOrPredicate
    return this.context.dispatcher.waitFor(predicate, timeoutMs)
  }

  /** Requests received per endpoint since start or reset(), e.g. `{"GET /authorize": 2}`. */
  requestCounts(): Record<string, number> {
    return this.requestLog.tally.snapshot()
  }

  /**
   * JSON requests (reverse, capture, refund, void, retrieve) that carried a
   * verification code already posted in a payment form, refused or not: a
   * merchant that keeps its own code apart from its forms makes none.
   */
  formCodeUses(): { path: string; refused: boolean }[] {
    return [...this.context.formCodeUses]
  }

  /**
   * When a transaction was retrieved and answered with its record (its
   * clock, ms), oldest first; kept whole however long the sandbox runs.
   */
  retrievesOf(transactionId: string): number[] {
    return this.context.retrieves.of(transactionId)
  }

  /** Retrieves answered 404 because the sandbox has no such transaction (made-up ids). */
  unknownRetrieves(): number {
    return this.context.retrieves.unknown()
  }

  /** The requests the sandbox received (newest 20,000), oldest first: method, path, timings, status. */
  requests(): SandboxRequest[] {
    return this.requestLog.all()
  }

  // Set-up --------------------------------------------------------------

  /** Issues a verification code as GET /authorize would, for test set-up. */
  issueVerificationCode(): string {
    return this.context.verificationCodes.issue()
  }

  /**
   * Records an authorization as a frictionless payment with this card would,
   * without a browser or a callback: for seeding follow-on tests and the
   * benchmark. The card's outcome applies (a 203 card records a decline).
   */
  seedAuthorization(
    options: {
      amount?: string
      currency?: string
      cardNumber?: string
      merchantReferenceCode?: string
    } = {}
  ): TransactionRecord {
    const currency = options.currency ?? "978"
    const digits = currencyDigits(currency)
    const number = options.cardNumber ?? "4000000000001000"
    const amountMinor =
      digits === undefined
        ? undefined
        : parseMajorAmount(options.amount ?? "10.50", digits)
    const card = findTestCard(number)
    if (
      digits === undefined ||
      amountMinor === undefined ||
      !brandOfNumber(number)
    ) {
      throw new Error(
        "seedAuthorization: use an ISO 4217 numeric currency, a valid amount and a VISA, MASTER or JCB number"
      )
    }
    const reasonCode = card?.reasonCode ?? DEFAULT_CARD_BEHAVIOUR.reasonCode
    const { store } = this.context
    const tx = store.add({
      merchantId: this.credentials.merchantId,
      merchantReferenceCode:
        options.merchantReferenceCode ??
        `seed-${randomBytes(6).toString("hex")}`,
      originalTransactionId: "",
      step: "AUTHORIZATION",
      reasonCode,
      cardType: card?.cardType ?? brandOfNumber(number)!,
      currency,
      digits,
      amountMinor: approvedAmount(reasonCode, amountMinor),
      cardPrefix: number.slice(0, 6),
      cardSuffix: number.slice(-4),
    })
    return store.toRecord(tx)
  }

  /**
   * Makes an accepted capture or refund end as TRXN_ERROR (section 3): the
   * processor refused it after the service accepted it. Nothing in the wire
   * does this, so tests of what follows it set it here.
   */
  failTransmission(transactionId: string): void {
    const tx = this.context.store.get(transactionId)
    if (!tx || (tx.step !== "CAPTURE" && tx.step !== "REFUND")) {
      throw new Error(
        `failTransmission: ${transactionId} is no capture or refund`
      )
    }
    tx.transmissionFailed = true
  }

  /**
   * Ends a review (a payment marked 480) as the decision manager would: the
   * record shows 100 (approve) or 481 (reject) and the result is delivered to
   * the callback location. The card's planned verdict unless one is given.
   * Resolves once the callback's first attempt is over; undefined when no
   * review of that transaction is open.
   */
  concludeReview(
    transactionId: string,
    verdict?: ReviewVerdict,
    /** An approval for another amount (minor units) than was asked for. */
    approvedAmountMinor?: number
  ): Promise<{ transactionId: string; reasonCode: string } | undefined> {
    return this.context.reviews.conclude(transactionId, verdict, approvedAmountMinor)
  }

  /** Reviews waiting for their verdict, oldest first. */
  openReviews(): OpenReview[] {
    return this.context.reviews.pending()
  }

  /** Forgets transactions, duplicate-window entries, sessions and callback history. */
  reset(): void {
    this.context.reviews.clear()
    this.context.store.clear()
    this.context.references.clear()
    this.context.challenges.clear()
    this.context.dispatcher.deliveries.length = 0
    this.context.formCodeUses.length = 0
    this.context.retrieves.clear()
    this.requestLog.clear()
  }
}
