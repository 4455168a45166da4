import { performance } from "node:perf_hooks"
import { Pool, type Dispatcher } from "undici"
import { callReport, type CallTally } from "./call-report"
import { CardServiceError } from "./card-service-error"
import {
  operationPaths,
  type CardServiceOperation,
  type OperationName,
} from "./card-service-operations"
import type { CardServiceLogger, ClientConfig } from "./client-options"
import { dispatchForText } from "./http-exchange"
import { redactText } from "./log-redaction"
import {
  codeRejectedTwice,
  codeUnavailable,
  readDocument,
  readVerdict,
  serverError,
  transportError,
  type Scrub,
  type WireResponse,
} from "./response-mapping"
import {
  classifyTransportError,
  type TransportFailure,
} from "./transport-errors"
import type { VerificationCodeCache } from "./verification-code-cache"

type Exchange =
  | { ok: true; response: WireResponse }
  | { ok: false; failure: TransportFailure }

/**
 * The one sender of the client (house style, after stripe-node's
 * RequestSender): it sends an operation described in card-service-operations
 * and owns everything around the wire: the headers (4.1 credentials or the
 * 4.3 verification code, replayed once with a fresh code on a 401), the
 * timeouts, the retries of safe requests, and the mapping of every answer or
 * failure to a result or a CardServiceError (response-mapping). The transport is undici's
 * dispatch API on the client's own Pool, or on the `dispatcher` option.
 */
export class RequestSender {
  private readonly config_: ClientConfig
  private readonly codes_: VerificationCodeCache
  private readonly logger_?: CardServiceLogger
  private readonly dispatcher_: Dispatcher
  private readonly ownsDispatcher_: boolean
  private readonly paths_: Readonly<Record<OperationName, string>>
  /** Section 4.1 headers: the same frozen object for every GET /authorize. */
  private readonly credentialHeaders_: Readonly<Record<string, string>>
  /** The 4.3 headers of the current code; see headersFor_. */
  private codeHeaders_?: {
    code: string
    headers: Readonly<Record<string, string>>
  }
  private closed_ = false
  /** Bound once, so mapping an answer allocates no closure per call. */
  private readonly scrub_: Scrub = (text) =>
    redactText(text, [this.config_.clientSecret, ...this.codes_.knownCodes()])

  constructor(config: ClientConfig, codes: VerificationCodeCache) {
    this.config_ = config
    this.codes_ = codes
    this.logger_ = config.logger
    this.paths_ = operationPaths(config.basePath, config.merchantId)
    this.credentialHeaders_ = Object.freeze({
      clientCode: config.clientCode,
      clientSecret: config.clientSecret,
      "Content-type": "application/json",
    })
    if (config.dispatcher) {
      this.dispatcher_ = config.dispatcher
      this.ownsDispatcher_ = false
    } else {
      const { connectMs, headersMs, bodyMs } = config.timeouts
      this.dispatcher_ = new Pool(config.origin, {
        connections: config.connections,
        connect: { timeout: connectMs },
        headersTimeout: headersMs,
        bodyTimeout: bodyMs,
        // Below the 5 s idle timeout common to servers (Node's default), so
        // we drop an idle socket before the server does: a POST written on a
        // socket the server is closing would be indeterminate.
        keepAliveTimeout: 4_000,
        keepAliveMaxTimeout: 600_000,
      })
      this.ownsDispatcher_ = true
    }
  }

  /**
   * Sends one operation and reads its answer. `body` is the JSON a money
   * operation carries; `transactionId` is appended to the path of an
   * operation addressed by it (retrieve); `attempts` caps the tries of a
   * retry-safe operation (default: the configured retry.attempts).
   */
  async send<Result>(
    operation: CardServiceOperation<Result>,
    body?: string,
    transactionId?: string,
    attempts: number = this.config_.retry.attempts
  ): Promise<Result> {
    const observer = this.config_.observer
    if (!observer) return this.sendOnce_(operation, body, transactionId, attempts)
    const tally: CallTally = { attempts: 0 }
    const startedAt = performance.timeOrigin + performance.now()
    const started = performance.now()
    let outcome: { result: unknown } | { error: unknown }
    try {
      const result = await this.sendOnce_(operation, body, transactionId, attempts, tally)
      outcome = { result }
      return result
    } catch (error) {
      outcome = { error }
      throw error
    } finally {
      try {
        observer(callReport(operation, tally, startedAt, performance.now() - started, outcome!))
      } catch {
        // An observer's failure never becomes the call's (call-report.ts).
      }
    }
  }

  private async sendOnce_<Result>(
    operation: CardServiceOperation<Result>,
    body: string | undefined,
    transactionId: string | undefined,
    attempts: number,
    tally?: CallTally
  ): Promise<Result> {
    const base = this.paths_[operation.name]
    const path =
      transactionId === undefined
        ? base
        : base + encodeURIComponent(transactionId)
    let response: WireResponse
    if (operation.verificationCode) {
      // The cached code is read synchronously: the common path costs no extra await.
      const code = this.codes_.current ?? (await this.codeFor_(operation.name))
      const headers = this.headersFor_(code)
      response = await this.transmit_(operation, path, headers, body, attempts, tally)
      if (response.status === 401) {
        response = await this.replay_(operation, path, body, attempts, code, tally)
      }
    } else {
      const headers = this.credentialHeaders_
      response = await this.transmit_(operation, path, headers, body, attempts, tally)
    }
    if (operation.answer === "verdict") {
      // A verdict operation's result type is the 2.5 OperationResult.
      return readVerdict(operation.name, response, this.scrub_) as Result
    }
    return readDocument(operation, response, this.scrub_, transactionId)
  }

  /** Closes the client's own pool; an injected dispatcher belongs to the caller. */
  async close(): Promise<void> {
    if (this.closed_) return
    this.closed_ = true
    if (this.ownsDispatcher_) {
      await this.dispatcher_.close()
    }
  }

  /**
   * A 401 means the service did not act (wire-choices: invalid_authorization),
   * so a fresh code is fetched once and the request replayed once.
   */
  private async replay_<Result>(
    operation: CardServiceOperation<Result>,
    path: string,
    body: string | undefined,
    attempts: number,
    stale: string,
    tally?: CallTally
  ): Promise<WireResponse> {
    this.logger_?.info(
      // Stryker disable next-line StringLiteral: log wording only, no behaviour
      `card service ${operation.name}: verification code rejected, fetching a new one`
    )
    this.codes_.invalidate(stale)
    const headers = this.headersFor_(await this.codeFor_(operation.name))
    const second = await this.transmit_(
      operation,
      path,
      headers,
      body,
      attempts,
      tally
    )
    if (second.status !== 401) {
      return second
    }
    throw codeRejectedTwice(operation.name, second, this.scrub_)
  }

  private async codeFor_(operation: string): Promise<string> {
    try {
      return await this.codes_.get()
    } catch (error) {
      throw CardServiceError.is(error)
        ? codeUnavailable(operation, error)
        : error
    }
  }

  /**
   * The section 4.3 headers for a code, built once per code: every call
   * between two code changes sends the same frozen object.
   */
  private headersFor_(code: string): Readonly<Record<string, string>> {
    if (this.codeHeaders_?.code !== code) {
      this.codeHeaders_ = {
        code,
        headers: Object.freeze({
          verifyId: this.config_.verifyId,
          Authorization: code,
          "Content-type": "application/json",
        }),
      }
    }
    return this.codeHeaders_.headers
  }

  /**
   * Sends once, or, for a retry-safe operation, retries transport failures
   * and 5xx with jittered exponential backoff up to `attempts` tries.
   */
  private async transmit_<Result>(
    operation: CardServiceOperation<Result>,
    path: string,
    headers: Readonly<Record<string, string>>,
    body: string | undefined,
    attempts: number,
    tally?: CallTally
  ): Promise<WireResponse> {
    for (let attempt = 1; ; attempt++) {
      const exchange = await this.exchange_(
        operation.method,
        path,
        headers,
        body
      )
      if (tally) {
        tally.attempts += 1
        tally.httpStatus = exchange.ok ? exchange.response.status : undefined
      }
      if (!operation.retrySafe) {
        if (exchange.ok) return exchange.response
        throw transportError(operation, exchange.failure, attempt)
      }
      const retryable = !exchange.ok || exchange.response.status >= 500
      if (!retryable) return exchange.response
      if (attempt >= attempts) {
        throw exchange.ok
          ? serverError(operation.name, exchange.response, attempt, this.scrub_)
          : transportError(operation, exchange.failure, attempt)
      }
      const delay = this.backoff_(attempt)
      this.logger_?.warn(
        // Stryker disable next-line StringLiteral,ArithmeticOperator: log wording only, no behaviour
        `card service ${operation.name}: ${exchange.ok ? `HTTP ${exchange.response.status}` : exchange.failure.code}, retry ${attempt}/${attempts - 1} in ${Math.round(delay)} ms`
      )
      await sleep(delay)
    }
  }

  /** Full jitter: a random delay up to base * 2^(attempt-1), capped. */
  private backoff_(attempt: number): number {
    const { baseDelayMs, maxDelayMs } = this.config_.retry
    const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1))
    return Math.random() * ceiling
  }

  /** One HTTP exchange; transport failures are returned, not thrown, so callers decide. */
  private async exchange_(
    method: "GET" | "POST",
    path: string,
    headers: Readonly<Record<string, string>>,
    body: string | undefined
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
        origin: this.config_.origin,
        path,
        method,
        headers,
        body,
      }
      if (!this.ownsDispatcher_) {
        // The own Pool already carries the timeouts; an injected dispatcher
        // gets them per request so they hold whatever it is.
        options.headersTimeout = this.config_.timeouts.headersMs
        options.bodyTimeout = this.config_.timeouts.bodyMs
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
      // Stryker disable next-line ConditionalExpression,BlockStatement: whether a debug line is written, no behaviour
      if (this.logger_) {
        this.logger_.debug(
          // Stryker disable next-line StringLiteral,ArithmeticOperator: log wording only, no behaviour
          `card service ${method} ${path} -> ${status} in ${Math.round(performance.now() - started)} ms`
        )
      }
      return { ok: true, response: { status, json } }
    } catch (error) {
      const failure = classifyTransportError(error)
      this.logger_?.warn(
        // Stryker disable next-line StringLiteral: log wording only, no behaviour
        `card service ${method} ${path} failed: ${failure.code}${failure.sent ? " after sending" : " before sending"}`
      )
      return { ok: false, failure }
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
