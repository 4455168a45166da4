import type { Dispatcher } from "undici"
import { z } from "zod"
import type { ServiceCallObserver } from "./call-report"
import { CardServiceError } from "./card-service-error"
import { describeIssues } from "./wire-schemas"

/**
 * What a caller may set on the card-service client, its defaults, and the
 * check that refuses a client that could never work (no address, no
 * credentials) before any request is made.
 */

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
  /**
   * Called once after each call to the service with what it came to
   * (operation, HTTP status, verdict, attempts, duration; call-report.ts):
   * the hook for metrics and traces. Never given a secret or card data.
   */
  observer?: ServiceCallObserver
}

/** The options with every default filled in and the base URL taken apart. */
export type ClientConfig = {
  origin: string
  /** The path prefix of baseUrl, without a trailing slash ("" for none). */
  basePath: string
  clientCode: string
  clientSecret: string
  verifyId: string
  merchantId: string
  timeouts: { connectMs: number; headersMs: number; bodyMs: number }
  retry: { attempts: number; baseDelayMs: number; maxDelayMs: number }
  dispatcher?: Dispatcher
  connections: number
  logger?: CardServiceLogger
  observer?: ServiceCallObserver
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

const OptionsSchema = z.object({
  baseUrl: z.url({ protocol: /^https?$/ }),
  clientCode: z.string().min(1),
  clientSecret: z.string().min(1),
  verifyId: z.string().min(1),
  merchantId: z.string().min(1),
})

/** Checks the options (naming every bad field, never echoing a value) and fills in the defaults. */
export function resolveClientOptions(
  options: CardServiceClientOptions
): ClientConfig {
  const parsed = OptionsSchema.safeParse(options)
  if (!parsed.success) {
    throw new CardServiceError({
      category: "invalid_request",
      operation: "configure",
      retrySafe: false,
      detail: `invalid client options: ${describeIssues(parsed.error)}`,
    })
  }
  const url = new URL(options.baseUrl)
  return {
    origin: url.origin,
    basePath: url.pathname.replace(/\/+$/, ""),
    clientCode: options.clientCode,
    clientSecret: options.clientSecret,
    verifyId: options.verifyId,
    merchantId: options.merchantId,
    timeouts: {
      connectMs: options.timeouts?.connectMs ?? DEFAULTS.connectMs,
      headersMs: options.timeouts?.headersMs ?? DEFAULTS.headersMs,
      bodyMs: options.timeouts?.bodyMs ?? DEFAULTS.bodyMs,
    },
    retry: {
      attempts: Math.max(1, options.retry?.attempts ?? DEFAULTS.attempts),
      baseDelayMs: options.retry?.baseDelayMs ?? DEFAULTS.baseDelayMs,
      maxDelayMs: options.retry?.maxDelayMs ?? DEFAULTS.maxDelayMs,
    },
    dispatcher: options.dispatcher,
    connections: options.connections ?? DEFAULTS.connections,
    logger: options.logger,
    observer: options.observer,
  }
}
