/**
 * Throughput of the sandbox's follow-on endpoints (capture, refund,
 * retrieve) over loopback, with a bounded number of requests in flight.
 *
 *   npx ts-node --swc scripts/bench-sandbox.ts [--requests 6000] [--concurrency 32]
 *
 * Authorizations are seeded in process with seedAuthorization (the browser
 * flow is not what is measured); every measured request is real HTTP to the
 * sandbox on 127.0.0.1.
 */
import { performance } from "node:perf_hooks"
import { Pool } from "undici"
import { CardServiceSandbox, startSandbox } from "../src/sandbox"

const TIME_LIMIT_MS = 30_000

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`)
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback
  if (!Number.isInteger(value) || value <= 0) {
    throw new Error(`--${name} must be a positive whole number`)
  }
  return value
}

async function main(): Promise<void> {
  const total = option("requests", 6000)
  const concurrency = option("concurrency", 32)
  const sandbox: CardServiceSandbox = await startSandbox({ port: 0 })
  const pool = new Pool(sandbox.url, {
    connections: concurrency,
    pipelining: 1,
  })
  try {
    const code = (
      (await (
        await pool.request({
          path: "/authorize",
          method: "GET",
          headers: {
            clientCode: sandbox.credentials.clientCode,
            clientSecret: sandbox.credentials.clientSecret,
          },
        })
      ).body.json()) as { Authorization: string }
    ).Authorization
    const authorizations = Array.from(
      { length: Math.ceil(total / 3) },
      () => sandbox.seedAuthorization({ amount: "10.50" }).transactionId
    )
    const headers = {
      verifyId: sandbox.credentials.verifyId,
      Authorization: code,
      "content-type": "application/json",
    }
    const captures: string[] = []
    const body = (originalTransactionId: string, amount: number) =>
      JSON.stringify({
        merchantId: sandbox.credentials.merchantId,
        merchantReferenceCode: "bench",
        currency: "978",
        amount,
        email: "bench@example.com",
        originalTransactionId,
      })

    // One request per index, cycling capture -> refund -> retrieve over the
    // seeded authorizations so every request does real state work.
    const kinds = ["capture", "refund", "retrieve"] as const
    const counts = { capture: 0, refund: 0, retrieve: 0 }
    const statuses = new Map<number, number>()
    let next = 0
    let done = 0
    const started = performance.now()
    const deadline = started + TIME_LIMIT_MS

    async function worker(): Promise<void> {
      while (next < total && performance.now() < deadline) {
        const i = next++
        const kind = kinds[i % 3]
        const auth = authorizations[Math.floor(i / 3) % authorizations.length]
        let response
        if (kind === "capture") {
          response = await pool.request({
            path: "/capture",
            method: "POST",
            headers,
            body: body(auth, 10.5),
          })
          const json = (await response.body.json()) as { transactionId: string }
          captures.push(json.transactionId)
        } else if (kind === "refund") {
          const capture = captures[captures.length - 1] ?? auth
          response = await pool.request({
            path: "/refund",
            method: "POST",
            headers,
            body: body(capture, 0.01),
          })
          await response.body.dump()
        } else {
          response = await pool.request({
            path: `/payment/retrieve/${sandbox.credentials.merchantId}/${auth}`,
            method: "GET",
            headers,
          })
          await response.body.dump()
        }
        counts[kind] += 1
        statuses.set(
          response.statusCode,
          (statuses.get(response.statusCode) ?? 0) + 1
        )
        done += 1
      }
    }

    await Promise.all(Array.from({ length: concurrency }, worker))
    const seconds = (performance.now() - started) / 1000
    const perSecond = Math.round(done / seconds)
    process.stdout.write(
      `${JSON.stringify({
        requests: done,
        concurrency,
        seconds: Number(seconds.toFixed(3)),
        requestsPerSecond: perSecond,
        byKind: counts,
        statuses: Object.fromEntries(statuses),
      })}\n`
    )
  } finally {
    await pool.close()
    await sandbox.close()
  }
}

main().catch((error) => {
  process.stderr.write(
    `${error instanceof Error ? error.stack : String(error)}\n`
  )
  process.exit(1)
})
