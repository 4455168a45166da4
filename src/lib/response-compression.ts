import zlib from "node:zlib"

/**
 * Brotli or gzip for the checkout's own pages and script, with Node's zlib.
 *
 * Medusa's compression middleware is the whole app's choice (off unless the
 * store sets projectConfig.http.compression), so the plugin compresses what
 * it serves itself. When the app's middleware is on as well, it leaves a
 * response alone that already has a Content-Encoding.
 */

export type Encoding = "br" | "gzip" | "identity"

/** Below this, the encoding's own overhead outweighs what it saves. */
export const COMPRESSION_THRESHOLD_BYTES = 1024

/** Server preference where the client likes both equally: brotli is smaller. */
const PREFERENCE: Encoding[] = ["br", "gzip"]

/**
 * The encoding to answer with, from Accept-Encoding (RFC 9110 12.5.3):
 * the client's highest q among br and gzip, brotli on a tie, identity when
 * it names neither or refuses both with q=0.
 */
export function chooseEncoding(
  acceptEncoding: string | string[] | undefined
): Encoding {
  const header = Array.isArray(acceptEncoding)
    ? acceptEncoding.join(",")
    : (acceptEncoding ?? "")
  const weights = new Map<string, number>()
  for (const part of header.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";")
    if (!name) continue
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="))
    const weight = q ? Number(q.slice(2)) : 1
    weights.set(name.trim(), Number.isFinite(weight) ? weight : 0)
  }
  const wildcard = weights.get("*")
  let best: Encoding = "identity"
  let bestWeight = 0
  for (const encoding of PREFERENCE) {
    const weight = weights.get(encoding) ?? wildcard ?? 0
    if (weight > bestWeight) {
      best = encoding
      bestWeight = weight
    }
  }
  return best
}

/**
 * Compresses a body. `level` "max" is for bodies compressed once and kept
 * (the page script); "fast" for bodies made per request (the page), where
 * brotli's top quality would cost more time than it saves bytes.
 */
export function encode(
  body: Buffer,
  encoding: Encoding,
  level: "fast" | "max" = "fast"
): Buffer {
  switch (encoding) {
    case "br":
      return zlib.brotliCompressSync(body, {
        params: {
          [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
          [zlib.constants.BROTLI_PARAM_QUALITY]: level === "max" ? 11 : 5,
          [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        },
      })
    case "gzip":
      return zlib.gzipSync(body, { level: level === "max" ? 9 : 6 })
    case "identity":
      return body
  }
}

/** The parts of a Node or Express response this file writes to. */
type HeaderSink = {
  setHeader(name: string, value: string | number): unknown
  getHeader(name: string): unknown
}

/**
 * Sets the headers for a body in an encoding and returns the bytes to send.
 * Vary is always set, so a cache never hands a compressed copy to a client
 * that did not ask for one.
 */
export function prepareBody(
  res: HeaderSink,
  body: string | Buffer,
  encoding: Encoding,
  level: "fast" | "max" = "fast"
): Buffer {
  const raw = typeof body === "string" ? Buffer.from(body, "utf8") : body
  const vary = String(res.getHeader("Vary") ?? "")
  if (!/(^|,)\s*accept-encoding\s*(,|$)/i.test(vary)) {
    res.setHeader("Vary", vary ? `${vary}, Accept-Encoding` : "Accept-Encoding")
  }
  const used = raw.length < COMPRESSION_THRESHOLD_BYTES ? "identity" : encoding
  const bytes = encode(raw, used, level)
  if (used !== "identity") res.setHeader("Content-Encoding", used)
  res.setHeader("Content-Length", bytes.length)
  return bytes
}
