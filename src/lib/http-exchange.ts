import type { Dispatcher } from "undici"

/** What one HTTP exchange with the card service gives back. */
export type RawResponse = {
  status: number
  /** The body as UTF-8 text; "" when there is none. */
  text: string
}

/**
 * Larger than any answer of the interface (a 2.1 record is a few hundred
 * bytes) by three orders of magnitude; anything bigger is not the service.
 */
export const MAX_RESPONSE_BYTES = 1024 * 1024

/** The error a response over `MAX_RESPONSE_BYTES` ends with; it arrives after sending. */
export class ResponseTooLargeError extends Error {
  readonly code = "CARD_SERVICE_RESPONSE_TOO_LARGE"

  constructor(limit: number) {
    super(`the response body exceeds ${limit} bytes`)
    this.name = "ResponseTooLargeError"
  }
}

/**
 * Sends one request through undici's handler API (`dispatch`) and collects
 * the whole body as text.
 *
 * The card service's answers are small JSON documents read in full, so the
 * Readable stream that `request()` builds around every body is pure cost: on
 * a loopback round trip it is several microseconds, as much as validating the
 * answer with zod (scripts/bench-client.ts). The dispatcher's own headers and
 * body timeouts apply exactly as with `request()`, and every failure, before
 * or after the headers, rejects with undici's error and its code, so
 * classifyTransportError reads it the same way.
 */
export function dispatchForText(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  maxBytes: number = MAX_RESPONSE_BYTES
): Promise<RawResponse> {
  return new Promise<RawResponse>((resolve, reject) => {
    let status = 0
    let size = 0
    const chunks: Buffer[] = []
    dispatcher.dispatch(options, {
      onRequestStart() {},
      onResponseStart(_controller, statusCode) {
        status = statusCode
      },
      onResponseData(controller, chunk) {
        size += chunk.length
        if (size > maxBytes) {
          controller.abort(new ResponseTooLargeError(maxBytes))
          return
        }
        chunks.push(chunk)
      },
      onResponseEnd() {
        const text =
          chunks.length === 0
            ? ""
            : chunks.length === 1
              ? chunks[0].toString("utf8")
              : Buffer.concat(chunks, size).toString("utf8")
        resolve({ status, text })
      },
      onResponseError(_controller, error) {
        reject(error)
      },
    })
  })
}
