import { ChildProcess, spawn } from "node:child_process"
import { once } from "node:events"
import path from "node:path"
import { createInterface } from "node:readline"
import type { CardServiceSandbox } from "../../src/sandbox"
import {
  call,
  callJson,
  orderForm,
  redirectParams,
  startMerchantStub,
  submitOrder,
} from "../helpers/sandbox-http"

jest.setTimeout(30_000)

const BIN = path.resolve(__dirname, "../../bin/card-service-sandbox.js")

describe("bin/card-service-sandbox.js", () => {
  let child: ChildProcess | undefined

  afterEach(() => {
    if (child && child.exitCode === null) {
      child.kill("SIGKILL")
    }
  })

  async function start(args: string[], env: Record<string, string> = {}) {
    child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    })
    const lines = createInterface({ input: child.stdout! })
    const [line] = (await once(lines, "line")) as [string]
    return JSON.parse(line)
  }

  it("prints one JSON line with url and credentials, serves, and stops on SIGTERM", async () => {
    const ready = await start(
      ["--port", "0", "--client-secret", "cli-secret"],
      {
        CARD_SERVICE_SANDBOX_MERCHANT_ID: "env-merchant",
      }
    )
    expect(ready).toEqual({
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      clientCode: "sandbox-client",
      clientSecret: "cli-secret",
      verifyId: "sandbox-verify",
      merchantId: "env-merchant",
    })
    const answer = await call(ready.url, "GET", "/authorize", {
      headers: { clientCode: "sandbox-client", clientSecret: "cli-secret" },
    })
    expect(answer.status).toBe(200)
    child!.kill("SIGTERM")
    const [code] = await once(child!, "exit")
    expect(code).toBe(0)
  })

  it("stops cleanly on SIGINT", async () => {
    await start(["--port=0"])
    child!.kill("SIGINT")
    const [code] = await once(child!, "exit")
    expect(code).toBe(0)
  })

  it("takes start-up callback knobs and one fault, checked as the /_sandbox/ endpoints check them", async () => {
    const ready = await start([
      "--callback-knobs",
      '{"drop":true,"retries":0}',
      "--fault",
      '{"type":"status","status":503,"path":"/authorize"}',
    ])
    const headers = {
      clientCode: "sandbox-client",
      clientSecret: "sandbox-secret",
    }
    const first = await call(ready.url, "GET", "/authorize", { headers })
    const second = await call(ready.url, "GET", "/authorize", { headers })
    expect([first.status, second.status]).toEqual([503, 200])
    // The start-up knobs are what a reset comes back to.
    const json = { "content-type": "application/json" }
    await call(ready.url, "POST", "/_sandbox/reset", {
      headers: json,
      body: "{}",
    })
    const knobs = await call(ready.url, "POST", "/_sandbox/callback-knobs", {
      headers: json,
      body: "{}",
    })
    expect(knobs.json.callbackKnobs).toMatchObject({
      drop: true,
      retries: 0,
    })
  })

  it.each([
    ["--callback-knobs", '{"drop":"yes"}', /drop must be true or false/],
    ["--callback-knobs", "{drop}", /must be JSON/],
    ["--fault", '{"type":"status","status":418}', /status/],
  ])(
    "refuses %s %s with exit code 2, naming the problem",
    async (flag, value, message) => {
      child = spawn(process.execPath, [BIN, flag, value], { stdio: "pipe" })
      let stderr = ""
      child.stderr!.on("data", (chunk) => (stderr += chunk))
      const [code] = await once(child, "exit")
      expect(code).toBe(2)
      expect(stderr).toMatch(message)
    }
  )

  it("refuses an unknown option with exit code 2", async () => {
    child = spawn(process.execPath, [BIN, "--colour", "blue"], {
      stdio: "pipe",
    })
    const [code] = await once(child, "exit")
    expect(code).toBe(2)
  })

  it("--code-scoping scoped: a code posted in a form is refused by retrieve", async () => {
    const ready = await start(["--port", "0", "--code-scoping", "scoped"])
    const merchant = await startMerchantStub()
    try {
      // What the helpers read of a sandbox, for one in another process.
      const remote = { url: ready.url, credentials: ready, now: Date.now } as unknown as CardServiceSandbox
      const code = (
        await call(ready.url, "GET", "/authorize", {
          headers: { clientCode: ready.clientCode, clientSecret: ready.clientSecret },
        })
      ).json.Authorization
      const paid = await submitOrder(remote, orderForm(remote, code, merchant))
      const transactionId = redirectParams(paid).get("transactionId")

      const retrieved = await callJson(remote, code, "GET", `/payment/retrieve/${ready.merchantId}/${transactionId}`)

      expect(paid.status).toBe(303)
      expect(retrieved.status).toBe(401)
    } finally {
      await merchant.close()
    }
  })

  it("--latency-ms and --latency-jitter-ms (or their variables) add a round trip to every request (#43)", async () => {
    const ready = await start(["--port", "0", "--latency-jitter-ms", "10"], { CARD_SERVICE_SANDBOX_LATENCY_MS: "200" })
    const started = performance.now()
    const answer = await call(ready.url, "GET", "/")
    expect(answer.status).toBe(200)
    expect(performance.now() - started).toBeGreaterThanOrEqual(189)
  })

  it("refuses a latency over a minute with exit code 2, naming it", async () => {
    child = spawn(process.execPath, [BIN, "--latency-ms", "90000"], { stdio: "pipe" })
    let stderr = ""
    child.stderr!.on("data", (chunk) => (stderr += chunk))
    const [code] = await once(child, "exit")
    expect(code).toBe(2)
    expect(stderr).toContain("ms must be a whole number from 0 to 60000")
  })

  it("refuses a --code-scoping other than permissive or scoped with exit code 2", async () => {
    child = spawn(process.execPath, [BIN, "--code-scoping", "strict"], { stdio: "pipe" })
    const [code] = await once(child, "exit")
    expect(code).toBe(2)
  })
})
