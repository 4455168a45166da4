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
import type { TransactionRecord } from "../../lib/wire-schemas"
import { ApprovalReversal } from "./approval-reversal"
import { Authorization, tampered } from "./authorization"
import { FollowOns } from "./follow-ons"
import { MedusaSessionTerms } from "./medusa-session-terms"
import { type LostCapture, resolveLostCapture } from "./lost-follow-ons"
import { CardServiceOptions, parseOptions, serviceBaseUrl } from "./options"
import { OrphanRelease } from "./orphan-release"
import { allowedReturnUrl, returnTarget } from "./return-url"
import { SessionBuilder, sessionIdFrom } from "./session-builder"
import { CardServiceSessionData, parseSessionData } from "./session-data"
import { SessionSealer } from "./session-seal"
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

  protected readonly options_: CardServiceOptions
  protected readonly logger_: Logger
  protected readonly client_: CardServiceClient
  protected readonly sealer_: SessionSealer
  protected readonly sessions_: SessionBuilder
  protected readonly lookup_: TransactionLookup
  protected readonly reversal_: ApprovalReversal
  protected readonly followOns_: FollowOns
  protected readonly authorization_: Authorization
  protected readonly orphans_: OrphanRelease
  protected readonly medusaTerms_: MedusaSessionTerms

  static validateOptions(options: Record<string, unknown>): void {
    parseOptions(options)
  }

  constructor(container: { logger: Logger }, options: Record<string, unknown>) {
    super(container, options as CardServiceOptions)
    const parsed = parseOptions(options)
    const logger = container.logger
    const email = parsed.merchantEmail
    const client = new CardServiceClient({
      baseUrl: serviceBaseUrl(parsed),
      clientCode: parsed.clientCode,
      clientSecret: parsed.clientSecret,
      verifyId: parsed.verifyId,
      merchantId: parsed.merchantId,
      timeouts: parsed.timeouts,
      logger,
    })
    const sealer = SessionSealer.fromOptions(parsed)
    const lookup = new TransactionLookup(client, sealer, logger)
    const reversal = new ApprovalReversal(client, lookup, email, logger)
    const followOns = new FollowOns(client, reversal, email, logger)
    this.options_ = parsed
    this.logger_ = logger
    this.client_ = client
    this.sealer_ = sealer
    this.sessions_ = new SessionBuilder(parsed, sealer, logger)
    this.lookup_ = lookup
    this.reversal_ = reversal
    this.followOns_ = followOns
    this.authorization_ = new Authorization(lookup, followOns, reversal, parsed)
    this.orphans_ = new OrphanRelease(lookup, reversal, sealer, logger)
    this.medusaTerms_ = new MedusaSessionTerms(container)
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
    return { status: statusForState(session.state), data: session }
  }

  async authorizePayment({
    data,
    context,
  }: AuthorizePaymentInput): Promise<AuthorizePaymentOutput> {
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
    const session = this.sessions_.requireApproved(data, "capture")
    if (session.capture) {
      // Medusa calls capture again for a "captured" webhook action and for a
      // session that authorizePayment already captured: already done.
      return { data: session }
    }
    return {
      data: await this.followOns_.capture(session, context?.idempotency_key),
    }
  }

  async refundPayment({
    amount,
    data,
    context,
  }: RefundPaymentInput): Promise<RefundPaymentOutput> {
    const session = this.sessions_.requireApproved(data, "refund")
    return {
      data: await this.followOns_.refund(session, amount, context),
    }
  }

  async cancelPayment({
    data,
  }: CancelPaymentInput): Promise<CancelPaymentOutput> {
    const session = parseSessionData(data)
    if (!session || !session.transaction_id || session.state !== "authorized") {
      // Nothing held at the service for this payment: nothing to release.
      return { data: data ?? {} }
    }
    const record = await this.lookup_.required(session.transaction_id)
    return { data: await this.reversal_.reverse(session, record) }
  }

  /** A deleted session's approval is released (orphan-release.ts). */
  async deletePayment({
    data,
  }: DeletePaymentInput): Promise<DeletePaymentOutput> {
    const session = this.sessions_.trusted(data, undefined)
    const released =
      session && (await this.orphans_.releaseDeletedSession(session))
    return { data: released ?? data ?? {} }
  }

  async getPaymentStatus({
    data,
  }: GetPaymentStatusInput): Promise<GetPaymentStatusOutput> {
    const session = parseSessionData(data)
    if (!session) {
      return { status: PaymentSessionStatus.ERROR, data: data ?? {} }
    }
    return this.authorization_.status(session)
  }

  async retrievePayment({
    data,
  }: RetrievePaymentInput): Promise<RetrievePaymentOutput> {
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
    return this.reversal_.reverse(session, record)
  }

  /** For a result reported after Medusa deleted its session (orphan-release.ts). */
  async releaseOrphanedApproval(
    sessionId: string,
    transactionId: string
  ): Promise<boolean> {
    return this.orphans_.releaseOrphanedApproval(sessionId, transactionId)
  }

  /** For the reconciliation sweep: a capture booked with no answer (lost-follow-ons.ts). */
  async resolveLostCapture(
    session: CardServiceSessionData
  ): Promise<LostCapture> {
    return resolveLostCapture(this.followOns_, session)
  }

  /** A fresh reference for one payment attempt of a session (merchant-reference.ts). */
  newReference(sessionId: string): string {
    return this.sealer_.newReference(sessionId)
  }
}
