import axios from "axios"
import { ChildProcess } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { Client } from "pg"
import { request } from "undici"
import { startSandbox, type CardServiceSandbox } from "../../src/sandbox"
import { freePorts } from "../../tests/helpers/demo-process"
import { formOfPage, postPaymentForm } from "../helpers/browser-step"
import { CARDS } from "../helpers/checkout-flow"
import {
  CARD_SERVICE_PROVIDER_ID,
  type SeededStore,
} from "../helpers/seed-store"
import { sandboxProviderEnv } from "../helpers/card-service-env"
import { storeApi } from "../helpers/store-api"
import type { SpanLine } from "../helpers/trace-files"

// The launcher's helpers are plain JavaScript shared with scripts/demo.js.
const {
  spawnNode,
  stopGroup,
  waitForHttp,
  tail,
} = require("../../scripts/lib/demo-processes")

/**
 * Issue 41: a store that turns on Medusa's telemetry as docs/observability.md
 * says exports no credential, no identifier of the plugin's and nothing of
 * the shopper's.
 *
 * A real `medusa start` (Medusa's HTTP instrumentation replaces the start
 * command's traceRequestHandler, so an app booted by the integration test
 * runner makes no HTTP spans) of this repository's store, in a folder of
 * its own whose instrumentation.ts is the docs' (helpers/trace-files.ts):
 * every span goes to one file through the plugin's processor and to a
 * second file without it. The admin logs in (bearer token, then the
 * dashboard's cookie session), a shopper pays on the hosted page and comes
 * back through the return route, the service's callback arrives, and the
 * admin looks at the order; then every text of every span (name,
 * attributes, events, links, status, resource) is searched for the
 * secrets and personal data of that run.
 */
jest.setTimeout(10 * 60_000)

const ROOT = path.resolve(__dirname, "..", "..")
const STOREFRONT = "http://localhost:8000"
const ADMIN = { email: "owner@example.com", password: "owner-password-41" }
const SESSION_SECRET = "trace-redaction-session-secret-0123456789"
/** What the store helper gives every cart (helpers/store-api.ts). */
const SHOPPER = {
  email: "shopper@example.com",
  phone: "+4930123456",
  street: "Unter den Linden 1",
}

/** The entries of the repository a store folder needs: Medusa loads the config, src and the TypeScript set-up from its cwd. */
const STORE_ENTRIES = [
  "medusa-config.ts",
  "src",
  "node_modules",
  "tsconfig.json",
  "package.json",
]

describe("Medusa's spans through the plugin's processor (instrumentation.ts as documented)", () => {
  let app = ""
  let logs = ""
  let database = ""
  let sandbox: CardServiceSandbox | undefined
  let medusa: (ChildProcess & { exited: Promise<unknown> }) | undefined
  let backend = ""
  let store: SeededStore
  const safeFile = () => path.join(logs, "spans-safe.jsonl")
  const rawFile = () => path.join(logs, "spans-raw.jsonl")
  const timings: Record<string, number> = {}

  async function timed<T>(label: string, step: () => Promise<T>): Promise<T> {
    const started = Date.now()
    try {
      return await step()
    } finally {
      timings[label] = Date.now() - started
    }
  }

  const pgAdmin = () =>
    new Client({
      host: process.env.DB_HOST,
      port: Number(process.env.DB_PORT ?? 5432),
      user: process.env.DB_USERNAME,
      password: process.env.DB_PASSWORD,
      database: "postgres",
    })

  beforeAll(async () => {
    // The store: this repository's medusa-config.ts and src, linked, and an
    // instrumentation.ts of its own (the repository keeps none at its root,
    // so the demo and the other tests run without telemetry).
    app = fs.mkdtempSync(path.join(os.tmpdir(), "card-service-traces-"))
    logs = fs.mkdtempSync(path.join(os.tmpdir(), "card-service-traces-logs-"))
    for (const entry of STORE_ENTRIES) {
      fs.symlinkSync(path.join(ROOT, entry), path.join(app, entry))
    }
    fs.writeFileSync(
      path.join(app, "instrumentation.ts"),
      `export { register } from ${JSON.stringify(path.join(ROOT, "integration-tests", "helpers", "trace-files"))}\n`
    )
    fs.writeFileSync(
      path.join(app, "seed.ts"),
      [
        'import fs from "node:fs"',
        'import type { ExecArgs } from "@medusajs/framework/types"',
        `import { seedStore } from ${JSON.stringify(path.join(ROOT, "integration-tests", "helpers", "seed-store"))}`,
        `import { ensureAdminUser } from ${JSON.stringify(path.join(ROOT, "scripts", "lib", "demo-seed"))}`,
        "",
        "export default async function seed({ container }: ExecArgs) {",
        "  const store = await seedStore(container)",
        "  await ensureAdminUser(container, process.env.SEED_ADMIN_EMAIL!, process.env.SEED_ADMIN_PASSWORD!)",
        "  fs.writeFileSync(process.env.SEED_OUTPUT!, JSON.stringify(store))",
        "}",
        "",
      ].join("\n")
    )

    sandbox = await startSandbox({ port: 0 })
    database = `card_service_traces_${process.pid}`
    const pg = pgAdmin()
    await pg.connect()
    await pg.query(`DROP DATABASE IF EXISTS ${database}`)
    await pg.query(`CREATE DATABASE ${database}`)
    await pg.end()

    const [port] = await freePorts(1)
    backend = `http://localhost:${port}`
    const user = encodeURIComponent(process.env.DB_USERNAME ?? "postgres")
    const password = encodeURIComponent(process.env.DB_PASSWORD ?? "")
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      NODE_ENV: "development",
      MEDUSA_DISABLE_TELEMETRY: "true",
      MEDUSA_ADMIN_DISABLE: "true",
      LOG_LEVEL: "warn",
      DATABASE_URL: `postgres://${user}:${password}@${process.env.DB_HOST}:${process.env.DB_PORT ?? 5432}/${database}`,
      MEDUSA_BACKEND_URL: backend,
      STOREFRONT_URL: STOREFRONT,
      STORE_CORS: STOREFRONT,
      ADMIN_CORS: backend,
      AUTH_CORS: `${backend},${STOREFRONT}`,
      ...sandboxProviderEnv(sandbox),
      CARD_SERVICE_SESSION_SECRET: SESSION_SECRET,
      TRACES_SAFE_FILE: safeFile(),
      TRACES_RAW_FILE: rawFile(),
      // The SDK would otherwise send metrics and logs to OTLP on localhost:4318.
      OTEL_METRICS_EXPORTER: "none",
      OTEL_LOGS_EXPORTER: "none",
    }
    // What jest's runner adds (--experimental-vm-modules) is not Medusa's.
    delete env.NODE_OPTIONS

    const once = async (
      args: string[],
      name: string,
      extra: Record<string, string> = {}
    ) => {
      const logFile = path.join(logs, name)
      const child = spawnNode(
        [require.resolve("@medusajs/cli/cli.js", { paths: [ROOT] }), ...args],
        {
          env: { ...env, ...extra },
          logFile,
          cwd: app,
        }
      )
      const result = await child.exited
      if (result.code !== 0)
        throw new Error(
          `medusa ${args[0]} failed (${JSON.stringify(result)}):\n${tail(logFile)}`
        )
    }
    await timed("medusa db:migrate", () => once(["db:migrate"], "migrate.log"))
    const seedFile = path.join(logs, "seed.json")
    await timed("medusa exec seed", () =>
      once(["exec", "./seed.ts"], "seed.log", {
        SEED_OUTPUT: seedFile,
        SEED_ADMIN_EMAIL: ADMIN.email,
        SEED_ADMIN_PASSWORD: ADMIN.password,
      })
    )
    store = JSON.parse(fs.readFileSync(seedFile, "utf8"))

    await timed("medusa start until /health", async () => {
      const logFile = path.join(logs, "medusa.log")
      medusa = spawnNode(
        [
          require.resolve("@medusajs/cli/cli.js", { paths: [ROOT] }),
          "start",
          "--port",
          String(port),
        ],
        {
          env,
          logFile,
          cwd: app,
        }
      )
      try {
        await waitForHttp(`${backend}/health`, {
          child: medusa,
          timeoutMs: 300_000,
        })
      } catch (error) {
        throw new Error(
          `medusa start did not answer: ${(error as Error).message}\n${tail(logFile)}`
        )
      }
    })
  })

  afterAll(async () => {
    await stopGroup(medusa, { graceMs: 5000 })
    await sandbox?.close()
    if (database) {
      const pg = pgAdmin()
      await pg.connect()
      await pg.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
      await pg.end()
    }
    for (const dir of [app, logs])
      if (dir) fs.rmSync(dir, { recursive: true, force: true })
    console.log(`trace-redaction timings (ms): ${JSON.stringify(timings)}`)
  })

  /** A request as a browser (or the dashboard's fetch) makes it, answered in full. */
  async function call(
    url: string,
    {
      method = "GET",
      headers = {},
      body,
    }: {
      method?: "GET" | "POST"
      headers?: Record<string, string>
      body?: unknown
    } = {}
  ) {
    const response = await request(
      url.startsWith("http") ? url : `${backend}${url}`,
      {
        method,
        headers: {
          "user-agent": "Mozilla/5.0 (trace-redaction test)",
          ...headers,
          ...(body ? { "content-type": "application/json" } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
      }
    )
    const text = await response.body.text()
    return { status: response.statusCode, headers: response.headers, text }
  }

  const json = (text: string) => JSON.parse(text)

  it("keeps credentials, the plugin's ids and the shopper's data out of every span; the same spans without the processor hold them", async () => {
    // The admin: a bearer token, then the cookie session the dashboard uses.
    const dashboard = { origin: backend, referer: `${backend}/app/orders` }
    const login = await call("/auth/user/emailpass", {
      method: "POST",
      headers: dashboard,
      body: ADMIN,
    })
    expect(login.status).toBe(200)
    const token: string = json(login.text).token
    const bearer = { ...dashboard, authorization: `Bearer ${token}` }
    expect((await call("/admin/users/me", { headers: bearer })).status).toBe(
      200
    )
    const session = await call("/auth/session", {
      method: "POST",
      headers: bearer,
    })
    expect(session.status).toBe(200)
    const setCookie = [session.headers["set-cookie"]]
      .flat()
      .find((cookie) => cookie?.startsWith("connect.sid="))
    expect(setCookie).toBeDefined()
    const cookie = setCookie!.split(";")[0]
    const cookieValue = cookie.slice("connect.sid=".length)
    const withCookie = { ...dashboard, cookie }
    expect(
      (await call("/admin/users/me", { headers: withCookie })).status
    ).toBe(200)

    // The shopper: a cart from the storefront, the hosted page, the service, the return.
    const storefront = storeApi(
      axios.create({
        baseURL: backend,
        headers: { origin: STOREFRONT, referer: `${STOREFRONT}/checkout` },
      }),
      store
    )
    const cart = await storefront.createCart()
    const collection = await storefront.startPaymentSession(
      cart.id,
      CARD_SERVICE_PROVIDER_ID
    )
    const sessionId: string = collection.payment_sessions[0].id
    expect(sessionId).toMatch(/^payses_/)

    const payUrl = `${backend}/card-service/pay/${sessionId}`
    const page = await call(payUrl, {
      headers: {
        referer: `${STOREFRONT}/checkout?step=payment`,
        "accept-language": "de-DE,de;q=0.9",
      },
    })
    expect(page.status).toBe(200)
    // The page's own script, which the browser asks for with the page's URL as referer.
    const script = /<script[^>]*\bsrc="([^"]+)"/.exec(page.text)?.[1]
    expect(script).toBeDefined()
    expect((await call(script!, { headers: { referer: payUrl } })).status).toBe(
      200
    )

    const { serviceLocation } = await postPaymentForm(
      formOfPage(page.text),
      CARDS.approved
    )
    expect(serviceLocation).toContain(`/card-service/return/${sessionId}`)
    const result = new URL(serviceLocation!).searchParams
    const transactionId = result.get("transactionId")!
    const merchantReference = result.get("merchantReferenceCode")!
    expect(transactionId).toMatch(/^\d{20,}$/)
    expect(merchantReference.length).toBeGreaterThan(20)
    // The service sent the browser from the form the pay page posted: its referer is the pay page.
    const back = await call(serviceLocation!, { headers: { referer: payUrl } })
    expect(back.status).toBe(303)
    const orderId = new URL(String(back.headers.location)).searchParams.get(
      "order_id"
    )
    expect(orderId).toMatch(/^order_/)
    // A URL no route has (a stale link, a bot): Medusa names its span by the URL, query and all.
    const stray = await call(
      `/card-service/pay/${sessionId}/receipt?${result.toString()}`,
      { headers: { referer: payUrl } }
    )
    expect(stray.status).toBeGreaterThanOrEqual(400)

    // The admin opens the order, and the plugin's view of its payment.
    const order = await call(
      `/admin/orders/${orderId}?fields=id,email,payment_collections.payments.id`,
      {
        headers: { ...withCookie, referer: `${backend}/app/orders/${orderId}` },
      }
    )
    expect(order.status).toBe(200)
    const paymentId: string = json(order.text).order.payment_collections[0]
      .payments[0].id
    const transactions = await call(
      `/admin/card-service/payments/${paymentId}/transactions`,
      {
        headers: { ...withCookie, referer: `${backend}/app/orders/${orderId}` },
      }
    )
    expect(transactions.status).toBe(200)

    // Every span has been written when the last request's span is there (the exporter writes as each ends).
    const marker = "/health?trace-redaction=end"
    expect((await call(marker)).status).toBe(200)
    const raw = await spansOnceWritten(
      rawFile(),
      (span) => span.attributes["http.url"] === marker
    )
    const safe = readSpans(safeFile())

    // Both paths took every span: Medusa's HTTP, workflow and query spans and the plugin's.
    expect(safe.length).toBe(raw.length)
    const scopes = new Set(safe.map((span) => span.scope))
    for (const scope of [
      "@medusajs/http",
      "@medusajs/framework/workflows-sdk",
      "@medusajs/query",
      "medusa-payment-card-service",
    ]) {
      expect(scopes).toContain(scope)
    }
    const routes = new Set(safe.map((span) => span.attributes["http.route"]))
    for (const route of [
      "/card-service/pay/:session_id",
      "/card-service/return/:session_id",
      "/card-service/callback/:session_id",
    ]) {
      expect(routes).toContain(route)
    }
    expect(safe.map((span) => span.name)).toEqual(
      expect.arrayContaining(["card_service.settle", "card_service.retrieve"])
    )

    const secrets: Record<string, string> = {
      "the admin's bearer token": token,
      "the admin's session cookie": cookieValue,
      "the publishable key": store.publishableKey,
      "the payment session id": sessionId,
      "the payment session's ULID": sessionId.slice("payses_".length),
      // With the publishable key (public in the storefront) these open the shopper's data too.
      "the cart id": cart.id,
      "the order id": orderId!,
      "the payment collection id": collection.id,
      "the transaction id": transactionId,
      "the merchant reference": merchantReference,
      "the card number": CARDS.approved.number,
      "the shopper's e-mail": SHOPPER.email,
      "the shopper's phone": SHOPPER.phone,
      "the shopper's street": SHOPPER.street,
      "the admin's e-mail": ADMIN.email,
      "the admin's password": ADMIN.password,
      "the service's client secret": sandbox!.credentials.clientSecret,
      "the session secret": SESSION_SECRET,
    }
    // The scan finds leaks: without the processor the spans hold the credentials and the ids.
    expect(leaks(raw, secrets)).toEqual(
      expect.arrayContaining(
        [
          "the admin's bearer token",
          "the admin's session cookie",
          "the publishable key",
          "the payment session id",
          "the cart id",
          "the order id",
          "the transaction id",
          "the merchant reference",
        ].map((label) => expect.stringContaining(`${label} in `))
      )
    )
    expect(leaks(raw, secrets)).toContainEqual(
      expect.stringMatching(/^the transaction id in GET .*: name$/)
    )
    // Through the processor: none of them, anywhere.
    expect(leaks(safe, secrets)).toEqual([])
    // The span named by its URL keeps its shape, with the session's log tag and the ids masked.
    expect(safe.map((span) => span.name)).toContainEqual(
      expect.stringMatching(
        /^GET \/card-service\/pay\/payses_…\w{6}\/receipt\?transactionId=REDACTED&decision=ACCEPT&/
      )
    )
  })
})

function readSpans(file: string): SpanLine[] {
  if (!fs.existsSync(file)) return []
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line))
}

/** The spans of `file` once one matching `last` is among them (a span is written when it ends, after its response). */
async function spansOnceWritten(
  file: string,
  last: (span: SpanLine) => boolean
): Promise<SpanLine[]> {
  const deadline = Date.now() + 15_000
  for (;;) {
    const spans = readSpans(file)
    if (spans.some(last)) return spans
    if (Date.now() > deadline)
      throw new Error(`the last request's span never reached ${file}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/**
 * Which secret appears in which span ("<label> in <span name>: <where>"),
 * in any text of it, as written or as a URL or a form would encode it.
 */
function leaks(spans: SpanLine[], secrets: Record<string, string>): string[] {
  const found: string[] = []
  for (const span of spans) {
    const places: [string, unknown][] = [
      ["name", span.name],
      ...Object.entries(span.attributes).map(
        ([key, value]): [string, unknown] => [`attribute ${key}`, value]
      ),
      ...span.events.flatMap((event) =>
        [["event name", event.name] as [string, unknown]].concat(
          Object.entries(event.attributes ?? {}).map(
            ([key, value]): [string, unknown] => [
              `event ${event.name} ${key}`,
              value,
            ]
          )
        )
      ),
      ...span.links.flatMap((link) =>
        Object.entries(link.attributes ?? {}).map(
          ([key, value]): [string, unknown] => [`link ${key}`, value]
        )
      ),
      ["status message", span.status.message],
      ...Object.entries(span.resource).map(
        ([key, value]): [string, unknown] => [`resource ${key}`, value]
      ),
    ]
    for (const [label, secret] of Object.entries(secrets)) {
      const forms = new Set([
        secret,
        encodeURIComponent(secret),
        secret.replace(/ /g, "+"),
        safeDecode(secret),
        secret.replace(/^\+/, ""),
      ])
      for (const [where, value] of places) {
        const text = JSON.stringify(value ?? "").toLowerCase()
        if ([...forms].some((form) => text.includes(form.toLowerCase()))) {
          found.push(`${label} in ${span.name}: ${where}`)
        }
      }
    }
  }
  return found
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
