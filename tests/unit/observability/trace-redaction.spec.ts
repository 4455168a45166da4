import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base"
import {
  cardServiceSafeSpans,
  redactedSpan,
  REDACTED,
  safeAttributes,
  safeText,
  type SpanAttributes,
} from "../../../src/observability/trace-redaction"
import { SPANS } from "../../../src/observability/telemetry-names"

/**
 * Issue 41: what Medusa's HTTP instrumentation records, and what the
 * plugin's span processor lets through. The spans are shaped as Medusa
 * 2.21.2's instrumentHttpLayer makes them (`http.route`, `http.url` with
 * its query, `http.method`, then `...req.headers`, then `http.statusCode`
 * and `http.status_code`; named by the route, or `${method} ${url}` when
 * none matched) and, for the form that carries the query on its own
 * (`url.query` without its `?`, beside `url.path`; issue 41 expects Medusa
 * 2.22 to record it so), as OpenTelemetry's semantic conventions spell HTTP
 * server spans (`url.full`, `url.path`, `url.query`,
 * `http.request.header.<name>` as arrays). Medusa's source with that form
 * was not to be found: the one 2.22 build on npm
 * (2.22.0-snapshot-20260911212358) records HTTP spans as 2.21.2 does.
 */
const SESSION = "payses_01JD3QZ7M8W6V5T4R3Q2P1N0MK"
const SESSION_TAG = "payses_…P1N0MK"
const TRANSACTION = "4".repeat(20) + "0123456789".repeat(3) + "01"
const REFERENCE = "01JD3QZ7M8W6V5T4R3Q2P1N0MK.a1B2c3.AbCdEfGhIjKl"
const JWT =
  "eyJhbGciOiJIUzI1NiJ9.eyJhY3Rvcl9pZCI6InVzZXJfMDEifQ.c2lnbmF0dXJlLXBhcnQ"
const COOKIE = "connect.sid=s%3AkRj1vQ9x.Zt4bW8yQ2e5n7m1c3v6b9x0z"
const PUBLISHABLE_KEY = "pk_01JD3R0000000000000000000000"
const CARD = "4000000000001000"

const returnQuery = `transactionId=${TRANSACTION}&decision=ACCEPT&reasonCode=100&merchantReferenceCode=${REFERENCE}`
const maskedReturnQuery = `transactionId=${REDACTED}&decision=ACCEPT&reasonCode=100&merchantReferenceCode=${REDACTED}`

/** Headers a browser (the admin dashboard, the shopper on the pay page) sends. */
const browserHeaders = {
  host: "shop.example.com",
  "user-agent": "Mozilla/5.0 (X11; Linux x86_64)",
  accept: "text/html",
  "accept-language": "de-DE,de;q=0.9",
  authorization: `Bearer ${JWT}`,
  cookie: COOKIE,
  "x-publishable-api-key": PUBLISHABLE_KEY,
  referer: `https://shop.example.com/card-service/pay/${SESSION}?lang=de`,
  origin: "https://storefront.example.com",
}

describe("safeAttributes: Medusa 2.21's HTTP span (headers spread, http.url with its query)", () => {
  const attributes = safeAttributes({
    "http.route": "/card-service/return/:session_id",
    "http.url": `/card-service/return/${SESSION}?${returnQuery}`,
    "http.method": "GET",
    ...browserHeaders,
    "http.statusCode": 303,
    "http.status_code": 303,
  })

  it.each(["authorization", "cookie", "x-publishable-api-key"])(
    "drops %s",
    (header) => {
      expect(attributes).not.toHaveProperty(header)
    }
  )

  it("masks the session id, the transaction id and the reference in http.url, keeping the route's shape", () => {
    expect(attributes["http.url"]).toBe(
      `/card-service/return/${SESSION_TAG}?${maskedReturnQuery}`
    )
  })

  it("keeps only the origin of the referer (the pay page's URL) and the origin as it is", () => {
    expect(attributes.referer).toBe("https://shop.example.com")
    expect(attributes.origin).toBe("https://storefront.example.com")
  })

  it("passes the route, the method, the status codes and harmless headers unchanged", () => {
    expect(attributes).toMatchObject({
      "http.route": "/card-service/return/:session_id",
      "http.method": "GET",
      "http.statusCode": 303,
      "http.status_code": 303,
      host: "shop.example.com",
      "user-agent": "Mozilla/5.0 (X11; Linux x86_64)",
      accept: "text/html",
      "accept-language": "de-DE,de;q=0.9",
    })
  })
})

describe("safeAttributes: the semantic conventions' form (url.path and url.query, headers as arrays)", () => {
  const attributes = safeAttributes({
    "http.request.method": "GET",
    "http.route": "/card-service/return/:session_id",
    "url.full": `https://shop.example.com/card-service/return/${SESSION}?${returnQuery}`,
    "url.path": `/card-service/return/${SESSION}`,
    "url.query": returnQuery,
    "http.target": `/card-service/return/${SESSION}?${returnQuery}`,
    "http.request.header.authorization": [`Bearer ${JWT}`],
    "http.request.header.cookie": [COOKIE],
    "http.request.header.x-publishable-api-key": [PUBLISHABLE_KEY],
    "http.request.header.referer": [
      `https://shop.example.com/card-service/pay/${SESSION}`,
    ],
    "http.request.header.accept": ["text/html"],
    "http.response.header.set-cookie": [`${COOKIE}; Path=/; HttpOnly`],
    "http.response.status_code": 303,
  })

  it("masks url.query, which has no `?`", () => {
    expect(attributes["url.query"]).toBe(maskedReturnQuery)
  })

  it("masks url.full, url.path and http.target", () => {
    expect(attributes["url.full"]).toBe(
      `https://shop.example.com/card-service/return/${SESSION_TAG}?${maskedReturnQuery}`
    )
    expect(attributes["url.path"]).toBe(`/card-service/return/${SESSION_TAG}`)
    expect(attributes["http.target"]).toBe(
      `/card-service/return/${SESSION_TAG}?${maskedReturnQuery}`
    )
  })

  it("drops credential headers by their prefixed names, request and response", () => {
    expect(
      Object.keys(attributes).filter((key) => key.includes(".header."))
    ).toEqual(["http.request.header.referer", "http.request.header.accept"])
    expect(attributes["http.request.header.referer"]).toEqual([
      "https://shop.example.com",
    ])
    expect(attributes["http.request.header.accept"]).toEqual(["text/html"])
  })

  it("passes the method, the route and the status unchanged", () => {
    expect(attributes).toMatchObject({
      "http.request.method": "GET",
      "http.route": "/card-service/return/:session_id",
      "http.response.status_code": 303,
    })
  })
})

describe("safeAttributes: names of credentials", () => {
  it.each([
    "proxy-authorization",
    "set-cookie",
    "x-api-key",
    "x-auth-token",
    "x-csrf-token",
    "x-xsrf-token",
    "x-medusa-session",
    "x-amz-security-token",
    "x-hub-signature",
    "client-secret",
    "x-access-token",
    "http.request.header.x-api-key",
    "db.password",
    "apikey",
    "x-apikey",
    "auth",
    "x-auth",
    "x-auth-key",
    "x-auth-email",
    "sid",
    "x-sid",
  ])("drops %s", (key) => {
    expect(safeAttributes({ [key]: "s3cr3t-value", kept: "yes" })).toEqual({
      kept: "yes",
    })
  })

  it("drops a referer or origin that is no URL or has no origin", () => {
    const attributes = safeAttributes({
      referer: `/card-service/pay/${SESSION}`,
      origin: "null",
      // What an Android app sends: a URL whose origin is opaque.
      referrer: "android-app://com.google.android.gm/",
    })
    expect(Object.keys(attributes)).toEqual([])
  })

  it("keeps only the origin of a referrer spelled with two r", () => {
    expect(
      safeAttributes({
        referrer: `https://shop.example.com/card-service/pay/${SESSION}?lang=de`,
        "http.request.header.referrer": [
          `https://shop.example.com/card-service/pay/${SESSION}`,
        ],
      })
    ).toEqual({
      referrer: "https://shop.example.com",
      "http.request.header.referrer": ["https://shop.example.com"],
    })
  })
})

describe("safeAttributes: url.query on its own", () => {
  it("masks a token that is the first parameter of url.query", () => {
    expect(
      safeAttributes({
        "url.path": "/auth/reset",
        "url.query": "token=abcdef&next=/app",
      })
    ).toEqual({
      "url.path": "/auth/reset",
      "url.query": "token=REDACTED&next=/app",
    })
  })

  it("masks an admin search that is the first parameter of url.query", () => {
    expect(
      safeAttributes({ "url.query": "q=jane%20doe&limit=20&offset=0" })
    ).toEqual({ "url.query": "q=REDACTED&limit=20&offset=0" })
  })

  it("masks a session id that is the first parameter of url.query", () => {
    expect(
      safeAttributes({ "url.query": `session_id=${SESSION}&step=payment` })
    ).toEqual({ "url.query": "session_id=REDACTED&step=payment" })
  })
})

describe("safeText: identifiers anywhere in text", () => {
  it.each<[string, string, string]>([
    [
      "a span named by its URL (no route matched)",
      `GET /card-service/pay/${SESSION}`,
      `GET ${"/card-service/pay/" + SESSION_TAG}`,
    ],
    [
      "the return URL in a span name",
      `GET /card-service/return/${SESSION}?${returnQuery}`,
      `GET /card-service/return/${SESSION_TAG}?${maskedReturnQuery}`,
    ],
    [
      "originalTransactionId and transaction_id",
      `/x?originalTransactionId=abc-123&transaction_id=t_9`,
      `/x?originalTransactionId=${REDACTED}&transaction_id=${REDACTED}`,
    ],
    [
      "the storefront's session_id on its way back",
      `https://shop.example.com/checkout?session_id=${SESSION}&step=payment`,
      `https://shop.example.com/checkout?session_id=${REDACTED}&step=payment`,
    ],
    [
      "an admin search by e-mail",
      "/admin/customers?q=shopper%40example.com&limit=20",
      `/admin/customers?q=${REDACTED}&limit=20`,
    ],
    [
      "a token in a query",
      "/auth/reset?token=abcdef&next=/app",
      `/auth/reset?token=${REDACTED}&next=/app`,
    ],
    [
      "an encoded query name",
      "/x?transaction%49d=123",
      `/x?transaction%49d=${REDACTED}`,
    ],
    [
      "a merchant reference in a message",
      `no transaction for ${REFERENCE}`,
      `no transaction for ${REDACTED}`,
    ],
    [
      "a transaction id in a message",
      `retrieve ${TRANSACTION} failed`,
      `retrieve ${REDACTED} failed`,
    ],
    [
      "a card number, keeping its last four",
      `card ${CARD}`,
      "card ************1000",
    ],
    [
      "a card number in groups",
      "card 4000 0000 0000 1000",
      "card ************1000",
    ],
    [
      "an e-mail address",
      "Customer with email shopper@example.com exists",
      `Customer with email ${REDACTED} exists`,
    ],
    ["a bearer token", `Bearer ${JWT}`, `Bearer ${REDACTED}`],
    [
      "a cart's id, which opens the cart with the publishable key",
      "/store/carts/cart_01JD3QZ7M8W6V5T4R3Q2P1N0MK/line-items",
      "/store/carts/cart_…P1N0MK/line-items",
    ],
    [
      "an order's id",
      "/admin/orders/order_01JD3QZ7M8W6V5T4R3Q2P1N0MK?fields=id",
      "/admin/orders/order_…P1N0MK?fields=id",
    ],
    [
      "a payment collection's id",
      "/store/payment-collections/pay_col_01JD3QZ7M8W6V5T4R3Q2P1N0MK/payment-sessions",
      "/store/payment-collections/pay_col_…P1N0MK/payment-sessions",
    ],
    [
      "an API key in a webhook URL",
      "https://hooks.example.com/notify?apikey=abcdef&event=paid",
      `https://hooks.example.com/notify?apikey=${REDACTED}&event=paid`,
    ],
    [
      "an API key with an underscore in a query",
      "https://hooks.example.com/notify?event=paid&api_key=abcdef",
      `https://hooks.example.com/notify?event=paid&api_key=${REDACTED}`,
    ],
    [
      "an e-mail address with a sub-domain",
      "Customer with email shopper@mail.example.co.uk exists",
      `Customer with email ${REDACTED} exists`,
    ],
    ["a card number that is the whole text", CARD, "************1000"],
    [
      "a card number with dashes that is the whole text",
      "4111-1111-1111-1111",
      "************1111",
    ],
    ["a transaction id that is the whole text", TRANSACTION, REDACTED],
    [
      "a database URL's password",
      "postgres://medusa:hunter2@db:5432/shop",
      `postgres://${REDACTED}:${REDACTED}@db:5432/shop`,
    ],
  ])("%s", (_, text, expected) => {
    expect(safeText(text)).toBe(expected)
  })

  it.each([
    "/store/products?fields=*variants&limit=20&offset=0&order=-created_at&region_id=reg_01JD3R",
    "/admin/card-service/payments/pay_01JD3QZ7M8W6V5T4R3Q2P1N0MK/transactions",
    "/admin/products/prod_01JD3QZ7M8W6V5T4R3Q2P1N0MK",
    "/card-service/pay/:session_id",
    "route handler: /store/card-service/sessions/:session_id/form",
    "middleware: plugin_input_guard",
    "workflow:complete_cart",
    "step:authorize_payment_session:invoke",
    "query.graph: payment_session",
    "card_service.settle",
    "1732620000000",
    "@medusajs/framework/workflows-sdk",
  ])("leaves %s unchanged", (text) => {
    expect(safeText(text)).toBe(text)
  })
})

describe("the plugin's own span attributes", () => {
  const names = [
    ...new Set(Object.values(SPANS).flatMap((span) => span.attributes)),
  ]
  it.each(names)("keeps %s", (name) => {
    expect(safeAttributes({ [name]: "value" })).toEqual({ [name]: "value" })
  })
})

describe("redactedSpan", () => {
  const span = {
    name: `GET /card-service/pay/${SESSION}`,
    kind: 1,
    spanContext: () => ({
      traceId: "t".repeat(32),
      spanId: "s".repeat(16),
      traceFlags: 1,
    }),
    parentSpanContext: {
      traceId: "t".repeat(32),
      spanId: "p".repeat(16),
      traceFlags: 1,
    },
    startTime: [1, 0],
    endTime: [2, 0],
    duration: [1, 0],
    ended: true,
    resource: { attributes: { "service.name": "my-store" } },
    instrumentationScope: { name: "@medusajs/http", version: "2.0.0" },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
    status: { code: 2, message: `Failed for ${SESSION}` },
    attributes: {
      "http.url": `/card-service/pay/${SESSION}`,
      cookie: COOKIE,
      "http.statusCode": 500,
    } as SpanAttributes,
    events: [
      {
        name: "exception",
        time: [1, 5],
        attributes: {
          "exception.type": "Error",
          "exception.message": `Payment session ${SESSION} not found at GET /card-service/return/${SESSION}?${returnQuery}`,
        },
      },
    ],
    links: [
      {
        context: {
          traceId: "l".repeat(32),
          spanId: "k".repeat(16),
          traceFlags: 1,
        },
        attributes: { authorization: `Bearer ${JWT}`, note: SESSION },
      },
    ],
    secretField: "never copied",
  }
  const safe = redactedSpan(span)

  it("masks the name, attributes, status message, events' and links' attributes", () => {
    expect(safe.name).toBe(`GET /card-service/pay/${SESSION_TAG}`)
    expect(safe.attributes).toEqual({
      "http.url": `/card-service/pay/${SESSION_TAG}`,
      "http.statusCode": 500,
    })
    expect(safe.status).toEqual({
      code: 2,
      message: `Failed for ${SESSION_TAG}`,
    })
    expect(safe.events).toEqual([
      {
        name: "exception",
        time: [1, 5],
        attributes: {
          "exception.type": "Error",
          "exception.message": `Payment session ${SESSION_TAG} not found at GET /card-service/return/${SESSION_TAG}?${maskedReturnQuery}`,
        },
      },
    ])
    expect(safe.links).toEqual([
      { context: span.links[0].context, attributes: { note: SESSION_TAG } },
    ])
  })

  it("passes identity, timing, resource and scope, and copies no field it does not know", () => {
    expect(safe.spanContext()).toEqual(span.spanContext())
    for (const field of [
      "kind",
      "parentSpanContext",
      "startTime",
      "endTime",
      "duration",
      "ended",
      "resource",
      "instrumentationScope",
      "droppedAttributesCount",
      "droppedEventsCount",
      "droppedLinksCount",
    ] as const) {
      expect(safe[field]).toBe(span[field])
    }
    expect(safe).not.toHaveProperty("secretField")
  })

  it("passes the fields of a 1.x SDK span and adds none a 2.x span lacks", () => {
    const { parentSpanContext, instrumentationScope, ...common } = span
    const v1Span = {
      ...common,
      parentSpanId: "p".repeat(16),
      instrumentationLibrary: instrumentationScope,
    }
    const v1Safe = redactedSpan(v1Span)
    expect(v1Safe.parentSpanId).toBe(v1Span.parentSpanId)
    expect(v1Safe.instrumentationLibrary).toBe(instrumentationScope)
    expect(v1Safe).not.toHaveProperty("parentSpanContext")
    expect(v1Safe).not.toHaveProperty("instrumentationScope")
    expect(safe).not.toHaveProperty("parentSpanId")
    expect(safe).not.toHaveProperty("instrumentationLibrary")
    expect(parentSpanContext).toBe(span.parentSpanContext)
  })

  it("leaves the span it was given as it was", () => {
    expect(span.attributes.cookie).toBe(COOKIE)
    expect(span.name).toContain(SESSION)
  })
})

describe("cardServiceSafeSpans in an SDK tracer provider", () => {
  it("exports the masked copy through the processor it wraps while another processor sees the span as it is", async () => {
    const safeExporter = new InMemorySpanExporter()
    const rawExporter = new InMemorySpanExporter()
    const provider = new BasicTracerProvider({
      spanProcessors: [
        cardServiceSafeSpans(new SimpleSpanProcessor(safeExporter)),
        new SimpleSpanProcessor(rawExporter),
      ],
    })
    const tracer = provider.getTracer("@medusajs/http", "2.0.0")
    const parent = tracer.startSpan(`GET /card-service/pay/${SESSION}`)
    // As Medusa's instrumentHttpLayer sets them: route, URL, method, then every header.
    parent.setAttributes({
      "http.url": `/card-service/pay/${SESSION}`,
      "http.method": "GET",
      ...browserHeaders,
    })
    parent.addEvent("exception", {
      "exception.message": `no session ${SESSION}`,
    })
    parent.setAttributes({ "http.statusCode": 200, "http.status_code": 200 })
    parent.end()
    await provider.forceFlush()

    const [safe] = safeExporter.getFinishedSpans() as ReadableSpan[]
    const [raw] = rawExporter.getFinishedSpans() as ReadableSpan[]
    const text = (span: ReadableSpan) =>
      JSON.stringify({
        name: span.name,
        attributes: span.attributes,
        events: span.events,
      })
    for (const secret of [SESSION, JWT, COOKIE, PUBLISHABLE_KEY]) {
      expect(text(safe)).not.toContain(secret)
      expect(text(raw)).toContain(secret)
    }
    expect(safe.name).toBe(`GET /card-service/pay/${SESSION_TAG}`)
    expect(safe.attributes["http.status_code"]).toBe(200)
    expect(safe.spanContext()).toEqual(raw.spanContext())
    expect(safe.instrumentationScope).toEqual({
      name: "@medusajs/http",
      version: "2.0.0",
      schemaUrl: undefined,
    })
    await provider.shutdown()
  })

  it("passes onStart, onEnding, forceFlush and shutdown to the processor it wraps", async () => {
    const inner = {
      onStart: jest.fn(),
      onEnding: jest.fn(),
      onEnd: jest.fn(),
      forceFlush: jest.fn(async () => {}),
      shutdown: jest.fn(async () => {}),
    }
    const safe = cardServiceSafeSpans(inner)
    const live = { name: "live" }
    safe.onStart(live, "context")
    safe.onEnding!(live)
    await safe.forceFlush()
    await safe.shutdown()
    expect(inner.onStart).toHaveBeenCalledWith(live, "context")
    expect(inner.onEnding).toHaveBeenCalledWith(live)
    expect(inner.forceFlush).toHaveBeenCalledTimes(1)
    expect(inner.shutdown).toHaveBeenCalledTimes(1)
    expect(
      cardServiceSafeSpans({ ...inner, onEnding: undefined }).onEnding
    ).toBeUndefined()
  })
})
