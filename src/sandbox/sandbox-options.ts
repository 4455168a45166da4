import { CallbackKnobs } from "./callback-delivery"
import { NetworkLatency } from "./network-latency"

export type SandboxCredentials = {
  clientCode: string
  clientSecret: string
  /** The merchant code of section 5 (header or form field `verifyId`). */
  verifyId: string
  merchantId: string
}

export type SandboxLogger = {
  debug?: (message: string) => void
  info: (message: string) => void
  warn: (message: string) => void
  error: (message: string) => void
}

/**
 * What a verification code that went into a payment form is good for.
 * `permissive`: anything, as the interface reads (section 5 puts the code in
 * the browser form and the same code opens the JSON endpoints). `scoped`: a
 * code once posted to /order/start is good for /order/start only; reverse,
 * capture, refund, void and retrieve refuse it as they refuse a bad one (401).
 */
export type CodeScoping = "permissive" | "scoped"

export type SandboxOptions = {
  /** 0 (default) picks a free port. */
  port?: number
  /** Default 127.0.0.1: the sandbox is for this machine only. */
  host?: string
  credentials?: Partial<SandboxCredentials>
  /** Lifetime of a merchant verification code; section 5 leaves it "not shown". Default 30 minutes. */
  verificationTtlMs?: number
  /** Whether a code posted in a form still opens the JSON endpoints (CodeScoping). Default "permissive". */
  codeScoping?: CodeScoping
  /** Time from an accepted capture or refund to TRANSMITTED. Default 5 minutes. */
  settlementMs?: number
  /**
   * Payments marked for review (480) conclude on their own this long after
   * their result, with the card's planned verdict, and the verdict's callback
   * is sent. Unset (default): a review ends only by the control
   * (`concludeReview`, `POST /_sandbox/reviews/{transactionId}`).
   */
  reviewAfterMs?: number
  /** How long a 3DS challenge waits for the shopper. Default 30 minutes. */
  challengeTtlMs?: number
  /** Callback body encoding; wire-choices makes JSON the default. */
  callbackFormat?: "json" | "form"
  /** Initial callback knobs (see CallbackKnobs). */
  callbackKnobs?: Partial<CallbackKnobs>
  /**
   * How many callbacks are delivered to one merchant origin at once; the
   * others wait for a free connection. Default 16.
   */
  callbackConnections?: number
  /**
   * A round trip added to every request before it is handled, with jitter
   * (network-latency.ts): a service across the internet. Default none.
   */
  latency?: Partial<NetworkLatency>
  /** The clock behind verification lifetimes, the 104 window, expiry and settlement. */
  now?: () => number
  /** Receives one line per request at debug level; never card numbers or secrets. */
  logger?: SandboxLogger
}

export const DEFAULT_CREDENTIALS: SandboxCredentials = {
  clientCode: "sandbox-client",
  clientSecret: "sandbox-secret",
  verifyId: "sandbox-verify",
  merchantId: "sandbox-merchant",
}

export const SILENT_LOGGER: SandboxLogger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
}
