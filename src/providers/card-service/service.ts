import {
  AbstractPaymentProvider,
  MedusaError,
  PaymentActions,
  PaymentSessionStatus,
} from "@medusajs/framework/utils"
import type {
  AuthorizePaymentInput,
  AuthorizePaymentOutput,
  CancelPaymentInput,
  CancelPaymentOutput,
  CapturePaymentInput,
  CapturePaymentOutput,
  DeletePaymentInput,
  DeletePaymentOutput,
  GetPaymentStatusInput,
  GetPaymentStatusOutput,
  InitiatePaymentInput,
  InitiatePaymentOutput,
  Logger,
  PaymentProviderContext,
  ProviderWebhookPayload,
  RefundPaymentInput,
  RefundPaymentOutput,
  RetrievePaymentInput,
  RetrievePaymentOutput,
  UpdatePaymentInput,
  UpdatePaymentOutput,
  WebhookActionResult,
} from "@medusajs/framework/types"
import { CardServiceClient } from "../../lib/card-service-client"
import { CardServiceError } from "../../lib/card-service-error"
import { fromNumericCurrency, toNumericCurrency } from "../../lib/iso-codes"
import {
  fromMinorUnits,
  fromServiceAmount,
  toMinorUnits,
  toServiceAmount,
  toVoidAmount,
  type AmountInput,
} from "../../lib/money"
import type { OperationResult, TransactionRecord } from "../../lib/wire-schemas"
import { checkApproval } from "./approval-check"
import { CardServiceOptions, parseOptions, serviceBaseUrl } from "./options"
import {
  CardServiceSessionData,
  FailureReason,
  logEntry,
  Operation,
  parseSessionData,
  SESSION_DATA_VERSION,
} from "./session-data"
import { SessionSealer } from "./session-seal"
import { reasonText, statusForState, statusForUnapproved } from "./status-mapping"

type InjectedDependencies = {
  logger: Logger
}

/** Codes that mean "the follow-on already happened or cannot happen any more". */
const ALREADY_CAPTURED = new Set(["242"])
const ALREADY_REVERSED_OR_DONE = new Set(["237", "238", "243"])

/**
 * Medusa's payment lifecycle on the card service.
 *
 * No approval happens on the server: the payment request must come from the
 * shopper's browser (section 4.2), so initiatePayment only prepares what the
 * browser step needs. The routes under /card-service record the transaction
 * the service reports (after checking it with retrieve), and authorizePayment
 * asks the service again before Medusa may place an order.
 */
export default class CardServiceProviderService extends AbstractPaymentProvider<CardServiceOptions> {
  static identifier = "card-service"

  protected readonly options_: CardServiceOptions
  protected readonly logger_: Logger
  protected readonly client_: CardServiceClient
  protected readonly sealer_: SessionSealer

  static validateOptions(options: Record<string, unknown>): void {
    parseOptions(options)
  }

  constructor(container: InjectedDependencies, options: Record<string, unknown>) {
    super(container, options as CardServiceOptions)
    this.options_ = parseOptions(options)
    this.logger_ = container.logger
    this.sealer_ = SessionSealer.fromOptions(this.options_)
    this.client_ = new CardServiceClient({
      baseUrl: serviceBaseUrl(this.options_),
      clientCode: this.options_.clientCode,
      clientSecret: this.options_.clientSecret,
      verifyId: this.options_.verifyId,
      merchantId: this.options_.merchantId,
      timeouts: this.options_.timeouts,
      logger: this.logger_,
    })
  }

  /** The client, for the plugin's routes (one pool per provider instance). */
  get client(): CardServiceClient {
    return this.client_
  }

  get sealer(): SessionSealer {
    return this.sealer_
  }

  get options(): CardServiceOptions {
    return this.options_
  }

  async initiatePayment({
    amount,
    currency_code,
    data,
    context,
  }: InitiatePaymentInput): Promise<InitiatePaymentOutput> {
    // Medusa passes the new session's id as the idempotency key and as
    // data.session_id; the key comes from Medusa itself, so it wins.
    const sessionId = context?.idempotency_key ?? stringOrNull(data?.session_id)
    if (!sessionId) {
      throw new MedusaError(
        MedusaError.Types.INVALID_DATA,
        "card-service: a payment session id is required to start a payment"
      )
    }
    const session = this.newSession_(sessionId, amount, currency_code, context)
    session.return_to = this.allowedReturnUrl(data?.return_to)
    return { id: sessionId, status: PaymentSessionStatus.PENDING, data: session }
  }

  /**
   * The routes attach the transaction the service reported through here
   * (Medusa's updatePaymentSession calls it). With the same amount and
   * currency the session keeps its transaction, e-mail and failure, nothing
   * else; any change starts a fresh, unpaid session, because an approval is
   * for one amount only.
   */
  async updatePayment({
    amount,
    currency_code,
    data,
    context,
  }: UpdatePaymentInput): Promise<UpdatePaymentOutput> {
    const current = this.trustedSession_(data, context)
    const sessionId =
      current?.session_id ?? context?.idempotency_key ?? stringOrNull(data?.session_id)
    if (!sessionId) {
      throw new MedusaError(
        MedusaError.Types.INVALID_DATA,
        "card-service: the payment session data is not this provider's"
      )
    }
    const fresh = this.newSession_(sessionId, amount, currency_code, context)
    if (!current || !this.sameTerms_(current, amount, currency_code)) {
      return { status: PaymentSessionStatus.PENDING, data: fresh }
    }
    const session: CardServiceSessionData = {
      ...fresh,
      return_to: this.allowedReturnUrl(current.return_to),
      transaction_id: current.transaction_id,
      email: current.email ?? fresh.email,
      failure: current.failure,
      // A failure is final unless the service has the payment under review.
      state: current.failure && current.state !== "pending" ? "failed" : "pending",
    }
    return { status: statusForState(session.state), data: session }
  }

  async authorizePayment({
    data,
    context,
  }: AuthorizePaymentInput): Promise<AuthorizePaymentOutput> {
    const stored = this.trustedSession_(data, context)
    if (!stored) {
      return this.tampered_(data)
    }
    // Only the sealed terms and the transaction id are taken from the
    // (storefront-writable) session data; state, capture and history are
    // rebuilt from what the service says now, so a session cannot claim to
    // be captured or authorized by saying so.
    const session: CardServiceSessionData = {
      ...stored,
      state: "pending",
      capture: null,
      refunded_amount: 0,
      transactions: [],
    }
    if (!session.transaction_id) {
      return { status: PaymentSessionStatus.PENDING, data: session }
    }

    const record = await this.retrieveKnown_(session.transaction_id)
    if (!record) {
      return this.fail_(
        { ...session, transaction_id: null },
        { code: "foreign_transaction", message: "the service knows no such transaction" }
      )
    }
    const verdict = checkApproval(record, session, (reference, id) =>
      this.sealer_.referenceBelongsTo(reference, id)
    )
    switch (verdict.outcome) {
      case "foreign":
        return this.fail_(
          { ...session, transaction_id: null },
          { code: "foreign_transaction", message: verdict.reason }
        )
      case "unapproved": {
        const status = statusForUnapproved(verdict.reasonCode)
        return {
          status,
          data: {
            ...session,
            state: status === "error" ? "failed" : "pending",
            failure: failureFor(verdict.reasonCode, verdict.reason),
          },
        }
      }
      case "mismatch": {
        const reversed = await this.reverseApproval_(session, record)
        return this.fail_(reversed, { code: "mismatch", message: verdict.reason })
      }
      case "approved":
        break
    }

    const approved: CardServiceSessionData = {
      ...session,
      state: "authorized",
      failure: null,
      card: { type: record.cardType, suffix: record.cardSuffix },
      transactions: withEntry(session, {
        transaction_id: record.transactionId,
        operation: "authorization",
        decision: "ACCEPT",
        reason_code: record.reasonCode,
        amount: fromServiceAmount(record.amount, session.currency_code),
      }),
    }
    if (!this.options_.autoCapture) {
      return { status: PaymentSessionStatus.AUTHORIZED, data: approved }
    }
    // Asked on every call: a capture that already happened answers 242,
    // which capture_ takes as done, so this is never a second capture. The
    // capture the stored data names is only a hint, checked with retrieve.
    const captured = await this.capture_(
      approved,
      context?.idempotency_key,
      stored.capture?.transaction_id
    )
    return { status: PaymentSessionStatus.CAPTURED, data: captured }
  }

  async capturePayment({ data, context }: CapturePaymentInput): Promise<CapturePaymentOutput> {
    const session = this.requireApproved_(data, "capture")
    if (session.capture) {
      // Medusa calls capture again for a "captured" webhook action and for a
      // session that authorizePayment already captured: already done.
      return { data: session }
    }
    return { data: await this.capture_(session, context?.idempotency_key) }
  }

  async refundPayment({ amount, data, context }: RefundPaymentInput): Promise<RefundPaymentOutput> {
    const session = this.requireApproved_(data, "refund")
    const key = context?.idempotency_key
    // A whole refund of a pending capture is logged as a void under the
    // refund's key: a repeat of it is done too (refunding would get 247).
    const done = session.transactions.some(
      (t) =>
        (t.operation === "refund" || t.operation === "void") &&
        t.key === key &&
        t.decision === "ACCEPT"
    )
    if (key && done) {
      return { data: session }
    }
    if (!session.capture) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        "card-service: this payment has not been captured, so there is nothing to refund (cancel the order to release the approval)"
      )
    }
    const refundAmount = toServiceAmount(amount as AmountInput, session.currency_code)
    if (session.transactions.some((t) => t.operation === "capture" && t.voided)) {
      // The capture was voided at the service (the admin's void): no money
      // was taken, so there is nothing to give back and the service would
      // refuse a refund (247). What is left is the authorization, standing
      // again: release it, and let Medusa book the refund.
      const released = await this.releaseAuthorization_(session)
      return {
        data: {
          ...released,
          refunded_amount: addAmounts(session.refunded_amount, refundAmount, session.currency_code),
        },
      }
    }
    const voided = await this.voidWholeCaptureIfPending_(session, refundAmount, key)
    if (voided) {
      return { data: voided }
    }

    let result: OperationResult
    try {
      result = await this.client_.refund({
        merchantReferenceCode: this.followOnReference_(session, key),
        currency: session.currency,
        amount: refundAmount,
        email: this.emailFor_(session, context),
        // The capture is what a refund gives back (section 2.3); when the
        // service never named the capture, the sandbox and the service
        // accept the authorization it captured.
        originalTransactionId: session.capture.transaction_id ?? (session.transaction_id as string),
      })
    } catch (error) {
      throw this.medusaError_(error, "refund")
    }
    return {
      data: {
        ...session,
        refunded_amount: addAmounts(session.refunded_amount, refundAmount, session.currency_code),
        transactions: withEntry(session, {
          transaction_id: result.transactionId,
          operation: "refund",
          decision: "ACCEPT",
          reason_code: result.reasonCode,
          amount: refundAmount,
          key,
        }),
      },
    }
  }

  async cancelPayment({ data }: CancelPaymentInput): Promise<CancelPaymentOutput> {
    const session = parseSessionData(data)
    if (!session || !session.transaction_id || session.state !== "authorized") {
      // Nothing held at the service for this payment: nothing to release.
      return { data: data ?? {} }
    }
    const record = await this.retrieveForSession_(session.transaction_id)
    return { data: await this.reverseApproval_(session, record) }
  }

  /**
   * Medusa deletes a cart's payment sessions whenever its total changes. If
   * the shopper had already paid for that session, the approval would hold
   * money with no order to show for it: reverse it.
   */
  async deletePayment({ data }: DeletePaymentInput): Promise<DeletePaymentOutput> {
    const session = this.trustedSession_(data, undefined)
    if (!session?.transaction_id || session.state === "canceled" || session.capture) {
      return { data: data ?? {} }
    }
    try {
      const record = await this.client_.retrieve(session.transaction_id)
      const verdict = checkApproval(record, session, (reference, id) =>
        this.sealer_.referenceBelongsTo(reference, id)
      )
      if (verdict.outcome === "approved" || verdict.outcome === "mismatch") {
        return { data: await this.reverseApproval_(session, record) }
      }
    } catch (error) {
      // Deleting a session must not fail the shopper's cart change; the
      // store owner sees the held approval in the log and the service.
      this.logger_.error(
        `card-service: could not release the approval of deleted session ${session.session_id}: ${messageOf(error)}`
      )
    }
    return { data: data ?? {} }
  }

  async getPaymentStatus({ data }: GetPaymentStatusInput): Promise<GetPaymentStatusOutput> {
    const session = parseSessionData(data)
    if (!session) {
      return { status: PaymentSessionStatus.ERROR, data: data ?? {} }
    }
    if (!session.transaction_id || session.state !== "pending") {
      return { status: statusForState(session.state), data: session }
    }
    const record = await this.retrieveForSession_(session.transaction_id)
    const verdict = checkApproval(record, session, (reference, id) =>
      this.sealer_.referenceBelongsTo(reference, id)
    )
    if (verdict.outcome === "approved") {
      return { status: PaymentSessionStatus.AUTHORIZED, data: session }
    }
    if (verdict.outcome === "unapproved") {
      return { status: statusForUnapproved(verdict.reasonCode), data: session }
    }
    return { status: PaymentSessionStatus.ERROR, data: session }
  }

  async retrievePayment({ data }: RetrievePaymentInput): Promise<RetrievePaymentOutput> {
    const session = parseSessionData(data)
    if (!session?.transaction_id) {
      return { data: data ?? {} }
    }
    const record = await this.retrieveForSession_(session.transaction_id)
    return { data: { ...session, service_record: publicRecord(record) } }
  }

  /**
   * The built-in /hooks/payment route is not how results arrive: the service
   * posts to the per-session callbackLocation that this plugin's own route
   * serves, which verifies the result and completes the cart without the
   * built-in route's 5-second delay. A payload sent here changes nothing.
   */
  async getWebhookActionAndData(
    _: ProviderWebhookPayload["payload"]
  ): Promise<WebhookActionResult> {
    return { action: PaymentActions.NOT_SUPPORTED }
  }

  /** Whether session data is this provider's, unaltered, and for this session. */
  verifySession(data: unknown, sessionId?: string): CardServiceSessionData | null {
    return this.trustedSession_(data, sessionId ? { idempotency_key: sessionId } : undefined)
  }

  /**
   * A return URL a storefront asked for, if its origin is the storefront's or
   * one of allowedReturnOrigins; anything else is dropped, so the return
   * route never becomes an open redirect.
   */
  allowedReturnUrl(candidate: unknown): string | null {
    if (typeof candidate !== "string" || candidate.length > 2048) return null
    let url: URL
    try {
      url = new URL(candidate)
    } catch {
      return null
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") return null
    const allowed = [this.options_.storefrontUrl, ...this.options_.allowedReturnOrigins].map(
      (origin) => new URL(origin).origin
    )
    return allowed.includes(url.origin) ? url.toString() : null
  }

  /** Where the shopper goes after the return route: the session's choice or the default. */
  returnTarget(session: Pick<CardServiceSessionData, "return_to"> | null): URL {
    return new URL(
      this.allowedReturnUrl(session?.return_to) ??
        `${this.options_.storefrontUrl}${this.options_.returnPath}`
    )
  }

  /**
   * Reverses an approval made for this session that cannot become its
   * payment (wrong amount or currency, or a second approval), so no money
   * stays held without an order.
   */
  async releaseApproval(
    session: CardServiceSessionData,
    record: TransactionRecord
  ): Promise<CardServiceSessionData> {
    return this.reverseApproval_(session, record)
  }

  /**
   * A result reported for a session Medusa no longer has (the cart changed
   * and its sessions were deleted before the result arrived). If the
   * transaction is an approval this plugin made for exactly that session,
   * no order can ever use it: reverse it. Returns whether it did.
   */
  async releaseOrphanedApproval(sessionId: string, transactionId: string): Promise<boolean> {
    const record = await this.retrieveKnown_(transactionId)
    if (
      !record ||
      !this.sealer_.referenceBelongsTo(record.merchantReferenceCode, sessionId) ||
      record.step !== "AUTHORIZATION" ||
      record.status !== "successful"
    ) {
      return false
    }
    const orphan = {
      session_id: sessionId,
      currency_code: fromNumericCurrency(record.currencyCode),
      email: null,
      transactions: [],
    } as unknown as CardServiceSessionData
    await this.reverseApproval_(orphan, record)
    this.logger_.info(
      `card-service: reversed approval ${record.transactionId} of deleted session ${sessionId}`
    )
    return true
  }

  /** A fresh reference for one payment attempt of a session (see session-seal.ts). */
  newReference(sessionId: string): string {
    return this.sealer_.newReference(sessionId)
  }

  private newSession_(
    sessionId: string,
    amount: AmountInput,
    currencyCode: string,
    context: PaymentProviderContext | undefined
  ): CardServiceSessionData {
    const currency = this.convert_(() => toNumericCurrency(currencyCode))
    const serviceAmount = this.convert_(() => toServiceAmount(amount, currencyCode))
    const amountMinor = this.convert_(() => toMinorUnits(amount, currencyCode)).toString()
    if (BigInt(amountMinor) <= 0n) {
      throw new MedusaError(
        MedusaError.Types.INVALID_DATA,
        "card-service: the amount to pay must be greater than zero"
      )
    }
    const backend = this.options_.backendUrl
    const callbackUrl = `${backend}/card-service/callback/${sessionId}/`
    const returnUrl = `${backend}/card-service/return/${sessionId}/`
    return {
      version: SESSION_DATA_VERSION,
      session_id: sessionId,
      currency_code: currencyCode.toLowerCase(),
      currency,
      amount: serviceAmount,
      amount_minor: amountMinor,
      seal: this.sealer_.seal({ sessionId, currencyCode, amountMinor }),
      pay_url: `${backend}/card-service/pay/${sessionId}`,
      callback_url: callbackUrl,
      return_url: returnUrl,
      form: {
        action: `${serviceBaseUrl(this.options_)}/order/start`,
        method: "POST",
        enctype: "application/x-www-form-urlencoded",
        fields: {
          merchantId: this.options_.merchantId,
          verifyId: this.options_.verifyId,
          currency,
          amount: toVoidAmount(amount, currencyCode),
          callbackLocation: callbackUrl,
          redirectUrl: returnUrl,
          // Sent explicitly: the interface's two defaults disagree (2.2).
          isWindowed: this.options_.windowed ? "Y" : "N",
          isRedirect: this.options_.redirectOnFailure ? "Y" : "N",
          isAuthenticate: "Y",
        },
        fields_url: `${backend}/store/card-service/sessions/${sessionId}/form`,
      },
      return_to: null,
      state: "pending",
      transaction_id: null,
      email: context?.customer?.email ?? null,
      card: null,
      failure: null,
      capture: null,
      refunded_amount: 0,
      transactions: [],
    }
  }

  private trustedSession_(
    data: unknown,
    context: PaymentProviderContext | undefined
  ): CardServiceSessionData | null {
    const session = parseSessionData(data)
    if (!session) return null
    if (context?.idempotency_key && context.idempotency_key !== session.session_id) {
      // authorize and initiate get the session id as the idempotency key;
      // other methods get the capture, refund or payment id instead.
      if (context.idempotency_key.startsWith("payses_")) return null
    }
    const sealed = this.sealer_.verifySeal(
      {
        sessionId: session.session_id,
        currencyCode: session.currency_code,
        amountMinor: session.amount_minor,
      },
      session.seal
    )
    if (!sealed) return null
    // The amount and currency the service sees are derived from the sealed
    // terms, never taken from the (writable) data. So are the URLs and the
    // form: the payment page posts the shopper's card to form.action, so an
    // edited action or hidden field must never reach it.
    const amount = fromMinorUnits(BigInt(session.amount_minor), session.currency_code)
    const { currency, pay_url, callback_url, return_url, form } = this.newSession_(
      session.session_id,
      amount,
      session.currency_code,
      undefined
    )
    return { ...session, currency, amount, pay_url, callback_url, return_url, form }
  }

  private sameTerms_(
    session: CardServiceSessionData,
    amount: AmountInput,
    currencyCode: string
  ): boolean {
    try {
      return (
        session.currency_code === currencyCode.toLowerCase() &&
        toMinorUnits(amount, currencyCode).toString() === session.amount_minor
      )
    } catch {
      return false
    }
  }

  private requireApproved_(data: unknown, operation: string): CardServiceSessionData {
    const session = this.trustedSession_(data, undefined)
    if (!session || !session.transaction_id) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        `card-service: cannot ${operation}: the payment has no verified approval`
      )
    }
    if (session.state === "canceled" || session.state === "failed") {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        `card-service: cannot ${operation}: the payment is ${session.state}`
      )
    }
    return session
  }

  private async capture_(
    session: CardServiceSessionData,
    key: string | undefined,
    claimedCaptureId?: string | null
  ): Promise<CardServiceSessionData> {
    const input = {
      merchantReferenceCode: this.followOnReference_(session, key),
      currency: session.currency,
      amount: session.amount,
      email: this.emailFor_(session, undefined),
      originalTransactionId: session.transaction_id as string,
    }
    const captured = (
      result: Pick<OperationResult, "transactionId" | "reasonCode"> | null
    ): CardServiceSessionData => ({
      ...session,
      state: "captured",
      capture: { transaction_id: result?.transactionId ?? null, amount: session.amount },
      transactions: withEntry(session, {
        transaction_id: result?.transactionId ?? null,
        operation: "capture",
        decision: "ACCEPT",
        reason_code: result?.reasonCode ?? "242",
        amount: session.amount,
        key,
      }),
    })
    try {
      return captured(await this.client_.capture(input))
    } catch (error) {
      if (isReason(error, ALREADY_CAPTURED)) {
        // Section 7, 242: the authorization is already used by a capture. One
        // capture per approval, so it is ours: success, not a second capture.
        return captured(await this.confirmCapture_(session, claimedCaptureId))
      }
      if (error instanceof CardServiceError && error.category === "indeterminate") {
        // The capture may have happened. Asking again is safe precisely
        // because a second capture of the same approval is refused with 242.
        this.logger_.warn(
          `card-service: capture of session ${session.session_id} had no answer; asking the service again`
        )
        try {
          return captured(await this.client_.capture(input))
        } catch (retryError) {
          if (isReason(retryError, ALREADY_CAPTURED)) return captured(null)
          throw this.medusaError_(retryError, "capture")
        }
      }
      throw this.medusaError_(error, "capture")
    }
  }

  /**
   * The capture that a 242 refers to, when the stored data names one: 242
   * does not say which capture used the approval, and a void of the whole
   * capture needs its id. Kept only if the service's record shows it is a
   * live capture of this very authorization.
   */
  private async confirmCapture_(
    session: CardServiceSessionData,
    claimedCaptureId: string | null | undefined
  ): Promise<Pick<OperationResult, "transactionId" | "reasonCode"> | null> {
    if (!claimedCaptureId) return null
    const record = await this.client_.retrieve(claimedCaptureId).catch(() => null)
    const confirmed =
      record?.step === "CAPTURE" &&
      record.status === "successful" &&
      record.captureStatus !== "VOIDED" &&
      record.originalTransactionId === session.transaction_id
    return confirmed ? { transactionId: record.transactionId, reasonCode: record.reasonCode } : null
  }

  /**
   * A full refund of a capture the service has not yet sent to the processor
   * is a void of the capture (section 2.4): the shopper's money never moves,
   * and the store owner pays no refund. Anything else is a refund.
   */
  private async voidWholeCaptureIfPending_(
    session: CardServiceSessionData,
    refundAmount: number,
    key: string | undefined
  ): Promise<CardServiceSessionData | null> {
    const capture = session.capture
    if (!capture?.transaction_id || session.refunded_amount !== 0) return null
    if (toMinorUnits(refundAmount, session.currency_code) !== toMinorUnits(capture.amount, session.currency_code)) {
      return null
    }
    let record: TransactionRecord
    try {
      record = await this.client_.retrieve(capture.transaction_id)
    } catch {
      return null
    }
    if (record.captureStatus !== "PENDING") return null
    try {
      const result = await this.client_.void({
        merchantReferenceCode: this.followOnReference_(session, key),
        currency: session.currency,
        amount: toVoidAmount(capture.amount, session.currency_code),
        email: this.emailFor_(session, undefined),
        transactionId: capture.transaction_id,
        type: "CAPTURE",
      })
      return await this.releaseAuthorization_({
        ...session,
        refunded_amount: capture.amount,
        transactions: withEntry(
          {
            ...session,
            transactions: session.transactions.map((t) =>
              t.transaction_id === capture.transaction_id ? { ...t, voided: true } : t
            ),
          },
          {
            transaction_id: result.transactionId,
            operation: "void",
            decision: "ACCEPT",
            reason_code: result.reasonCode,
            amount: capture.amount,
            key,
          }
        ),
      })
    } catch (error) {
      // 246: it was transmitted meanwhile. A refund does the job then.
      if (isReason(error, new Set(["246"]))) return null
      throw this.medusaError_(error, "void")
    }
  }

  /**
   * After its capture is voided, an authorization stands again at the
   * service (section 3, VOIDED: "the authorization itself is not deleted"),
   * holding the shopper's money for an order that has given it all back:
   * release it. The payment keeps its state; the log shows the reversal.
   */
  private async releaseAuthorization_(
    session: CardServiceSessionData
  ): Promise<CardServiceSessionData> {
    const record = await this.retrieveKnown_(session.transaction_id as string)
    if (!record) return session
    const released = await this.reverseApproval_(session, record)
    return { ...released, state: session.state }
  }

  private async reverseApproval_(
    session: CardServiceSessionData,
    record: TransactionRecord
  ): Promise<CardServiceSessionData> {
    const input = {
      merchantReferenceCode: this.followOnReference_(session, undefined),
      currency: record.currencyCode,
      // Section 7, 239: a reversal is for the amount that was approved.
      amount: record.amount,
      email: this.emailFor_(session, undefined),
      originalTransactionId: record.transactionId,
    }
    const reversed = (result: OperationResult | null, code: string): CardServiceSessionData => ({
      ...session,
      state: "canceled",
      transactions: withEntry(session, {
        transaction_id: result?.transactionId ?? null,
        operation: "reversal",
        decision: "ACCEPT",
        reason_code: code,
        amount: fromServiceAmount(record.amount, session.currency_code),
      }),
    })
    try {
      const result = await this.client_.reverse(input)
      return reversed(result, result.reasonCode)
    } catch (error) {
      if (isReason(error, ALREADY_REVERSED_OR_DONE)) {
        return reversed(null, (error as CardServiceError).reasonCode as string)
      }
      if (error instanceof CardServiceError && error.category === "indeterminate") {
        // Safe to ask again: a second reversal is refused with 237.
        try {
          const result = await this.client_.reverse(input)
          return reversed(result, result.reasonCode)
        } catch (retryError) {
          if (isReason(retryError, ALREADY_REVERSED_OR_DONE)) {
            return reversed(null, (retryError as CardServiceError).reasonCode as string)
          }
          throw this.medusaError_(retryError, "reverse")
        }
      }
      throw this.medusaError_(error, "reverse")
    }
  }

  /** The service's record, or null when it has none (404) for this merchant. */
  private async retrieveKnown_(transactionId: string): Promise<TransactionRecord | null> {
    try {
      return await this.client_.retrieve(transactionId)
    } catch (error) {
      if (error instanceof CardServiceError && error.httpStatus === 404) return null
      throw this.medusaError_(error, "retrieve")
    }
  }

  private async retrieveForSession_(transactionId: string): Promise<TransactionRecord> {
    try {
      return await this.client_.retrieve(transactionId)
    } catch (error) {
      throw this.medusaError_(error, "retrieve")
    }
  }

  private fail_(session: CardServiceSessionData, failure: FailureReason): AuthorizePaymentOutput {
    return {
      status: PaymentSessionStatus.ERROR,
      data: { ...session, state: session.state === "canceled" ? "canceled" : "failed", failure },
    }
  }

  private tampered_(data: unknown): AuthorizePaymentOutput {
    this.logger_.warn("card-service: refused a payment session whose data was altered or is not this provider's")
    return {
      status: PaymentSessionStatus.ERROR,
      data: {
        ...(isRecord(data) ? data : {}),
        state: "failed",
        failure: {
          code: "tampered",
          message: "the payment session data was altered; start a new payment",
        },
      },
    }
  }

  /**
   * merchantReferenceCode of a follow-on: Medusa's id of the operation when
   * there is one (capture or refund id), so the service's history can be
   * matched to Medusa's records, else the session's compact id.
   */
  private followOnReference_(session: CardServiceSessionData, key: string | undefined): string {
    return (key ?? session.session_id).slice(0, 50)
  }

  private emailFor_(
    session: CardServiceSessionData,
    context: PaymentProviderContext | undefined
  ): string {
    return session.email ?? context?.customer?.email ?? this.options_.merchantEmail
  }

  private convert_<T>(fn: () => T): T {
    try {
      return fn()
    } catch (error) {
      throw this.medusaError_(error, "prepare payment")
    }
  }

  /** A CardServiceError as the MedusaError whose type gives the right HTTP answer. */
  private medusaError_(error: unknown, operation: string): MedusaError {
    if (error instanceof MedusaError) return error
    if (!(error instanceof CardServiceError)) {
      this.logger_.error(`card-service: ${operation} failed: ${messageOf(error)}`)
      return new MedusaError(
        MedusaError.Types.UNEXPECTED_STATE,
        `card-service: ${operation} failed unexpectedly`
      )
    }
    switch (error.category) {
      case "invalid_request":
        return new MedusaError(MedusaError.Types.INVALID_DATA, `card-service: ${error.message}`)
      case "declined":
      case "not_allowed_in_state":
        return new MedusaError(MedusaError.Types.NOT_ALLOWED, `card-service: ${error.message}`)
      case "indeterminate":
        this.logger_.error(`card-service: ${error.message}`)
        return new MedusaError(
          MedusaError.Types.UNEXPECTED_STATE,
          `card-service: the outcome of the ${operation} is unknown (the service did not answer). Check the payment in the card-service panel of the order before trying again.`
        )
      default:
        this.logger_.error(`card-service: ${error.message}`)
        return new MedusaError(MedusaError.Types.UNEXPECTED_STATE, `card-service: ${error.message}`)
    }
  }
}

function withEntry(
  session: CardServiceSessionData,
  entry: {
    transaction_id: string | null
    operation: Operation
    decision: "ACCEPT" | "REJECT" | "UNKNOWN"
    reason_code: string | null
    amount: number | null
    key?: string
  }
) {
  const duplicate = session.transactions.some(
    (t) =>
      t.transaction_id !== null &&
      t.transaction_id === entry.transaction_id &&
      t.operation === entry.operation
  )
  return duplicate ? session.transactions : [...session.transactions, logEntry(entry)]
}

function failureFor(reasonCode: string, reason: string): FailureReason {
  return { code: reasonCode, message: `${reason}: ${reasonText(reasonCode)}` }
}

function isReason(error: unknown, codes: Set<string>): boolean {
  return (
    error instanceof CardServiceError &&
    error.reasonCode !== undefined &&
    codes.has(error.reasonCode)
  )
}

function addAmounts(a: number, b: number, currencyCode: string): number {
  return fromMinorUnits(
    toMinorUnits(a, currencyCode) + toMinorUnits(b, currencyCode),
    currencyCode
  )
}

function publicRecord(record: TransactionRecord) {
  return {
    transactionId: record.transactionId,
    step: record.step,
    status: record.status,
    reasonCode: record.reasonCode,
    captureStatus: record.captureStatus,
    amount: record.amount,
    currencyCode: record.currencyCode,
    cardType: record.cardType,
    cardSuffix: record.cardSuffix,
  }
}

function stringOrNull(value: unknown): string | null {
  return typeof value === "string" && value.length > 0 ? value : null
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
