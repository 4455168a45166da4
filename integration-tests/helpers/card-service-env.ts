import { startSandbox, type CardServiceSandbox, type SandboxOptions } from "../../src/sandbox"
import net from "node:net"

export type CardServiceTestEnv = {
  sandbox: () => CardServiceSandbox
  backendUrl: () => string
}

/**
 * Starts the card-service sandbox and points the dev store's provider at it.
 * Call it BEFORE medusaIntegrationTestRunner: its beforeAll must set the
 * environment before the runner loads medusa-config.ts. Medusa gets a fixed
 * port (PORT) so the callback and return URLs the provider hands out reach it.
 */
export function useCardServiceSandbox(
  options: SandboxOptions & { autoCapture?: boolean } = {}
): CardServiceTestEnv {
  let sandbox: CardServiceSandbox | undefined
  let backendUrl = ""

  beforeAll(async () => {
    const { autoCapture, ...sandboxOptions } = options
    sandbox = await startSandbox({ port: 0, ...sandboxOptions })
    const port = await freePort()
    backendUrl = `http://localhost:${port}`
    Object.assign(process.env, {
      PORT: String(port),
      MEDUSA_BACKEND_URL: backendUrl,
      STOREFRONT_URL: "http://localhost:8000",
      CARD_SERVICE_CLIENT_CODE: sandbox.credentials.clientCode,
      CARD_SERVICE_CLIENT_SECRET: sandbox.credentials.clientSecret,
      CARD_SERVICE_VERIFY_ID: sandbox.credentials.verifyId,
      CARD_SERVICE_MERCHANT_ID: sandbox.credentials.merchantId,
      CARD_SERVICE_MODE: "test",
      CARD_SERVICE_TEST_URL: sandbox.url,
      CARD_SERVICE_AUTO_CAPTURE: autoCapture ? "true" : "false",
    })
  })

  afterAll(async () => {
    await sandbox?.close()
  })

  return {
    sandbox: () => {
      if (!sandbox) throw new Error("the sandbox is not started yet")
      return sandbox
    },
    backendUrl: () => backendUrl,
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
