import { performance } from "node:perf_hooks"
import { OPERATIONS, type MoneyOperation } from "./card-service-operations"
import {
  resolveClientOptions,
  type CardServiceClientOptions,
  type CardServiceLogger,
} from "./client-options"
import {
  followOnBody,
  invalidInput,
  voidBody,
  type FollowOnInput,
  type VoidInput,
} from "./request-bodies"
import { RequestSender } from "./request-sender"
import { VerificationCodeCache } from "./verification-code-cache"
import type { OperationResult, TransactionRecord } from "./wire-schemas"

export type { CardServiceClientOptions, CardServiceLogger }
export type { ServiceCallObserver, ServiceCallReport } from "./call-report"
export type { FollowOnInput, VoidInput }
export type { OperationResult, TransactionRecord }

/**
 * Client of the card service (card-service-interface.md sections 4 and 5).
 *
 * A thin facade over the layers of house style (after stripe-node): the
 * operations are data (card-service-operations), one RequestSender owns
 * headers, timeouts, retries and the mapping of every answer to a result or
 * a CardServiceError, and the merchant verification code of section 5 is
 * held by a VerificationCodeCache: fetched once, shared by concurrent
 * callers and refreshed only when the service rejects it, since its lifetime
 * is not shown. This class checks the caller's input and names the calls.
 */
export class CardServiceClient {
  private readonly merchantId_: string
  private readonly logger_?: CardServiceLogger
  private readonly codes_: VerificationCodeCache
  private readonly sender_: RequestSender

  constructor(options: CardServiceClientOptions) {
    const config = resolveClientOptions(options)
    this.merchantId_ = config.merchantId
    this.logger_ = config.logger
    this.codes_ = new VerificationCodeCache(() => this.requestCode_())
    this.sender_ = new RequestSender(config, this.codes_)
  }

  /** The section 5 merchant verification code, fetched once and shared. */
  getVerificationCode(): Promise<string> {
    return this.codes_.get()
  }

  /**
   * A verification code just issued by GET /authorize, for a payment form
   * (section 5.3 puts the code in the form the browser posts). The service
   * says nothing of a code's lifetime, and a form may be posted long after a
   * cached code was fetched, while a rejected form cannot be refreshed and
   * replayed as a JSON call can: so each form gets a new code. The code
   * leaves the server in the shopper's browser, so it never becomes the
   * server's own credential (the cached code): what a shopper read from a
   * form is not what the server keeps using for follow-ons and retrieves.
   */
  async freshVerificationCode(): Promise<string> {
    return await this.requestCode_()
  }

  /** A fresh GET /authorize (one try, no retry); its code replaces the cached one. */
  async testConnection(): Promise<{ ok: true; latencyMs: number }> {
    const started = performance.now()
    const code = await this.requestCode_(1)
    const latencyMs = Math.round((performance.now() - started) * 10) / 10
    this.codes_.remember(code)
    return { ok: true, latencyMs }
  }

  /** Section 4.3 POST /reverse: releases an approval. */
  async reverse(input: FollowOnInput): Promise<OperationResult> {
    return this.followOn_(OPERATIONS.reverse, input)
  }

  /** Section 4.3 POST /capture. */
  async capture(input: FollowOnInput): Promise<OperationResult> {
    return this.followOn_(OPERATIONS.capture, input)
  }

  /** Section 4.3 POST /refund. */
  async refund(input: FollowOnInput): Promise<OperationResult> {
    return this.followOn_(OPERATIONS.refund, input)
  }

  /** Section 4.4 POST /void of a CAPTURE or REFUND transaction. */
  async void(input: VoidInput): Promise<OperationResult> {
    const operation = OPERATIONS.void
    return this.money_(operation, voidBody(operation, this.merchantId_, input))
  }

  /** Section 4.5 GET /payment/retrieve/<merchantId>/<transactionId>. */
  async retrieve(transactionId: string): Promise<TransactionRecord> {
    if (typeof transactionId !== "string" || transactionId.trim() === "") {
      throw invalidInput(
        "retrieve",
        "transactionId: must be a non-empty string"
      )
    }
    return this.sender_.send(OPERATIONS.retrieve, undefined, transactionId)
  }

  /** Closes the client's own pool; an injected dispatcher belongs to the caller. */
  async close(): Promise<void> {
    await this.sender_.close()
  }

  /** GET /authorize; `attempts` 1 for a single try (testConnection). */
  private async requestCode_(attempts?: number): Promise<string> {
    const answer = await this.sender_.send(
      OPERATIONS.authorize,
      undefined,
      undefined,
      attempts
    )
    // Stryker disable next-line StringLiteral: log wording only, no behaviour
    this.logger_?.debug("card service authorize: new verification code")
    return answer.Authorization
  }

  private followOn_(
    operation: MoneyOperation,
    input: FollowOnInput
  ): Promise<OperationResult> {
    return this.money_(
      operation,
      followOnBody(operation, this.merchantId_, input)
    )
  }

  private async money_(
    operation: MoneyOperation,
    body: string
  ): Promise<OperationResult> {
    const result = await this.sender_.send(operation, body)
    this.logger_?.debug(
      // Stryker disable next-line StringLiteral: log wording only, no behaviour
      `card service ${operation.name}: ACCEPT ${result.reasonCode} transaction ${result.transactionId}`
    )
    return result
  }
}
