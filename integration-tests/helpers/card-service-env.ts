import { startSandbox, type CardServiceSandbox, type SandboxOptions } from "../../src/sandbox"
import http from "node:http"
import { request } from "undici"
import net from "node:net"

/** The provider's environment (medusa-config.ts reads it) pointing at a sandbox, in test mode. */
export function sandboxProviderEnv(sandbox: CardServiceSandbox): Record<string, string> {
  return {
    CARD_SERVICE_CLIENT_CODE: sandbox.credentials.clientCode,
    CARD_SERVICE_CLIENT_SECRET: sandbox.credentials.clientSecret,
    CARD_SERVICE_VERIFY_ID: sandbox.credentials.verifyId,
    CARD_SERVICE_MERCHANT_ID: sandbox.credentials.merchantId,
    CARD_SERVICE_MODE: "test",
    CARD_SERVICE_TEST_URL: sandbox.url,
  }
}

export type CardServiceTestEnv = {
  sandbox: () => CardServiceSandbox
  backendUrl: () => string
  /** The storefront the return route sends shoppers to. */
  storefrontUrl: () => string
}

/**
 * Starts the card-service sandbox and points the dev store's provider at it.
 * Call it BEFORE medusaIntegrationTestRunner: its beforeAll must set the
 * environment before the runner loads medusa-config.ts. Medusa gets a fixed
 * port (PORT) so the callback and return URLs the provider hands out reach it.
 */
export function useCardServiceSandbox(
  options: SandboxOptions & {
    autoCapture?: boolean
    /** 3DS in a new window (isWindowed Y). */
    windowed?: boolean
    /** Serve a tiny storefront whose return page shows the outcome (for browser tests). */
    storefrontPage?: boolean
  } = {}
): CardServiceTestEnv {
  let sandbox: CardServiceSandbox | undefined
  let storefront: http.Server | undefined
  let backendUrl = ""
  let storefrontUrl = "http://localhost:8000"

  beforeAll(async () => {
    const { autoCapture, windowed, storefrontPage, ...sandboxOptions } = options
    sandbox = await startSandbox({ port: 0, ...sandboxOptions })
    if (storefrontPage) {
      storefront = await serveReturnPage()
      storefrontUrl = `http://localhost:${(storefront.address() as net.AddressInfo).port}`
    }
    const port = await freePort()
    backendUrl = `http://localhost:${port}`
    Object.assign(process.env, {
      PORT: String(port),
      MEDUSA_BACKEND_URL: backendUrl,
      STOREFRONT_URL: storefrontUrl,
      ...sandboxProviderEnv(sandbox),
      CARD_SERVICE_AUTO_CAPTURE: autoCapture ? "true" : "false",
      CARD_SERVICE_WINDOWED: windowed ? "true" : "false",
    })
  })

  afterAll(async () => {
    await sandbox?.close()
    await new Promise((resolve) => (storefront ? storefront.close(resolve) : resolve(undefined)))
  })

  return {
    sandbox: () => {
      if (!sandbox) throw new Error("the sandbox is not started yet")
      return sandbox
    },
    backendUrl: () => backendUrl,
    storefrontUrl: () => storefrontUrl,
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/** A storefront's return page: shows what the return route reported. */
function serveReturnPage(): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost")
    const escape = (value: string | null) =>
      (value ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
    const status = url.searchParams.get("status")
    const body =
      status === "paid"
        ? `<h1>Thank you</h1><p>Order <span id="order-id">${escape(url.searchParams.get("order_id"))}</span></p>`
        : `<h1 id="status">${escape(status)}</h1><p id="reason">${escape(url.searchParams.get("reason"))}</p>`
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    res.end(`<!doctype html><html><body>${body}</body></html>`)
  })
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)))
}

/** A callback POSTed to the plugin as anyone could (the service's, or a forged one); answers the status. */
export async function postCallback(backendUrl: string, sessionId: string, body: unknown): Promise<number> {
  const response = await request(`${backendUrl}/card-service/callback/${sessionId}/`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  })
  await response.body.dump()
  return response.statusCode
}
