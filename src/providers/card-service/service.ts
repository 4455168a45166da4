import {
  AbstractPaymentProvider,
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
import { observeServiceCall } from "../../observability/service-calls"
import type { TransactionRecord } from "../../lib/wire-schemas"
import { ApprovalNotReleased, ApprovalReversal } from "./approval-reversal"
import { Authorization, tampered } from "./authorization"
import { FollowOns } from "./follow-ons"
import { MedusaCaptures } from "./medusa-captures"
import { MedusaSessionTerms } from "./medusa-session-terms"
import { NotReleasedNotice } from "./not-released-notice"
import { type LostCapture, resolveLostCapture } from "./lost-follow-ons"
import { openChangeRefusal, unrecordedRefundRefusal } from "./order-change-guard"
import { PaymentRecord } from "./payment-record"
import { mergeAdminSettings } from "./admin-settings"
import { CardServiceOptions, parseOptions, serviceBaseUrl } from "./options"
import { OrphanRelease } from "./orphan-release"
import { allowedReturnUrl, returnTarget } from "./return-url"
import { SessionBuilder, sessionIdFrom } from "./session-builder"
import { CardServiceSessionData, parseSessionData } from "./session-data"
import { SessionSealer } from "./session-seal"
import { settingsSource } from "./settings-source"
import { statusForState } from "./status-mapping"
import { publicRecord, TransactionLookup } from "./transaction-lookup"

/**
 * Medusa's payment lifecycle on the card service. This class only
 * orchestrates: each method checks what Medusa hands it and delegates to the
 * part that does the job (session-builder, authorization, follow-ons,
 * approval-reversal, orphan-release).
 *
 * No approval happens on the server: the payment request must come from the
 * shopper's browser (section 4.2), so initiatePayment only prepares what the
 * browser step needs. The routes under /card-service record the transaction
 * the service reports (after checking it with retrieve), and authorizePayment
 * asks the service again before Medusa may place an order.
 */
export default class CardServiceProviderService extends AbstractPaymentProvider<CardServiceOptions> {
  static identifier = "card-service"
  /**
   * What an admin or a storefront shows for the provider in place of its id
   * (Medusa after 2.21 keeps it as the payment provider's display name;
   * 2.12-2.21 ignore it).
   */
  static displayName = "Card service"

  /** medusa-config.ts's options as given: the defaults under the admin's settings. */
  protected readonly codeOptions_: Record<string, unknown>
  protected readonly logger_: Logger
  protected readonly sealer_: SessionSealer
  // Rebuilt by applySettings_ when the admin's settings change (refreshSettings).
  protected options_!: CardServiceOptions
  protected client_!: CardServiceClient
  protected sessions_!: SessionBuilder
  protected lookup_!: TransactionLookup
  protected reversal_!: ApprovalReversal
  protected followOns_!: FollowOns
  protected authorization_!: Authorization
  protected orphans_!: OrphanRelease
  protected settingsRevision_: string | null = null
  protected readonly medusaTerms_: MedusaSessionTerms
  protected readonly medusaCaptures_: MedusaCaptures
  /** The payment's record written by the provider before Medusa writes it (payment-record.ts). */
  protected readonly paymentRecord_: PaymentRecord
  protected readonly notReleased_: NotReleasedNotice

  static validateOptions(options: Record<string, unknown>): void {
    parseOptions(options)
  }

  constructor(container: { logger: Logger }, options: Record<string, unknown>) {
    super(container, options as CardServiceOptions)
    const parsed = parseOptions(options)
    this.codeOptions_ = options
    this.logger_ = container.logger
    // The sealing key comes from medusa-config.ts alone, so the admin
    // changing credentials does not invalidate open payment sessions.
    this.sealer_ = SessionSealer.fromOptions(parsed)
    this.medusaTerms_ = new MedusaSessionTerms(container)
    this.medusaCaptures_ = new MedusaCaptures(container)
    this.paymentRecord_ = new PaymentRecord(container)
    this.notReleased_ = new NotReleasedNotice(container, this.logger_)
    this.applySettings_(parsed)
  }

  /**
   * Brings this instance up to the admin's stored settings (medusa-config.ts
   * options as defaults, locked options kept): every payment operation and
   * every route that looks the provider up calls it. The settings module
   * caches the row and drops the cache on its "updated" event, so this costs
   * a comparison unless something changed. A new client means a new
   * verification-code cache: no code fetched under old credentials is reused.
   */
  async refreshSettings(): Promise<void> {
    const source = settingsSource()
    if (!source) return
    const snapshot = await source.current()
    if (snapshot.revision === this.settingsRevision_) return
    const parsed = parseOptions(mergeAdminSettings(this.codeOptions_, snapshot.values))
    const previous = this.client_
    this.applySettings_(parsed)
    this.settingsRevision_ = snapshot.revision
    // Requests under way keep the old client until they finish; close()
    // waits for them.
    void previous.close().catch(() => undefined)
  }

  protected applySettings_(parsed: CardServiceOptions): void {
    const logger = this.logger_
    const email = parsed.merchantEmail
    const client = new CardServiceClient({
      baseUrl: serviceBaseUrl(parsed),
      clientCode: parsed.clientCode,
      clientSecret: parsed.clientSecret,
      verifyId: parsed.verifyId,
      merchantId: parsed.merchantId,
      timeouts: parsed.timeouts,
      logger,
      // Spans, metrics and the admin's figures of each call (src/observability).
      observer: observeServiceCall,
    })
    const sealer = this.sealer_
    const lookup = new TransactionLookup(client, sealer, logger)
    const reversal = new ApprovalReversal(client, lookup, email, logger)
    const followOns = new FollowOns(client, reversal, email, logger)
    this.options_ = parsed
    this.client_ = client
    this.sessions_ = new SessionBuilder(parsed, sealer, logger)
    this.lookup_ = lookup
    this.reversal_ = reversal
    this.followOns_ = followOns
    this.authorization_ = new Authorization(lookup, followOns, reversal, parsed, sealer)
    this.orphans_ = new OrphanRelease(lookup, reversal, sealer, logger, this.medusaTerms_)
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

  /** medusa-config.ts's options as given (the admin's defaults and locks). */
  get codeOptions(): Readonly<Record<string, unknown>> {
    return this.codeOptions_
  }

  async initiatePayment({
    amount,
    currency_code,
    data,
    context,
  }: InitiatePaymentInput): Promise<InitiatePaymentOutput> {
    await this.refreshSettings()
    const sessionId = sessionIdFrom(
      data,
      context,
      "a payment session id is required to start a payment"
    )
    const session = this.sessions_.fresh({
      sessionId,
      amount,
      currencyCode: currency_code,
      email: context?.customer?.email ?? null,
    })
    session.return_to = this.allowedReturnUrl(data?.return_to)
    return {
      id: sessionId,
      status: PaymentSessionStatus.PENDING,
      data: session,
    }
  }

  /**
   * The routes attach the transaction the service reported through here
   * (Medusa's updatePaymentSession calls it); see SessionBuilder.renewed.
   */
  async updatePayment({
    amount,
    currency_code,
    data,
    context,
  }: UpdatePaymentInput): Promise<UpdatePaymentOutput> {
    await this.refreshSettings()
    const current = this.sessions_.trusted(data, context)
    const sessionId =
      current?.session_id ??
      sessionIdFrom(
        data,
        context,
        "the payment session data is not this provider's"
      )
    const session = this.sessions_.renewed(current, {
      sessionId,
      amount,
      currencyCode: currency_code,
      email: context?.customer?.email ?? null,
    })
    return { status: statusForState(session.state, session.failure), data: session }
  }

  async authorizePayment({
    data,
    context,
  }: AuthorizePaymentInput): Promise<AuthorizePaymentOutput> {
    await this.refreshSettings()
    const stored = this.sessions_.trusted(data, context)
    if (!stored) return tampered(data, this.logger_)
    // The seal binds the terms to the session; Medusa's record must agree too.
    if (!(await this.medusaTerms_.agree(stored, context?.idempotency_key))) {
      return tampered(data, this.logger_)
    }
    return this.authorization_.authorize(stored, context?.idempotency_key)
  }

  async capturePayment({
    data,
    context,
  }: CapturePaymentInput): Promise<CapturePaymentOutput> {
    await this.refreshSettings()
    const key = context?.idempotency_key
    const paymentId = await this.paymentRecord_.paymentOf("capture", key)
    // One follow-on of a payment at a time, on its data as stored now
    // (payment-record.ts, underLock).
    return await this.paymentRecord_.underLock(paymentId, async () => {
      const { data: stored } = await this.paymentRecord_.current(paymentId, data)
      const session = this.sessions_.requireApproved(stored, "capture")
      // Exactly what Medusa books (medusa-captures.ts), once per approval.
      const booked = await this.medusaCaptures_.bookedAmount(session, key)
      const bookedKeys = await this.paymentRecord_.bookedKeys("capture", paymentId)
      const next = await this.followOns_.captureBooked(session, key, booked, bookedKeys)
      // On the payment before Medusa writes it, so a failure of Medusa's write
      // cannot lose what the service did (payment-record.ts).
      if (next !== session) await this.paymentRecord_.write(paymentId, next)
      return { data: next }
    })
  }

  async refundPayment({
    amount,
    data,
    context,
  }: RefundPaymentInput): Promise<RefundPaymentOutput> {
    await this.refreshSettings()
    const key = context?.idempotency_key
    const paymentId = await this.paymentRecord_.paymentOf("refund", key)
    return await this.paymentRecord_.underLock(paymentId, async () => {
      const { data: stored, collectionId } = await this.paymentRecord_.current(paymentId, data)
      const session = this.sessions_.requireApproved(stored, "refund")
      const bookedKeys = await this.paymentRecord_.bookedKeys("refund", paymentId)
      // Refused before anything is sent where Medusa could not record the refund on its order.
      const beforeSending = async (refundAmount: number) => {
        const refusal =
          (await unrecordedRefundRefusal(paymentId, collectionId, key)) ?? (await openChangeRefusal(collectionId, refundAmount))
        if (refusal) throw refusal
      }
      const next = await this.followOns_.refund(session, amount, context, bookedKeys, beforeSending)
      if (next !== session) await this.paymentRecord_.write(paymentId, next)
      return { data: next }
    })
  }

  /**
   * Releases the payment's approval. Medusa's payment module passes the
   * payment's id as the idempotency key: the payment is marked before the
   * reversal is sent, and the answer written onto it before Medusa writes
   * it (payment-record.ts), so that an order cancel that stops midway is
   * finished by the sweep (reconciliation/interrupted-cancels.ts).
   */
  async cancelPayment({
    data,
    context,
  }: CancelPaymentInput): Promise<CancelPaymentOutput> {
    await this.refreshSettings()
    const session = parseSessionData(data)
    if (!session || !session.transaction_id || session.state !== "authorized") {
      // Nothing held at the service for this payment: nothing to release.
      return { data: data ?? {} }
    }
    const paymentId = context?.idempotency_key ?? null
    const requestedAt = new Date().toISOString()
    await this.paymentRecord_.markCancel(paymentId, { requested_at: requestedAt })
    const record = await this.lookup_.required(session.transaction_id)
    try {
      const reversed = await this.reversal_.reverse(session, record)
      await this.paymentRecord_.write(paymentId, reversed)
      return { data: reversed }
    } catch (error) {
      // Medusa 2.21's cancelPaymentStep only logs this error and cancels
      // the order anyway; the note puts the case in Needs attention.
      if (ApprovalNotReleased.is(error)) {
        await this.paymentRecord_.markCancel(paymentId, { refused: error.reasonCode })
        await this.notReleased_.publish(session.session_id, error)
      }
      throw error
    }
  }

  /** A deleted session's approval is released (orphan-release.ts). */
  async deletePayment({
    data,
  }: DeletePaymentInput): Promise<DeletePaymentOutput> {
    await this.refreshSettings()
    const session = this.sessions_.trusted(data, undefined)
    const released =
      session && (await this.orphans_.releaseDeletedSession(session))
    return { data: released ?? data ?? {} }
  }

  async getPaymentStatus({
    data,
  }: GetPaymentStatusInput): Promise<GetPaymentStatusOutput> {
    await this.refreshSettings()
    const session = parseSessionData(data)
    if (!session) {
      return { status: PaymentSessionStatus.ERROR, data: data ?? {} }
    }
    return this.authorization_.status(session)
  }

  async retrievePayment({
    data,
  }: RetrievePaymentInput): Promise<RetrievePaymentOutput> {
    await this.refreshSettings()
    const session = parseSessionData(data)
    if (!session?.transaction_id) {
      return { data: data ?? {} }
    }
    const record = await this.lookup_.required(session.transaction_id)
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
  verifySession(
    data: unknown,
    sessionId?: string
  ): CardServiceSessionData | null {
    return this.sessions_.trusted(
      data,
      sessionId ? { idempotency_key: sessionId } : undefined
    )
  }

  /** A return URL the storefront asked for, if its origin is allowed (return-url.ts). */
  allowedReturnUrl(candidate: unknown): string | null {
    return allowedReturnUrl(this.options_, candidate)
  }

  /** Where the shopper goes after the return route: the session's choice or the default. */
  returnTarget(session: Pick<CardServiceSessionData, "return_to"> | null): URL {
    return returnTarget(this.options_, session)
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
    await this.refreshSettings()
    return this.reversal_.reverse(session, record)
  }

  /** For a result reported after Medusa deleted its session (orphan-release.ts). */
  async releaseOrphanedApproval(
    sessionId: string,
    transactionId: string
  ): Promise<boolean> {
    await this.refreshSettings()
    return this.orphans_.releaseOrphanedApproval(sessionId, transactionId)
  }

  /** For the admin: the owner's answer about a refund booked with no answer. */
  async settleUnknownRefund(
    session: CardServiceSessionData,
    key: string,
    made: boolean
  ): Promise<CardServiceSessionData> {
    await this.refreshSettings()
    return this.followOns_.settleUnknownRefund(session, key, made)
  }

  /** For the reconciliation sweep: a capture booked with no answer (lost-follow-ons.ts). */
  async resolveLostCapture(
    session: CardServiceSessionData
  ): Promise<LostCapture> {
    await this.refreshSettings()
    return resolveLostCapture(this.followOns_, session)
  }

  /**
   * For the reconciliation sweep: a capture or refund Medusa booked (its row
   * `key`) whose provider call never returned, so the payment's log lacks it
   * (follow-ons.ts, settleUnloggedCapture and settleUnloggedRefund). Null:
   * nothing to change.
   */
  async settleUnloggedFollowOn(
    session: CardServiceSessionData,
    kind: "capture" | "refund",
    key: string,
    amount: number
  ): Promise<CardServiceSessionData | null> {
    await this.refreshSettings()
    return kind === "capture"
      ? this.followOns_.settleUnloggedCapture(session, key, amount)
      : this.followOns_.settleUnloggedRefund(session, key, amount)
  }

  /** A fresh reference for one payment attempt of a session (merchant-reference.ts). */
  newReference(sessionId: string): string {
    return this.sealer_.newReference(sessionId)
  }
}
