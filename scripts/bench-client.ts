/**
 * What the card-service client costs on top of a bare undici request, and
 * how many GET /authorize calls 200 concurrent operations cause.
 *
 *   npx ts-node --swc scripts/bench-client.ts [--calls 3000] [--concurrency 32]
 *
 * Runs against the in-process sandbox on 127.0.0.1 only, with a bounded
 * number of calls. The endpoint is retrieve (section 4.5): it is safe to
 * repeat and exercises headers, the verification code, JSON and zod.
 */
import { performance } from "node:perf_hooks"
import { MockAgent, Pool, request } from "undici"
import { CardServiceClient } from "../src/lib"
import { startSandbox } from "../src/sandbox"

const MAX_CALLS = 20_000

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`)
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback
  if (!Number.isInteger(value) || value <= 0) {
    throw new Error(`--${name} must be a positive integer`)
  }
  return value
}

const calls = Math.min(argument("calls", 3000), MAX_CALLS)
const concurrency = Math.min(argument("concurrency", 32), 256)

/** The same pool settings the client uses for its own Pool. */
function poolFor(origin: string): Pool {
  return new Pool(origin, {
    connections: concurrency,
    connect: { timeout: 5_000 },
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 600_000,
  })
}

async function inParallel(
  total: number,
  width: number,
  task: () => Promise<unknown>
): Promise<void> {
  let started = 0
  const worker = async () => {
    while (started < total) {
      started++
      await task()
    }
  }
  await Promise.all(Array.from({ length: width }, worker))
}

/**
 * Short alternating blocks (bare, client, client, bare, ...), and the median
 * of the per-pair ratios: other processes on the machine disturb a few
 * blocks, not the median, and both sides meet the same conditions.
 */
async function compare(
  label: string,
  width: number,
  bare: () => Promise<unknown>,
  client: () => Promise<unknown>
): Promise<{ bareUs: number; clientUs: number; ratio: number }> {
  const perBlock = width === 1 ? 100 : Math.max(width * 4, 100)
  const pairs = Math.max(5, Math.floor(calls / perBlock))
  const run = async (task: () => Promise<unknown>): Promise<number> => {
    const started = performance.now()
    if (width === 1) {
      for (let i = 0; i < perBlock; i++) await task()
    } else {
      await inParallel(perBlock, width, task)
    }
    return performance.now() - started
  }
  const bareTimes: number[] = []
  const clientTimes: number[] = []
  const ratios: number[] = []
  for (let pair = 0; pair < pairs; pair++) {
    let bareMs: number
    let clientMs: number
    if (pair % 2 === 0) {
      bareMs = await run(bare)
      clientMs = await run(client)
    } else {
      clientMs = await run(client)
      bareMs = await run(bare)
    }
    bareTimes.push(bareMs)
    clientTimes.push(clientMs)
    ratios.push(clientMs / bareMs)
  }
  const result = {
    bareUs: (median(bareTimes) / perBlock) * 1000,
    clientUs: (median(clientTimes) / perBlock) * 1000,
    ratio: median(ratios),
  }
  console.log(
    `${label.padEnd(26)} bare ${result.bareUs.toFixed(1).padStart(7)} us/call   client ${result.clientUs.toFixed(1).padStart(7)} us/call   median ratio ${result.ratio.toFixed(3)} (${((result.ratio - 1) * 100).toFixed(1)}% overhead; ${pairs} pairs of ${perBlock} calls)`
  )
  return result
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1
    ? sorted[middle]
    : (sorted[middle - 1] + sorted[middle]) / 2
}

/**
 * The client's own work per call, without the network or the sandbox in the
 * same thread: both sides answered at once by the same MockAgent.
 */
async function clientCpuCost(): Promise<{ bareUs: number; clientUs: number }> {
  const origin = "http://bench.invalid"
  const record = {
    merchantReferenceCode: "bench",
    transactionId: "1",
    originalTransactionId: "",
    step: "AUTHORIZATION",
    reasonCode: "100",
    status: "successful",
    message: "Successful transaction",
    approvalCode: "123456",
    cardType: "VISA",
    currencyCode: "978",
    amount: 10.5,
    cardPrefix: "400000",
    cardSuffix: "1000",
  }
  const agent = new MockAgent()
  agent.disableNetConnect()
  const mock = agent.get(origin)
  mock
    .intercept({ path: "/authorize", method: "GET" })
    .reply(200, { Authorization: "code" })
    .persist()
  mock
    .intercept({ path: "/payment/retrieve/m/1", method: "GET" })
    .reply(200, record)
    .persist()
  const client = new CardServiceClient({
    baseUrl: origin,
    clientCode: "c",
    clientSecret: "s",
    verifyId: "v",
    merchantId: "m",
    dispatcher: agent,
  })
  const headers = {
    verifyId: "v",
    Authorization: "code",
    "Content-type": "application/json",
  }
  const bare = async () => {
    const res = await agent.request({
      origin,
      path: "/payment/retrieve/m/1",
      method: "GET",
      headers,
    })
    return res.body.json()
  }
  const viaClient = () => client.retrieve("1")
  const time = async (task: () => Promise<unknown>): Promise<number> => {
    const n = Math.min(calls * 2, 10_000)
    const started = performance.now()
    for (let i = 0; i < n; i++) await task()
    return ((performance.now() - started) / n) * 1000
  }
  await time(bare)
  await time(viaClient)
  const bareRuns: number[] = []
  const clientRuns: number[] = []
  for (let i = 0; i < 3; i++) {
    bareRuns.push(await time(bare))
    clientRuns.push(await time(viaClient))
  }
  await agent.close()
  return { bareUs: median(bareRuns), clientUs: median(clientRuns) }
}

async function createAuthorization(
  url: string,
  credentials: { merchantId: string; verifyId: string },
  code: string
): Promise<string> {
  const form = new URLSearchParams({
    merchantId: credentials.merchantId,
    merchantReferenceCode: `bench_${Date.now()}`,
    currency: "978",
    cardAccountNumber: "4000000000001000",
    cardType: "VISA",
    cardExpirationMonth: "12",
    cardExpirationYear: String(new Date().getFullYear() + 3),
    firstName: "Bench",
    lastName: "Mark",
    country: "DE",
    city: "Berlin",
    address: "Street 1",
    postalCode: "10117",
    phone: "+4930123456",
    email: "bench@example.com",
    // Nothing listens on port 9; the sandbox's failed callback is harmless here.
    callbackLocation: "http://127.0.0.1:9/callback/",
    redirectUrl: "http://127.0.0.1:9/return/",
    isWindowed: "N",
    isRedirect: "N",
    isAuthenticate: "Y",
    verifyId: credentials.verifyId,
    authorization: code,
    amount: "10.50",
  })
  const res = await request(`${url}/order/start`, {
    method: "POST",
    body: form.toString(),
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "sec-fetch-mode": "navigate",
      "sec-fetch-dest": "document",
    },
  })
  await res.body.dump()
  const location = res.headers.location
  if (res.statusCode !== 303 || typeof location !== "string") {
    throw new Error(`order/start answered ${res.statusCode}`)
  }
  return new URL(location).searchParams.get("transactionId")!
}

async function main(): Promise<void> {
  let authorizeCalls = 0
  const sandbox = await startSandbox({
    port: 0,
    host: "127.0.0.1",
    callbackKnobs: { retries: 0, timeoutMs: 200 },
    logger: {
      debug: (line) => {
        if (line.startsWith("GET /authorize ->")) authorizeCalls++
      },
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
    },
  })
  const options = {
    baseUrl: sandbox.url,
    ...sandbox.credentials,
    connections: concurrency,
  }
  const client = new CardServiceClient(options)
  const pool = poolFor(sandbox.url)
  try {
    const code = await client.getVerificationCode()
    const transactionId = await createAuthorization(
      sandbox.url,
      sandbox.credentials,
      code
    )
    const path = `/payment/retrieve/${encodeURIComponent(sandbox.credentials.merchantId)}/${encodeURIComponent(transactionId)}`
    const headers = {
      verifyId: sandbox.credentials.verifyId,
      Authorization: code,
      "Content-type": "application/json",
    }
    const bare = async () => {
      const res = await pool.request({ path, method: "GET", headers })
      const body = (await res.body.json()) as { transactionId?: string }
      if (res.statusCode !== 200 || body.transactionId !== transactionId) {
        throw new Error(`bare retrieve answered ${res.statusCode}`)
      }
    }
    const viaClient = () => client.retrieve(transactionId)

    console.log(
      `card-service client benchmark: ${calls} retrieve calls per side, loopback sandbox ${sandbox.url}, node ${process.version}`
    )
    // Warm-up: JIT, sockets, zod.
    for (let i = 0; i < 300; i++) {
      await bare()
      await viaClient()
    }
    // Bare against bare: how far apart two identical sides land on this
    // machine right now. A client ratio inside this spread is noise.
    const floor = await compare("noise floor (bare vs bare)", 1, bare, bare)
    const sequential = await compare("sequential", 1, bare, viaClient)
    const parallel = await compare(
      `concurrent (${concurrency} in flight)`,
      concurrency,
      bare,
      viaClient
    )

    const fresh = new CardServiceClient(options)
    const before = authorizeCalls
    await Promise.all(
      Array.from({ length: 200 }, () => fresh.retrieve(transactionId))
    )
    const singleFlight = authorizeCalls - before
    await fresh.close()
    console.log(
      `GET /authorize calls for 200 concurrent operations on a new client: ${singleFlight} (target 1)`
    )
    const cpu = await clientCpuCost()
    console.log(
      `client CPU per call without I/O (MockAgent): bare ${cpu.bareUs.toFixed(1)} us, client ${cpu.clientUs.toFixed(1)} us, added ${(cpu.clientUs - cpu.bareUs).toFixed(1)} us`
    )
    console.log(
      `noise floor on this machine: ${((floor.ratio - 1) * 100).toFixed(1)}%`
    )
    const worst = Math.max(sequential.ratio, parallel.ratio)
    console.log(
      `verdict: client overhead ${((worst - 1) * 100).toFixed(1)}% at worst (target under 10%), /authorize ${singleFlight === 1 ? "single-flight" : "NOT single-flight"}`
    )
  } finally {
    await client.close()
    await pool.close()
    await sandbox.close()
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
