/**
 * Sorts transport failures by the one question that decides what a caller
 * may do next: could the request have reached the service?
 *
 * A failure while connecting means nothing was sent, so even a capture may be
 * sent again. Anything after that (no headers in time, a reset, a truncated
 * body) means the service may have acted, and a money operation becomes
 * indeterminate (house style point 6).
 */

export type TransportFailure = {
  /** False only when the failure certainly happened before the request was written. */
  sent: boolean
  /** A timeout (connect, headers or body) rather than a refused or broken connection. */
  timeout: boolean
  /** The error code, for messages and logs ("ECONNREFUSED", "UND_ERR_HEADERS_TIMEOUT"). */
  code: string
  error: unknown
}

/** Failures that happen while opening the connection, before any byte of the request. */
const BEFORE_SENDING = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_CLOSED",
  "UND_ERR_INVALID_ARG",
  // MockAgent with disableNetConnect(): the request never left the process.
  "UND_MOCK_ERR_MOCK_NOT_MATCHED",
])

const TIMEOUTS = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "ETIMEDOUT",
])

function errorCode(error: unknown): string {
  if (error && typeof error === "object") {
    const code = (error as { code?: unknown }).code
    if (typeof code === "string" && code !== "") return code
    // Node's happy-eyeballs connect reports an AggregateError of attempts.
    const errors = (error as { errors?: unknown }).errors
    if (Array.isArray(errors) && errors.length > 0) return errorCode(errors[0])
    const cause = (error as { cause?: unknown }).cause
    if (cause) return errorCode(cause)
  }
  return "UNKNOWN"
}

function isTlsHandshakeFailure(code: string): boolean {
  return (
    code.startsWith("ERR_TLS_") ||
    code.startsWith("ERR_SSL_") ||
    code.startsWith("CERT_") ||
    code === "DEPTH_ZERO_SELF_SIGNED_CERT" ||
    code === "SELF_SIGNED_CERT_IN_CHAIN" ||
    code === "UNABLE_TO_VERIFY_LEAF_SIGNATURE"
  )
}

export function classifyTransportError(error: unknown): TransportFailure {
  const code = errorCode(error)
  const sent = !(BEFORE_SENDING.has(code) || isTlsHandshakeFailure(code))
  return { sent, timeout: TIMEOUTS.has(code), code, error }
}
