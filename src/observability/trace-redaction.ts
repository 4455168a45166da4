/**
 * Keeps credentials, the plugin's identifiers and the shopper's data out of
 * the traces a store exports (issue 41).
 *
 * Medusa's HTTP instrumentation (`registerOtel` with `instrument.http`,
 * @medusajs/medusa's instrumentHttpLayer) spreads every request header into
 * the request's span (`...req.headers`: the admin's bearer token, the
 * dashboard's session cookie, the publishable key) and records `req.url`
 * with its query string as `http.url`, and as the span's name when no
 * route matched. On the plugin's routes that URL holds the payment session's
 * id (`/card-service/pay/payses_...` opens the page with the shopper's
 * e-mail, phone and address) and the service's transaction id and merchant
 * reference (`/card-service/return/...?transactionId=...`). The plugin's own
 * spans carry none of these (telemetry-names.ts); Medusa's do, so the store
 * puts this processor in front of its exporter.
 *
 * Framework-free and typed by shape only: a store's instrumentation.ts
 * loads it before Medusa, and it must fit whichever OpenTelemetry SDK the
 * store's Medusa carries (1.x or 2.x) without the plugin depending on one.
 */
import { redactSessionIds, redactText } from "../lib/log-redaction"

/** What replaces a value that is left out (OpenTelemetry's semantic conventions spell it so for URL query values). */
export const REDACTED = "REDACTED"

type AttributeValue =
  | string
  | number
  | boolean
  | ReadonlyArray<string | number | boolean | null | undefined>

export type SpanAttributes = Record<string, AttributeValue | undefined>

/** The part of a finished span (the SDK's ReadableSpan) that carries text. */
export interface ReadableSpanLike {
  readonly name: string
  readonly attributes: SpanAttributes
  readonly events: ReadonlyArray<{
    readonly name: string
    readonly attributes?: SpanAttributes
  }>
  readonly links: ReadonlyArray<{ readonly attributes?: SpanAttributes }>
  readonly status: { readonly code: number; readonly message?: string }
  spanContext(): unknown
}

/** The SDK's SpanProcessor, by shape (onEnding is 2.x's, optional). */
export interface SpanProcessorLike<
  TSpan,
  TContext,
  TEnded extends ReadableSpanLike,
> {
  onStart(span: TSpan, parentContext: TContext): void
  onEnding?(span: TSpan): void
  onEnd(span: TEnded): void
  forceFlush(): Promise<void>
  shutdown(): Promise<void>
}

/**
 * The store's span processor (a BatchSpanProcessor or SimpleSpanProcessor
 * with its exporter) behind one that hands it, for every finished span, a
 * copy without credentials and with the plugin's identifiers masked:
 *
 * - attributes named like a credential are dropped: `authorization`,
 *   `proxy-authorization`, `cookie`, `set-cookie`, `x-publishable-api-key`,
 *   and any whose name says token, secret, password, API key, signature,
 *   credential, session or CSRF, as Medusa's bare header names and as
 *   `http.request.header.<name>` / `http.response.header.<name>`;
 * - `referer` and `origin` keep only the origin (the pay page's URL would
 *   otherwise come back in the referer of every request the page makes);
 * - in every text (attribute values, the span's name and status message,
 *   events' and links' attributes), query values whose name is an
 *   identifier or a secret (`transactionId`, `merchantReferenceCode`, any
 *   `...session...`, `token`, `q`...) become REDACTED, in `http.url` and
 *   span names as in a bare `url.query`; payment session ids become their
 *   log tag (`payses_…` and the last six characters, as in the logs), and
 *   so do the ids of Medusa's carts, orders and payment collections (each
 *   opens the shopper's data with the store's publishable key); the
 *   plugin's merchant references, digit runs of 20 or more (transaction
 *   ids), e-mail addresses, JWTs and URL passwords become REDACTED; card
 *   numbers keep their last four digits.
 *
 * The span itself is not changed: other processors see it as it is (which
 * is why each of the store's processors must be wrapped). `onStart` and
 * `onEnding` pass the live span on unchanged, as the SDK requires (a
 * processor may add attributes there); what reaches an exporter is what
 * `onEnd` hands over.
 */
export function cardServiceSafeSpans<
  TSpan,
  TContext,
  TEnded extends ReadableSpanLike,
>(
  inner: SpanProcessorLike<TSpan, TContext, TEnded>
): SpanProcessorLike<TSpan, TContext, TEnded> {
  const safe: SpanProcessorLike<TSpan, TContext, TEnded> = {
    onStart: (span, parentContext) => inner.onStart(span, parentContext),
    onEnd: (span) => inner.onEnd(redactedSpan(span)),
    forceFlush: () => inner.forceFlush(),
    shutdown: () => inner.shutdown(),
  }
  if (inner.onEnding) {
    safe.onEnding = (span) => inner.onEnding!(span)
  }
  return safe
}

/**
 * The fields of a finished span that hold no free text, passed as they are.
 * Listed, not copied wholesale, so a field a later SDK adds does not slip
 * through unread; both SDK generations' names (instrumentationLibrary and
 * parentSpanId are 1.x's).
 */
const PASSED_FIELDS = [
  "kind",
  "parentSpanContext",
  "parentSpanId",
  "startTime",
  "endTime",
  "duration",
  "ended",
  "resource",
  "instrumentationScope",
  "instrumentationLibrary",
  "droppedAttributesCount",
  "droppedEventsCount",
  "droppedLinksCount",
] as const

/** A redacted copy of a finished span, shaped as the SDK's ReadableSpan. */
export function redactedSpan<T extends ReadableSpanLike>(span: T): T {
  const copy: Record<string, unknown> = {}
  for (const field of PASSED_FIELDS) {
    if (field in span)
      copy[field] = (span as unknown as Record<string, unknown>)[field]
  }
  copy.spanContext = () => span.spanContext()
  copy.name = safeText(span.name)
  copy.attributes = safeAttributes(span.attributes)
  copy.events = span.events.map((event) => ({
    ...event,
    name: safeText(event.name),
    ...(event.attributes
      ? { attributes: safeAttributes(event.attributes) }
      : {}),
  }))
  copy.links = span.links.map((link) => ({
    ...link,
    ...(link.attributes ? { attributes: safeAttributes(link.attributes) } : {}),
  }))
  copy.status =
    span.status.message === undefined
      ? span.status
      : { ...span.status, message: safeText(span.status.message) }
  return copy as unknown as T
}

const HEADER_PREFIX = /^http\.(request|response)\.header\./

/** Header names that carry a credential whatever they are called otherwise. */
const CREDENTIAL_HEADERS = new Set([
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
  "x-publishable-api-key",
])

/** Words that make an attribute's (or header's) name a credential's: x-auth-token, x-api-key, x-csrf-token... */
const CREDENTIAL_NAME =
  /(token|secret|passw|api[-_.]?key|signature|credential|session|csrf|xsrf|(^|[-_.])auth($|[-_.])|(^|[-_.])sid$)/i

/** Headers whose value is a URL the browser was on: kept down to its origin. */
const ORIGIN_ONLY = new Set(["referer", "referrer", "origin"])

/** The attributes without credentials, with URLs and identifiers masked. */
export function safeAttributes(attributes: SpanAttributes): SpanAttributes {
  const out: SpanAttributes = {}
  for (const [key, value] of Object.entries(attributes)) {
    const name = key.toLowerCase().replace(HEADER_PREFIX, "")
    if (CREDENTIAL_HEADERS.has(name) || CREDENTIAL_NAME.test(name)) continue
    if (ORIGIN_ONLY.has(name)) {
      const kept = mapText(value, originOf)
      if (kept !== undefined) out[key] = kept
      continue
    }
    // url.query (OpenTelemetry's semantic conventions): the query without its `?`.
    out[key] =
      name === "url.query"
        ? mapText(value, safeQuery)
        : mapText(value, safeText)
  }
  return out
}

function mapText(
  value: AttributeValue | undefined,
  mask: (text: string) => string | undefined
): AttributeValue | undefined {
  if (typeof value === "string") return mask(value)
  if (Array.isArray(value)) {
    return value.map((item) =>
      typeof item === "string" ? (mask(item) ?? REDACTED) : item
    ) as AttributeValue
  }
  return value
}

/** scheme://host[:port] of a URL; undefined (left out) when it is none. */
function originOf(text: string): string | undefined {
  try {
    const origin = new URL(text).origin
    return origin === "null" ? undefined : origin
  } catch {
    return undefined
  }
}

/**
 * Query parameters whose value is an identifier or a secret: the service's
 * result (`transactionId`, `originalTransactionId`, `merchantReferenceCode`,
 * section 2.5), any session, credentials, and the admin's search text `q`
 * and contact fields (an e-mail or phone searched for).
 */
const MASKED_QUERY_NAME =
  /^(q|code|sig|key)$|transaction|reference|session|token|secret|passw|api[-_.]?key|signature|credential|auth|email|phone/i

/** A query parameter inside any text: after `?` or `&`, up to the next `&`, `#` or space. */
const QUERY_PARAMETER = /([?&])([^=&#\s?]+)=([^&#\s]*)/g

function maskQueryValues(text: string): string {
  return text.replace(
    QUERY_PARAMETER,
    (whole, separator: string, rawName: string) => {
      let name = rawName
      try {
        name = decodeURIComponent(rawName)
      } catch {
        // An undecodable name is judged as written.
      }
      return MASKED_QUERY_NAME.test(name)
        ? `${separator}${rawName}=${REDACTED}`
        : whole
    }
  )
}

/** `url.query`'s form: `a=1&b=2`, no leading `?`. */
function safeQuery(query: string): string {
  return safeText(`?${query}`).slice(1)
}

/**
 * Merchant references of this plugin's payment attempts: the session's ULID
 * (without `payses_`), a nonce and a MAC, dot-separated
 * (providers/card-service/merchant-reference.ts). The ULID alone would name
 * the session.
 */
const ATTEMPT_REFERENCE =
  /\b[0-9A-HJKMNP-TV-Z]{26}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g

/** The sandbox's transaction ids are 52 digits and processors' often 20 or more; no count or time is that long. */
const LONG_DIGIT_RUN = /\d{20,}/g

const EMAIL =
  /[A-Za-z0-9._%+-]+(?:@|%40)[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g

/**
 * Medusa's ids that open a shopper's data to anyone with the store's
 * publishable key, which every storefront ships: `GET /store/carts/:id` and
 * `GET /store/orders/:id` answer without a login (e-mail, addresses), and a
 * payment collection takes a new card-service session whose pay page shows
 * them. Kept as `cart_…` and the last six characters, like session ids.
 */
const OPENING_ID = /\b(cart|order|pay_col)_([0-9A-Za-z]{20,})/g

/** A JSON web token (Medusa's bearer tokens are JWTs): three base64url parts, the first `{"`. */
const JWT = /\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g

/** user:password@ in a URL (a database URL in a span, a proxy's credentials). */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^/?#@\s]+@/gi

/**
 * Each pattern with the text it cannot match without: most texts (field
 * lists, step names, routes) hold none of these, and skipping the
 * expressions took the spans of a checkout from about 70 to about 10
 * microseconds each.
 */
const MASKS: [needle: RegExp, mask: (text: string) => string][] = [
  [/[?&]/, maskQueryValues],
  [/:\/\//, (text) => text.replace(URL_USERINFO, `$1${REDACTED}:${REDACTED}@`)],
  [/eyJ/, (text) => text.replace(JWT, REDACTED)],
  [/@|%40/, (text) => text.replace(EMAIL, REDACTED)],
  [/[0-9A-Z]{26}\./, (text) => text.replace(ATTEMPT_REFERENCE, REDACTED)],
  // A card number's digits, grouped or not (log-redaction's DIGIT_RUN).
  [
    /\d(?:[ -]?\d){11}/,
    (text) => redactText(text.replace(LONG_DIGIT_RUN, REDACTED)),
  ],
  [/payses_/, redactSessionIds],
  [
    /(cart|order|pay_col)_/,
    (text) =>
      text.replace(
        OPENING_ID,
        (_, prefix: string, id: string) => `${prefix}_…${id.slice(-6)}`
      ),
  ],
]

/** Free text (a URL, a span name, a message) with identifiers and secrets masked. */
export function safeText(text: string): string {
  let out = text
  for (const [needle, mask] of MASKS) {
    if (needle.test(out)) out = mask(out)
  }
  return out
}
