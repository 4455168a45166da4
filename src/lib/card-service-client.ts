import { performance } from "node:perf_hooks"
import { Pool, type Dispatcher } from "undici"
import { z } from "zod"
import {
  CardServiceError,
  type CardServiceErrorCategory,
} from "./card-service-error"
import { fitsCurrencyDigits, toVoidAmount } from "./money"
import { resolveCurrency } from "./iso-codes"
import { redactText } from "./log-redaction"
import { categorize, describeReasonCode } from "./reason-codes"
import {
  AuthorizeResponseSchema,
  FollowOnRequestSchema,
  OperationResultSchema,
  ServiceErrorBodySchema,
  TransactionRecordSchema,
  VerdictSchema,
  VoidRequestSchema,
  describeIssues,
  type OperationResult,
  type TransactionRecord,
  type Verdict,
} from "./wire-schemas"
import { dispatchForText } from "./http-exchange"
import {
  classifyTransportError,
  type TransportFailure,
} from "./transport-errors"

export type CardServiceLogger = {
  debug(msg: string): void
  info(msg: string): void
  warn(msg: string): void
  error(msg: string): void
}

export type CardServiceClientOptions = {
  /** Service address ({base_url} or {test_base_url}); a path prefix is kept. */
  baseUrl: string
  /** Section 4.1 clientCode header. */
  clientCode: string
  /** Section 4.1 clientSecret header; never logged. */
  clientSecret: string
  /** Section 4.3 verifyId header: the merchant code. */
  verifyId: string
  /** Merchant ID (MID) put in every 2.3/2.4 body and in the 4.5 path. */
  merchantId: string
  timeouts?: {
    /** TCP/TLS connect. Default 5000. */
    connectMs?: number
    /** From sending the request to the response headers. Default 30000. */
    headersMs?: number
    /** Between body chunks. Default 30000. */
    bodyMs?: number
  }
  /** Only GET /authorize and GET retrieve are ever retried. */
  retry?: {
    /** Total tries including the first. Default 3. */
    attempts?: number
    /** Default 100. */
    baseDelayMs?: number
    /** Default 2000. */
    maxDelayMs?: number
  }
  /** Replaces the client's own Pool (tests inject MockAgent). Not closed by close(). */
  dispatcher?: Dispatcher
  /** Maximum sockets of the client's own Pool. Default 32. */
  connections?: number
  logger?: CardServiceLogger
}

/** Section 2.3 input; merchantId is added by the client. */
export type FollowOnInput = {
  merchantReferenceCode: string
  /** ISO 4217 numeric ("978"); an alpha code ("eur") is converted. */
  currency: string
  /** Major units, already rounded to the currency's digits (toServiceAmount). */
  amount: number
  email: string
  originalTransactionId: string
}

/** Section 2.4 input; merchantId is added by the client. */
export type VoidInput = {
  merchantReferenceCode: string
  /** ISO 4217 numeric ("978"); an alpha code ("eur") is converted. */
  currency: string
  /** Exactly the currency's digits (toVoidAmount): "10.50". */
  amount: string
  email: string
  transactionId: string
  type: "CAPTURE" | "REFUND"
}

export type { OperationResult, TransactionRecord }

type MoneyOperation = "reverse" | "capture" | "refund" | "void"

/**
 * The operations of sections 4.3 and 4.4 as data: all POST a JSON body and
 * answer with the 2.5 fields, and none may be repeated blindly.
 */
const MONEY_OPERATIONS: Record<
  MoneyOperation,
  { path: string; schema: z.ZodType<Record<string, unknown>> }
> = {
  reverse: { path: "/reverse", schema: FollowOnRequestSchema },
  capture: { path: "/capture", schema: FollowOnRequestSchema },
  refund: { path: "/refund", schema: FollowOnRequestSchema },
  void: { path: "/void", schema: VoidRequestSchema },
}

const DEFAULTS = {
  connectMs: 5_000,
  headersMs: 30_000,
  bodyMs: 30_000,
  attempts: 3,
  baseDelayMs: 100,
  maxDelayMs: 2_000,
  connections: 32,
}

type WireResponse = {
  status: number
  /** Parsed JSON, or undefined when the body is empty or not JSON. */
  json: unknown
}

type Exchange =
  | { ok: true; response: WireResponse }
  | { ok: false; failure: TransportFailure }

type CodeEntry = { promise: Promise<string>; value?: string }

const OptionsSchema = z.object({
  baseUrl: z.url({ protocol: /^https?$/ }),
  clientCode: z.string().min(1),
  clientSecret: z.string().min(1),
  verifyId: z.string().min(1),
  merchantId: z.string().min(1),
})

/**
 * Client of the card service (card-service-interface.md sections 4 and 5).
 *
 * One sender owns headers, timeouts, retries and the mapping of every answer
 * to a result or a CardServiceError (house style, after stripe-node's
 * RequestSender). The merchant verification code of section 5 is fetched
 * once, shared by concurrent callers and refreshed only when the service
 * rejects it, since its lifetime is not shown.
 */
export class CardServiceClient {
  private readonly options_: CardServiceClientOptions
  private readonly origin_: string
  private readonly basePath_: string
  private readonly dispatcher_: Dispatcher
  private readonly ownsDispatcher_: boolean
  private readonly timeouts_: {
    connectMs: number
    headersMs: number
    bodyMs: number
  }
  private readonly retry_: {
    attempts: number
    baseDelayMs: number
    maxDelayMs: number
  }
  private readonly logger_?: CardServiceLogger
  /** Section 4.5 path up to the transaction id; the merchantId is fixed per client. */
  private readonly retrievePrefix_: string
  private readonly requestTimeouts_: {
    headersTimeout: number
    bodyTimeout: number
  }
  private codeEntry_?: CodeEntry
  private headers_?: { code: string; headers: Readonly<Record<string, string>> }
  private previousCode_?: string
  private closed_ = false

  constructor(options: CardServiceClientOptions) {
    const parsed = OptionsSchema.safeParse(options)
    if (!parsed.success) {
      throw new CardServiceError({
        category: "invalid_request",
        operation: "configure",
        retrySafe: false,
        detail: `invalid client options: ${describeIssues(parsed.error)}`,
      })
    }
    this.options_ = options
    const url = new URL(options.baseUrl)
    this.origin_ = url.origin
    this.basePath_ = url.pathname.replace(/\/+$/, "")
    this.retrievePrefix_ = `${this.basePath_}/payment/retrieve/${encodeURIComponent(options.merchantId)}/`
    this.timeouts_ = {
      connectMs: options.timeouts?.connectMs ?? DEFAULTS.connectMs,
      headersMs: options.timeouts?.headersMs ?? DEFAULTS.headersMs,
      bodyMs: options.timeouts?.bodyMs ?? DEFAULTS.bodyMs,
    }
    this.retry_ = {
      attempts: Math.max(1, options.retry?.attempts ?? DEFAULTS.attempts),
      baseDelayMs: options.retry?.baseDelayMs ?? DEFAULTS.baseDelayMs,
      maxDelayMs: options.retry?.maxDelayMs ?? DEFAULTS.maxDelayMs,
    }
    this.logger_ = options.logger
    this.requestTimeouts_ = {
      headersTimeout: this.timeouts_.headersMs,
      bodyTimeout: this.timeouts_.bodyMs,
    }
    if (options.dispatcher) {
      this.dispatcher_ = options.dispatcher
      this.ownsDispatcher_ = false
    } else {
      this.dispatcher_ = new Pool(this.origin_, {
        connections: options.connections ?? DEFAULTS.connections,
        connect: { timeout: this.timeouts_.connectMs },
        headersTimeout: this.timeouts_.headersMs,
        bodyTimeout: this.timeouts_.bodyMs,
        // Below the 5 s idle timeout common to servers (Node's default), so
        // we drop an idle socket before the server does: a POST written on a
        // socket the server is closing would be indeterminate.
        keepAliveTimeout: 4_000,
        keepAliveMaxTimeout: 600_000,
      })
      this.ownsDispatcher_ = true
    }
  }

  /** The section 5 merchant verification code, fetched once and shared. */
  getVerificationCode(): Promise<string> {
    if (!this.codeEntry_) {
      this.codeEntry_ = this.track_(this.requestVerificationCode_(true))
    }
    return this.codeEntry_.promise
  }

  /**
   * A verification code just issued by GET /authorize, for a payment form
   * (section 5.3 puts the code in the form the browser posts). The service
   * says nothing of a code's lifetime, and a form may be posted long after a
   * cached code was fetched, while a rejected form cannot be refreshed and
   * replayed as a JSON call can: so each form gets a new code. It also
   * becomes the cached code, being the newest the service issued.
   */
  async freshVerificationCode(): Promise<string> {
    const code = await this.requestVerificationCode_(true)
    this.remember_(code)
    return code
  }

  /** A fresh GET /authorize (one try, no retry); its code replaces the cached one. */
  async testConnection(): Promise<{ ok: true; latencyMs: number }> {
    const started = performance.now()
    const code = await this.requestVerificationCode_(false)
    const latencyMs = Math.round((performance.now() - started) * 10) / 10
    this.remember_(code)
    return { ok: true, latencyMs }
  }

  /** Section 4.3 POST /reverse: releases an approval. */
  async reverse(input: FollowOnInput): Promise<OperationResult> {
    return this.money_("reverse", this.followOnBody_("reverse", input))
  }

  /** Section 4.3 POST /capture. */
  async capture(input: FollowOnInput): Promise<OperationResult> {
    return this.money_("capture", this.followOnBody_("capture", input))
  }

  /** Section 4.3 POST /refund. */
  async refund(input: FollowOnInput): Promise<OperationResult> {
    return this.money_("refund", this.followOnBody_("refund", input))
  }

  /** Section 4.4 POST /void of a CAPTURE or REFUND transaction. */
  async void(input: VoidInput): Promise<OperationResult> {
    return this.money_("void", this.voidBody_(input))
  }

  /** Section 4.5 GET /payment/retrieve/<merchantId>/<transactionId>. */
  async retrieve(transactionId: string): Promise<TransactionRecord> {
    const operation = "retrieve"
    if (typeof transactionId !== "string" || transactionId.trim() === "") {
      throw this.invalidInput_(
        operation,
        "transactionId: must be a non-empty string"
      )
    }
    const path = `${this.retrievePrefix_}${encodeURIComponent(transactionId)}`
    const response = await this.withVerificationCode_(operation, (code) =>
      this.sendSafe_(operation, "GET", path, this.jsonHeaders_(code))
    )
    const { status, json } = response
    if (status === 200) {
      const parsed = TransactionRecordSchema.safeParse(json)
      if (!parsed.success) {
        throw this.invalidResponse_(
          operation,
          status,
          parsed.error,
          true,
          transactionId
        )
      }
      return parsed.data
    }
    if (status === 404) {
      throw new CardServiceError({
        category: "invalid_request",
        operation,
        retrySafe: true,
        httpStatus: status,
        transactionId,
        detail: "the service has no such transaction for this merchant",
      })
    }
    throw this.unexpectedStatus_(operation, response, true)
  }

  /** Closes the client's own pool; an injected dispatcher belongs to the caller. */
  async close(): Promise<void> {
    if (this.closed_) return
    this.closed_ = true
    if (this.ownsDispatcher_) {
      await this.dispatcher_.close()
    }
  }

  private followOnBody_(
    operation: MoneyOperation,
    input: FollowOnInput
  ): Record<string, unknown> {
    const currency = this.currency_(operation, input?.currency)
    if (
      typeof input.amount === "number" &&
      Number.isFinite(input.amount) &&
      !fitsCurrencyDigits(input.amount, currency)
    ) {
      throw this.invalidInput_(
        operation,
        `amount: more decimals than the currency's ${resolveCurrency(currency).digits} (wire-choices); round it with toServiceAmount`
      )
    }
    return this.parseRequest_(operation, {
      merchantId: this.options_.merchantId,
      merchantReferenceCode: input.merchantReferenceCode,
      currency,
      amount: input.amount,
      email: input.email,
      originalTransactionId: input.originalTransactionId,
    })
  }

  private voidBody_(input: VoidInput): Record<string, unknown> {
    const operation = "void"
    const currency = this.currency_(operation, input?.currency)
    if (
      typeof input.amount === "string" &&
      /^\d+(\.\d+)?$/.test(input.amount)
    ) {
      if (toVoidAmount(input.amount, currency) !== input.amount) {
        throw this.invalidInput_(
          operation,
          `amount: must have exactly the currency's ${resolveCurrency(currency).digits} decimals (section 2.4, wire-choices); format it with toVoidAmount`
        )
      }
    }
    return this.parseRequest_(operation, {
      merchantId: this.options_.merchantId,
      merchantReferenceCode: input.merchantReferenceCode,
      currency,
      amount: input.amount,
      email: input.email,
      transactionId: input.transactionId,
      type: input.type,
    })
  }

  private currency_(operation: string, currency: unknown): string {
    if (typeof currency !== "string") {
      throw this.invalidInput_(operation, "currency: must be an ISO 4217 code")
    }
    try {
      return resolveCurrency(currency).numeric
    } catch {
      throw this.invalidInput_(
        operation,
        `currency: unknown ISO 4217 code ${JSON.stringify(currency)}`
      )
    }
  }

  /** House style point 7: a request that does not fit the interface is our bug and is not sent. */
  private parseRequest_(
    operation: MoneyOperation,
    body: Record<string, unknown>
  ): Record<string, unknown> {
    const parsed = MONEY_OPERATIONS[operation].schema.safeParse(body)
    if (!parsed.success) {
      throw this.invalidInput_(operation, describeIssues(parsed.error))
    }
    return parsed.data
  }

  private invalidInput_(operation: string, detail: string): CardServiceError {
    return new CardServiceError({
      category: "invalid_request",
      operation,
      retrySafe: true,
      detail: `invalid request, not sent: ${detail}`,
    })
  }

  private async money_(
    operation: MoneyOperation,
    body: Record<string, unknown>
  ): Promise<OperationResult> {
    const path = `${this.basePath_}${MONEY_OPERATIONS[operation].path}`
    const payload = JSON.stringify(body)
    const response = await this.withVerificationCode_(
      operation,
      async (code) => {
        const exchange = await this.exchange_(
          "POST",
          path,
          this.jsonHeaders_(code),
          payload
        )
        if (!exchange.ok) {
          throw this.moneyTransportError_(operation, exchange.failure)
        }
        return exchange.response
      }
    )
    return this.readOperationResult_(operation, response)
  }

  /**
   * Maps a 2.5 answer. Per wire-choices every business outcome is a 200 with
   * the 2.5 fields, a malformed body a 400 with them, a failing service a 5xx
   * that may carry them.
   */
  private readOperationResult_(
    operation: MoneyOperation,
    response: WireResponse
  ): OperationResult {
    const { status, json } = response
    if (status === 200) {
      const parsed = OperationResultSchema.safeParse(json)
      if (parsed.success) {
        if (parsed.data.decision === "ACCEPT") {
          this.logger_?.debug(
            `card service ${operation}: ACCEPT ${parsed.data.reasonCode} transaction ${parsed.data.transactionId}`
          )
          return parsed.data
        }
        throw this.rejection_(operation, parsed.data, status)
      }
      // A REJECT missing an id is still a clear verdict.
      const verdict = VerdictSchema.safeParse(json)
      if (verdict.success && verdict.data.decision === "REJECT") {
        throw this.rejection_(operation, verdict.data, status)
      }
      throw this.invalidResponse_(
        operation,
        status,
        parsed.error,
        false,
        transactionIdOf(json)
      )
    }
    const verdict = VerdictSchema.safeParse(json)
    if (verdict.success && verdict.data.decision === "REJECT") {
      throw this.rejection_(operation, verdict.data, status)
    }
    if (status >= 500) {
      // The request reached the service and it failed without a verdict:
      // it may have acted. Reconcile by retrieve; never repeat (house style 6).
      throw new CardServiceError({
        category: "indeterminate",
        operation,
        retrySafe: false,
        httpStatus: status,
        detail:
          "the service failed without a verdict after receiving the request; the outcome is unknown, reconcile by retrieve before repeating",
      })
    }
    if (status >= 400 && status < 500) {
      // A 4xx means the service refused the request before acting on it.
      throw this.unexpectedStatus_(operation, response, true)
    }
    throw new CardServiceError({
      category: "invalid_response",
      operation,
      retrySafe: false,
      httpStatus: status,
      detail: `unexpected HTTP status ${status}; the outcome is unknown, reconcile by retrieve`,
    })
  }

  private rejection_(
    operation: string,
    verdict: Verdict,
    httpStatus: number
  ): CardServiceError {
    const reason = describeReasonCode(verdict.reasonCode)
    const category = rejectionCategory(verdict.reasonCode)
    // E-flag codes (150, 151, 152, 250) say the request was received and
    // something timed out or failed inside: CyberSource-style guidance is to
    // check the transaction before resending, so they are not retry-safe.
    const retrySafe =
      category !== "invalid_response" && !(reason.flag ?? "").startsWith("E")
    return new CardServiceError({
      category,
      operation,
      retrySafe,
      decision: verdict.decision,
      reasonCode: verdict.reasonCode,
      httpStatus,
      transactionId: verdict.transactionId || undefined,
      detail:
        category === "invalid_response"
          ? "REJECT with a success reason code"
          : "rejected by the service",
    })
  }

  private moneyTransportError_(
    operation: MoneyOperation,
    failure: TransportFailure
  ): CardServiceError {
    if (!failure.sent) {
      return new CardServiceError({
        category: "service_error",
        operation,
        retrySafe: true,
        detail: `could not reach the service, nothing was sent (${failure.code})`,
        cause: failure.error,
      })
    }
    return new CardServiceError({
      category: "indeterminate",
      operation,
      retrySafe: false,
      detail: `${failure.timeout ? "timed out" : "the connection failed"} after the request was sent (${failure.code}); the outcome is unknown, reconcile by retrieve before repeating`,
      cause: failure.error,
    })
  }

  /**
   * Sends with the cached verification code; on a 401 (wire-choices:
   * invalid_authorization, the service did not act) fetches a fresh code
   * once and replays once.
   */
  private async withVerificationCode_(
    operation: string,
    send: (code: string) => Promise<WireResponse>
  ): Promise<WireResponse> {
    // The cached code is read synchronously: the common path costs no extra await.
    const stale = this.codeEntry_?.value ?? (await this.codeFor_(operation))
    const first = await send(stale)
    if (first.status !== 401) {
      return first
    }
    this.logger_?.info(
      `card service ${operation}: verification code rejected, fetching a new one`
    )
    this.invalidate_(stale)
    const second = await send(await this.codeFor_(operation))
    if (second.status !== 401) {
      return second
    }
    throw new CardServiceError({
      category: "credentials",
      operation,
      retrySafe: true,
      httpStatus: 401,
      detail: `the service rejected a freshly issued verification code${this.serviceSays_(second.json)}; check verifyId and merchantId`,
    })
  }

  private async codeFor_(operation: string): Promise<string> {
    try {
      return await this.getVerificationCode()
    } catch (error) {
      if (!CardServiceError.is(error)) throw error
      throw new CardServiceError({
        category: error.category,
        operation,
        retrySafe: true,
        httpStatus: error.httpStatus,
        detail: `not sent: could not obtain the verification code: ${error.message}`,
        cause: error,
      })
    }
  }

  private track_(promise: Promise<string>): CodeEntry {
    const entry: CodeEntry = { promise }
    entry.promise = promise.then(
      (code) => {
        entry.value = code
        return code
      },
      (error) => {
        if (this.codeEntry_ === entry) this.codeEntry_ = undefined
        throw error
      }
    )
    // Callers await entry.promise; this keeps an unobserved failure quiet.
    entry.promise.catch(() => undefined)
    return entry
  }

  private remember_(code: string): void {
    if (this.codeEntry_?.value && this.codeEntry_.value !== code) {
      this.previousCode_ = this.codeEntry_.value
    }
    const entry: CodeEntry = { promise: Promise.resolve(code), value: code }
    this.codeEntry_ = entry
  }

  /** Drops the cached code only if it is still the rejected one, so 200 rejected callers refresh once. */
  private invalidate_(stale: string): void {
    if (this.codeEntry_?.value === stale) {
      this.previousCode_ = stale
      this.codeEntry_ = undefined
    }
  }

  private async requestVerificationCode_(retry: boolean): Promise<string> {
    const operation = "authorize"
    const headers = {
      clientCode: this.options_.clientCode,
      clientSecret: this.options_.clientSecret,
      "Content-type": "application/json",
    }
    const path = `${this.basePath_}/authorize`
    const response = retry
      ? await this.sendSafe_(operation, "GET", path, headers)
      : await this.sendOnceSafe_(operation, "GET", path, headers)
    const { status, json } = response
    if (status === 200) {
      const parsed = AuthorizeResponseSchema.safeParse(json)
      if (!parsed.success) {
        throw this.invalidResponse_(operation, status, parsed.error, true)
      }
      this.logger_?.debug("card service authorize: new verification code")
      return parsed.data.Authorization
    }
    if (status === 401 || status === 403) {
      throw new CardServiceError({
        category: "credentials",
        operation,
        retrySafe: true,
        httpStatus: status,
        detail: `the service refused clientCode/clientSecret${this.serviceSays_(json)}`,
      })
    }
    throw this.unexpectedStatus_(operation, response, true)
  }

  private async sendOnceSafe_(
    operation: string,
    method: "GET",
    path: string,
    headers: Record<string, string>
  ): Promise<WireResponse> {
    const exchange = await this.exchange_(method, path, headers)
    if (!exchange.ok) {
      throw this.safeTransportError_(operation, exchange.failure)
    }
    return exchange.response
  }

  /**
   * GETs are safe to repeat (they change nothing at the service), so
   * transport failures and 5xx are retried with jittered exponential backoff.
   */
  private async sendSafe_(
    operation: string,
    method: "GET",
    path: string,
    headers: Record<string, string>
  ): Promise<WireResponse> {
    const { attempts } = this.retry_
    for (let attempt = 1; ; attempt++) {
      const exchange = await this.exchange_(method, path, headers)
      const retryable = !exchange.ok || exchange.response.status >= 500
      if (!retryable || attempt >= attempts) {
        if (!exchange.ok) {
          throw this.safeTransportError_(operation, exchange.failure, attempt)
        }
        if (exchange.response.status >= 500) {
          throw this.serverError_(operation, exchange.response, attempt)
        }
        return exchange.response
      }
      const delay = this.backoff_(attempt)
      this.logger_?.warn(
        `card service ${operation}: ${exchange.ok ? `HTTP ${exchange.response.status}` : exchange.failure.code}, retry ${attempt}/${attempts - 1} in ${Math.round(delay)} ms`
      )
      await sleep(delay)
    }
  }

  /** Full jitter: a random delay up to base * 2^(attempt-1), capped. */
  private backoff_(attempt: number): number {
    const { baseDelayMs, maxDelayMs } = this.retry_
    const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1))
    return Math.random() * ceiling
  }

  private safeTransportError_(
    operation: string,
    failure: TransportFailure,
    tries = 1
  ): CardServiceError {
    const category: CardServiceErrorCategory =
      failure.sent && failure.timeout ? "timeout" : "service_error"
    return new CardServiceError({
      category,
      operation,
      retrySafe: true,
      detail: `${failure.sent ? (failure.timeout ? "timed out" : "the connection failed") : "could not reach the service"} (${failure.code}) after ${tries} ${tries === 1 ? "try" : "tries"}`,
      cause: failure.error,
    })
  }

  private serverError_(
    operation: string,
    response: WireResponse,
    tries: number
  ): CardServiceError {
    const verdict = VerdictSchema.safeParse(response.json)
    return new CardServiceError({
      category: "service_error",
      operation,
      retrySafe: true,
      httpStatus: response.status,
      decision: verdict.success ? verdict.data.decision : undefined,
      reasonCode: verdict.success ? verdict.data.reasonCode : undefined,
      detail: `the service failed after ${tries} ${tries === 1 ? "try" : "tries"}${this.serviceSays_(response.json)}`,
    })
  }

  private unexpectedStatus_(
    operation: string,
    response: WireResponse,
    retrySafe: boolean
  ): CardServiceError {
    const { status } = response
    if (status >= 500) return this.serverError_(operation, response, 1)
    if (status === 429) {
      return new CardServiceError({
        category: "service_error",
        operation,
        retrySafe,
        httpStatus: status,
        detail: `the service is limiting requests${this.serviceSays_(response.json)}`,
      })
    }
    return new CardServiceError({
      category:
        status >= 400 && status < 500 ? "invalid_request" : "invalid_response",
      operation,
      retrySafe,
      httpStatus: status,
      detail: `unexpected HTTP ${status}${this.serviceSays_(response.json)}`,
    })
  }

  private invalidResponse_(
    operation: string,
    status: number,
    error: z.ZodError,
    retrySafe: boolean,
    transactionId?: string
  ): CardServiceError {
    return new CardServiceError({
      category: "invalid_response",
      operation,
      retrySafe,
      httpStatus: status,
      transactionId,
      detail: `the response does not fit the interface: ${describeIssues(error)}${retrySafe ? "" : "; the outcome is unknown, reconcile by retrieve"}`,
    })
  }

  /** The service's own error text (wire-choices error bodies), scrubbed of anything secret. */
  private serviceSays_(json: unknown): string {
    const parsed = ServiceErrorBodySchema.safeParse(json)
    if (!parsed.success) return ""
    const text = [parsed.data.error, parsed.data.message]
      .filter(Boolean)
      .join(": ")
    return text ? ` (service says: ${this.scrub_(text).slice(0, 200)})` : ""
  }

  private scrub_(text: string): string {
    return redactText(text, this.secrets_())
  }

  private secrets_(): string[] {
    const secrets = [this.options_.clientSecret]
    if (this.codeEntry_?.value) secrets.push(this.codeEntry_.value)
    if (this.previousCode_) secrets.push(this.previousCode_)
    return secrets
  }

  /**
   * The section 4.3 headers for a code, built once per code: every call
   * between two code changes sends the same frozen object.
   */
  private jsonHeaders_(code: string): Record<string, string> {
    if (this.headers_?.code !== code) {
      this.headers_ = {
        code,
        headers: Object.freeze({
          verifyId: this.options_.verifyId,
          Authorization: code,
          "Content-type": "application/json",
        }),
      }
    }
    return this.headers_.headers
  }

  /** One HTTP exchange; transport failures are returned, not thrown, so callers decide. */
  private async exchange_(
    method: "GET" | "POST",
    path: string,
    headers: Record<string, string>,
    body?: string
  ): Promise<Exchange> {
    if (this.closed_) {
      return {
        ok: false,
        failure: {
          sent: false,
          timeout: false,
          code: "CLIENT_CLOSED",
          error: new Error("the client was closed"),
        },
      }
    }
    const started = this.logger_ ? performance.now() : 0
    try {
      const options: Dispatcher.DispatchOptions = {
        origin: this.origin_,
        path,
        method,
        headers,
        body,
      }
      if (!this.ownsDispatcher_) {
        // The own Pool already carries the timeouts; an injected dispatcher
        // gets them per request so they hold whatever it is.
        options.headersTimeout = this.requestTimeouts_.headersTimeout
        options.bodyTimeout = this.requestTimeouts_.bodyTimeout
      }
      const { status, text } = await dispatchForText(this.dispatcher_, options)
      let json: unknown
      if (text !== "") {
        try {
          json = JSON.parse(text)
        } catch {
          json = undefined
        }
      }
      if (this.logger_) {
        this.logger_.debug(
          `card service ${method} ${path} -> ${status} in ${Math.round(performance.now() - started)} ms`
        )
      }
      return { ok: true, response: { status, json } }
    } catch (error) {
      const failure = classifyTransportError(error)
      this.logger_?.warn(
        `card service ${method} ${path} failed: ${failure.code}${failure.sent ? " after sending" : " before sending"}`
      )
      return { ok: false, failure }
    }
  }
}

function rejectionCategory(code: string): CardServiceErrorCategory {
  const category = categorize(code)
  switch (category) {
    case "success":
      return "invalid_response"
    case "partial":
      return "declined"
    default:
      return category
  }
}

function transactionIdOf(json: unknown): string | undefined {
  if (json && typeof json === "object" && "transactionId" in json) {
    const id = (json as { transactionId: unknown }).transactionId
    return typeof id === "string" && id !== "" ? id : undefined
  }
  return undefined
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
