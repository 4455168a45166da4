/**
 * What the card-service client costs on top of a bare undici request, and
 * how many GET /authorize calls 200 concurrent operations cause.
 *
 *   npm run bench:client -- [--calls 6000] [--concurrency 32]
 *
 * Runs against the in-process sandbox on 127.0.0.1 only, with a bounded
 * number of calls. The endpoint is retrieve (section 4.5): it is safe to
 * repeat and exercises headers, the verification code, JSON and zod.
 */
import { performance } from "node:perf_hooks"
import { MockAgent, Pool, request } from "undici"
import { CardServiceClient } from "../src/lib"
import { dispatchForText } from "../src/lib/http-exchange"
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

const calls = Math.min(argument("calls", 6000), MAX_CALLS)
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

type Comparison = {
  bareUs: number
  clientUs: number
  /** Client time over bare time (medians); the verdict reads this one. */
  ratio: number
  /** The same with means (per-call comparison only). */
  meanRatio?: number
}

function report(label: string, result: Comparison, how: string): void {
  const means =
    result.meanRatio === undefined ? "" : `, means ${percent(result.meanRatio)}`
  console.log(
    `${label.padEnd(34)} bare ${result.bareUs.toFixed(1).padStart(7)} us/call   client ${result.clientUs.toFixed(1).padStart(7)} us/call   ${percent(result.ratio).padStart(6)} overhead (${how}${means})`
  )
}

/**
 * One call at a time. Every call is timed on its own and the two sides
 * alternate call by call (bare then client, then client then bare, ...), so
 * both meet the same moment of the machine: on a shared VM the round trip
 * itself drifts by 2x within a minute, which block-wise timing of this case
 * mistakes for overhead. Ratio of the medians; the means are printed beside.
 */
async function compareCalls(
  label: string,
  bare: () => Promise<unknown>,
  client: () => Promise<unknown>
): Promise<Comparison> {
  const bareTimes: number[] = []
  const clientTimes: number[] = []
  const timed = async (task: () => Promise<unknown>, into: number[]) => {
    const started = performance.now()
    await task()
    into.push(performance.now() - started)
  }
  for (let i = 0; i < calls; i++) {
    if (i % 2 === 0) {
      await timed(bare, bareTimes)
      await timed(client, clientTimes)
    } else {
      await timed(client, clientTimes)
      await timed(bare, bareTimes)
    }
  }
  const result = {
    bareUs: median(bareTimes) * 1000,
    clientUs: median(clientTimes) * 1000,
    ratio: median(clientTimes) / median(bareTimes),
    meanRatio: mean(clientTimes) / mean(bareTimes),
  }
  report(label, result, `median of ${calls} calls each`)
  return result
}

/**
 * `width` calls in flight: what counts is throughput, so each side runs
 * alone in short blocks, alternating (bare, client, client, bare, ...), and
 * the verdict is the median of the per-pair ratios: other processes disturb
 * a few blocks, not the median. (Mixing both sides in one load would let the
 * client's work slow the bare calls too and hide it.)
 */
async function compareThroughput(
  label: string,
  width: number,
  bare: () => Promise<unknown>,
  client: () => Promise<unknown>
): Promise<Comparison> {
  const perBlock = Math.max(width * 4, 100)
  const pairs = Math.max(5, Math.floor(calls / perBlock))
  const run = async (task: () => Promise<unknown>): Promise<number> => {
    const started = performance.now()
    await inParallel(perBlock, width, task)
    return performance.now() - started
  }
  const bareTimes: number[] = []
  const clientTimes: number[] = []
  const ratios: number[] = []
  for (let pair = 0; pair < pairs; pair++) {
    const bareFirst = pair % 2 === 0
    const first = await run(bareFirst ? bare : client)
    const second = await run(bareFirst ? client : bare)
    const [bareMs, clientMs] = bareFirst ? [first, second] : [second, first]
    bareTimes.push(bareMs)
    clientTimes.push(clientMs)
    ratios.push(clientMs / bareMs)
  }
  const result = {
    bareUs: (median(bareTimes) / perBlock) * 1000,
    clientUs: (median(clientTimes) / perBlock) * 1000,
    ratio: median(ratios),
  }
  report(label, result, `median of ${pairs} block pairs of ${perBlock} calls`)
  return result
}

function percent(ratio: number): string {
  return `${((ratio - 1) * 100).toFixed(1)}%`
}

function mean(values: number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length
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
    // machine right now, by each method. A client ratio inside it is noise.
    const floor = await compareCalls("noise floor, one at a time", bare, bare)
    const floorParallel = await compareThroughput(
      `noise floor, ${concurrency} in flight`,
      concurrency,
      bare,
      bare
    )
    const sequential = await compareCalls(
      "client, one at a time",
      bare,
      viaClient
    )
    const parallel = await compareThroughput(
      `client, ${concurrency} in flight`,
      concurrency,
      bare,
      viaClient
    )
    // For reference, against undici's dispatch API, which the client itself
    // uses (no Readable stream per body): what zod, the verification code and
    // the error model cost on their own.
    const dispatchOptions = {
      origin: sandbox.url,
      path,
      method: "GET" as const,
      headers,
    }
    const bareDispatch = async () => {
      const res = await dispatchForText(pool, dispatchOptions)
      const body = JSON.parse(res.text) as { transactionId?: string }
      if (res.status !== 200 || body.transactionId !== transactionId) {
        throw new Error(`bare dispatch answered ${res.status}`)
      }
    }
    await compareCalls("reference: vs bare dispatch", bareDispatch, viaClient)

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
      `time per call with no network (one MockAgent answers both): bare request ${cpu.bareUs.toFixed(1)} us, client ${cpu.clientUs.toFixed(1)} us (${(cpu.clientUs - cpu.bareUs).toFixed(1)} us)`
    )
    console.log(
      `noise floor on this machine: ${percent(floor.ratio)} one at a time, ${percent(floorParallel.ratio)} with ${concurrency} in flight`
    )
    const worst = Math.max(sequential.ratio, parallel.ratio)
    console.log(
      `verdict: the client adds ${percent(worst)} at worst to a bare undici request (target under 10%), /authorize ${singleFlight === 1 ? "single-flight" : "NOT single-flight"} (target 1)`
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
