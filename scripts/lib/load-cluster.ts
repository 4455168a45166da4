/**
 * A small production-like cluster on loopback for the load benchmark
 * (scripts/bench-load.ts) and the two-instance test: one PostgreSQL, one
 * Redis, the card-service sandbox in this process, two Medusa instances with
 * the plugin, and a round-robin proxy in front of them that sends the
 * callbacks and browser returns of one payment session to alternating
 * instances, so that no payment is settled by the instance that started it
 * alone.
 */
import { ChildProcess, spawn } from "node:child_process"
import fs from "node:fs"
import http from "node:http"
import { AddressInfo } from "node:net"
import os from "node:os"
import path from "node:path"
import { Client } from "pg"
import { CardServiceSandbox, startSandbox } from "../../src/sandbox"
import { STATEMENT_SETTINGS, statementCounter, type StatementCounter } from "./load-statements"
import { REDIS_BINARY, startOwnRedis } from "./redis-server"

// The launcher's helpers are plain JavaScript shared with scripts/demo.js.
const { startEmbeddedPostgres, freePort } = require("./embedded-db")
const { spawnNode, stopGroup, waitForHttp, tail } = require("./demo-processes")

const ROOT = path.resolve(__dirname, "..", "..")
export const CARD_PROVIDER_ID = "pp_card-service_card-service"
/** The same provider, authorizing only (medusa-config.ts, CARD_SERVICE_AUTHORIZE_ONLY_PROVIDER). */
export const AUTHORIZE_ONLY_PROVIDER_ID = "pp_card-service_card-service-authorize"
export const SYSTEM_PROVIDER_ID = "pp_system_default"
const DATABASE = "medusa_load"

type Log = (line: string) => void

export type Instance = {
  name: string
  port: number
  url: string
  child: ChildProcess & {
    exited: Promise<{ code: number | null; signal: string | null }>
  }
  logFile: string
  up: boolean
  /** When it last came up (ms since the epoch). */
  startedAt?: number
}

export type ProxyCounters = {
  requests: number
  /** 5xx written by a Medusa instance (the first few listed in upstream5xxPaths until reported). */
  upstream5xx: number
  /**
   * Of upstream5xx, those answering the service's callbacks
   * (/card-service/callback/...): the plugin's "deliver again", which the
   * service acts on. The rest answered a shopper's request.
   */
  callback5xx: number
  upstream5xxPaths: string[]
  /** 502 the proxy wrote itself: the instance died with the request in flight. */
  proxy502: number
  /** Requests refused by a dead instance and sent to the other one. */
  rerouted: number
  /** Per payment session, the instances its callbacks and return reached. */
  settledOn: Map<string, Set<string>>
}

/** An instance's answer, as the proxy has it before passing it on. */
export type ProxiedAnswer = { method: string; url: string; status: number; instance: Instance }

export type ProxyHooks = {
  /**
   * Called with each answer before the proxy writes it to its client:
   * "drop" cuts the client's connection instead (the instance answered, the
   * client never heard it). The answer waits until the promise settles.
   */
  beforeAnswer?: (answer: ProxiedAnswer) => Promise<"forward" | "drop"> | "forward"
}

export type Cluster = {
  proxyUrl: string
  sandbox: CardServiceSandbox
  instances: Instance[]
  counters: ProxyCounters
  seed: { publishableKey: string; regionId: string; salesChannelId: string }
  query: (sql: string, params?: unknown[]) => Promise<any[]>
  /** Whether the card side captures automatically (CARD_SERVICE_AUTO_CAPTURE). */
  autoCapture: boolean
  /** pg_stat_statements, when started with `statements`. */
  statements: StatementCounter | null
  killInstance: (index: number) => void
  startInstance: (index: number) => Promise<void>
  restartRedis: () => Promise<void>
  /** What the proxy does with an instance's answer before passing it on (the crash-point harness). */
  proxyHooks: ProxyHooks
  /** The database's URL (for a client of the harness's own). */
  databaseUrl: string
  /** The Redis the instances share, and the key prefix they use. */
  redis: { url: string; namespace: string }
  logDir: string
  stop: () => Promise<void>
}

function medusaCli() {
  return require.resolve("@medusajs/cli/cli.js", { paths: [ROOT] })
}

/** Starts everything; `dbEnv` reuses a running PostgreSQL (DB_HOST...), else an embedded one starts. */
export async function startCluster({
  log = () => {},
  dbEnv,
  stock = 5000,
  variants = 0,
  keepLogs = true,
  cpuProfile = false,
  autoCapture = true,
  statements = false,
  authorizeSide = false,
  settleStart = "alternate",
  persistentRedis = false,
  instanceEnv = {},
  instanceCount = 2,
}: {
  log?: Log
  dbEnv?: Record<string, string | undefined>
  stock?: number
  /**
   * Variants of a second product, each its own inventory item, for shoppers
   * to spread over (demo-seed.ts, seedLoadProduct); 0: every shopper buys
   * the demo mug.
   */
  variants?: number
  /** Keep the instances' logs after stop() (the benchmark points to them; tests do not). */
  keepLogs?: boolean
  /**
   * Write a V8 CPU profile of each Medusa instance (`node --cpu-prof`) into
   * `<logDir>/cpu-profiles` when it stops (scripts/cpu-profile-summary.ts
   * reads them).
   */
  cpuProfile?: boolean
  /** The provider's automatic capture (CARD_SERVICE_AUTO_CAPTURE); on unless told otherwise. */
  autoCapture?: boolean
  /**
   * Load pg_stat_statements into the embedded PostgreSQL, for the
   * benchmark's statement counts (load-statements.ts); not with `dbEnv`.
   */
  statements?: boolean
  /**
   * Register a second card-service provider that authorizes only
   * (AUTHORIZE_ONLY_PROVIDER_ID), enabled on the region beside the others,
   * for the benchmark's third side.
   */
  authorizeSide?: boolean
  /** Where the proxy sends a session's first callback or return (startProxy). */
  settleStart?: SettleStart
  /**
   * Redis keeps an append-only file in the log directory, so restartRedis is
   * a restart, not a wipe (the soak; bench:load's fault restarts it empty).
   */
  persistentRedis?: boolean
  /**
   * More environment for both Medusa instances, over the cluster's own (the
   * soak's compressed time: review timeout, grace, retention, the sweep's
   * schedule).
   */
  instanceEnv?: Record<string, string>
  /** Medusa instances behind the proxy (2 unless told otherwise). */
  instanceCount?: number
} = {}): Promise<Cluster> {
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), "card-service-load-"))
  const cleanups: Array<() => Promise<void>> = []
  if (!keepLogs) {
    cleanups.push(async () =>
      fs.rmSync(logDir, { recursive: true, force: true })
    )
  }
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) {
      await cleanup().catch(() => {})
    }
    cleanups.length = 0
  }
  try {
    // PostgreSQL -------------------------------------------------------
    let databaseUrl: string
    const database = `${DATABASE}_${process.pid}`
    if (dbEnv?.DB_HOST) {
      const base = `postgres://${dbEnv.DB_USERNAME}:${dbEnv.DB_PASSWORD}@${dbEnv.DB_HOST}:${dbEnv.DB_PORT ?? 5432}`
      const admin = new Client({ connectionString: `${base}/postgres` })
      await admin.connect()
      await admin.query(`DROP DATABASE IF EXISTS ${database}`)
      await admin.query(`CREATE DATABASE ${database}`)
      await admin.end()
      databaseUrl = `${base}/${database}`
      cleanups.push(async () => {
        const c = new Client({ connectionString: `${base}/postgres` })
        await c.connect()
        await c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
        await c.end()
      })
    } else {
      log("starting an embedded PostgreSQL")
      const db = await startEmbeddedPostgres({
        log: () => {},
        settings: statements ? STATEMENT_SETTINGS : [],
      })
      cleanups.push(() => db.stop())
      await db.createDatabase(database)
      databaseUrl = db.databaseUrl(database)
    }

    // Redis: a server of our own on a free port, else REDIS_URL. ----------
    let redisUrl: string
    const ownRedis = await startOwnRedis({
      logFile: path.join(logDir, "redis.log"),
      persistentDir: persistentRedis ? fs.mkdtempSync(path.join(logDir, "redis-")) : undefined,
    })
    if (ownRedis) {
      redisUrl = ownRedis.url
      cleanups.push(() => ownRedis.stop())
    } else if (process.env.REDIS_URL) {
      redisUrl = process.env.REDIS_URL
    } else {
      throw new Error(
        `no ${REDIS_BINARY} and no REDIS_URL: the cluster needs a Redis`
      )
    }
    log(`Redis at ${redisUrl}`)

    // The sandbox, in this process so faults can be driven directly. ------
    const sandbox = await startSandbox({
      port: 0,
      // Every round's callbacks at once, as the system side's completions
      // are: at the sandbox's default of 16 per origin, 50 or 100 shoppers'
      // callbacks queued in the sandbox before reaching the proxy
      // (docs/benchmarks.md, "Fair to both providers").
      callbackConnections: 256,
      // The service delivers each callback twice; failed deliveries (an
      // instance that died) are sent again, which is what settles them.
      callbackKnobs: {
        duplicates: 2,
        retries: 5,
        retryIntervalMs: 1000,
        timeoutMs: 15_000,
      },
      // No settlement during a run: captures stay voidable, nothing changes under the audit.
      settlementMs: 24 * 60 * 60 * 1000,
    })
    cleanups.push(() => sandbox.close())

    // The proxy's port is the backend URL both instances announce. --------
    const proxyPort = await freePort()
    const proxyUrl = `http://127.0.0.1:${proxyPort}`
    const ports: number[] = []
    for (let i = 0; i < instanceCount; i++) ports.push(await freePort())
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      NODE_ENV: "development",
      MEDUSA_DISABLE_TELEMETRY: "true",
      MEDUSA_ADMIN_DISABLE: "true",
      LOG_LEVEL: process.env.LOAD_LOG_LEVEL ?? "warn",
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      REDIS_NAMESPACE: `card-service-load-${process.pid}:`,
      MEDUSA_BACKEND_URL: proxyUrl,
      STOREFRONT_URL: "http://localhost:8000",
      CARD_SERVICE_CLIENT_CODE: sandbox.credentials.clientCode,
      CARD_SERVICE_CLIENT_SECRET: sandbox.credentials.clientSecret,
      CARD_SERVICE_VERIFY_ID: sandbox.credentials.verifyId,
      CARD_SERVICE_MERCHANT_ID: sandbox.credentials.merchantId,
      CARD_SERVICE_MODE: "test",
      CARD_SERVICE_TEST_URL: sandbox.url,
      CARD_SERVICE_AUTO_CAPTURE: String(autoCapture),
      CARD_SERVICE_AUTHORIZE_ONLY_PROVIDER: String(authorizeSide),
      CARD_SERVICE_SESSION_SECRET: "load-benchmark-session-secret-0123456789",
      ...instanceEnv,
    }
    delete env.NODE_OPTIONS

    const runOnce = async (
      args: string[],
      extra: Record<string, string> = {}
    ) => {
      const logFile = path.join(logDir, "setup.log")
      const child = spawnNode([medusaCli(), ...args], {
        env: { ...env, ...extra },
        logFile,
        cwd: ROOT,
      })
      cleanups.push(() => stopGroup(child, { graceMs: 2000 }))
      const result = await child.exited
      if (result.code !== 0) {
        throw new Error(
          `medusa ${args[0]} failed (${JSON.stringify(result)}):\n${tail(logFile)}`
        )
      }
    }
    // Migrations once, before any instance starts: two instances must not race them.
    log("medusa db:migrate")
    await runOnce(["db:migrate"])
    log("seeding the store")
    const seedFile = path.join(logDir, "seed.json")
    await runOnce(["exec", "./scripts/lib/demo-seed.ts"], {
      DEMO_SEED_OUTPUT: seedFile,
      DEMO_ADMIN_EMAIL: "admin@example.com",
      DEMO_ADMIN_PASSWORD: "supersecret",
      DEMO_SEED_PROVIDERS: [SYSTEM_PROVIDER_ID, ...(authorizeSide ? [AUTHORIZE_ONLY_PROVIDER_ID] : [])].join(","),
      DEMO_SEED_STOCK: String(stock),
      DEMO_SEED_LOAD_VARIANTS: String(variants),
    })
    const seed = JSON.parse(fs.readFileSync(seedFile, "utf8"))

    const instances: Instance[] = ports.map((port, i) => ({
      name: `medusa-${i + 1}`,
      port,
      url: `http://127.0.0.1:${port}`,
      child: null as any,
      logFile: path.join(logDir, `medusa-${i + 1}.log`),
      up: false,
    }))
    const profileDir = path.join(logDir, "cpu-profiles")
    // Node refuses --cpu-prof in NODE_OPTIONS: it goes on the command line.
    const profileArgs = cpuProfile ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []
    const startInstance = async (index: number) => {
      const instance = instances[index]
      const child = spawnNode(
        [...profileArgs, medusaCli(), "start", "--port", String(instance.port)],
        {
          env,
          logFile: instance.logFile,
          cwd: ROOT,
        }
      )
      instance.child = child
      try {
        await waitForHttp(`${instance.url}/health`, {
          child,
          timeoutMs: 300_000,
        })
      } catch (error) {
        throw new Error(
          `${instance.name} did not start: ${(error as Error).message}\n${tail(instance.logFile)}`
        )
      }
      instance.up = true
      instance.startedAt = Date.now()
    }
    cleanups.push(async () => {
      await Promise.all(
        instances.map(
          (instance) =>
            instance.child && stopGroup(instance.child, { graceMs: 5000 })
        )
      )
    })
    // One after the other: each boot runs Medusa's loaders against the same schema.
    for (let i = 0; i < instances.length; i++) {
      log(`starting ${instances[i].name} on port ${instances[i].port}`)
      await startInstance(i)
    }

    const counters: ProxyCounters = {
      requests: 0,
      upstream5xx: 0,
      callback5xx: 0,
      upstream5xxPaths: [],
      proxy502: 0,
      rerouted: 0,
      settledOn: new Map(),
    }
    const proxyHooks: ProxyHooks = {}
    const proxy = startProxy(proxyPort, instances, counters, settleStart, proxyHooks)
    await new Promise<void>((resolve) =>
      proxy.listen(proxyPort, "127.0.0.1", resolve)
    )
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          proxy.close(() => resolve())
          proxy.closeAllConnections()
        })
    )

    const pg = new Client({ connectionString: databaseUrl })
    // A server that stops under it (Ctrl-C reaches the embedded PostgreSQL
    // too) is logged, not thrown from an event nobody awaits.
    pg.on("error", (error) => log(`the benchmark's database connection closed: ${error.message}`))
    await pg.connect()
    cleanups.push(() => pg.end())
    let statementCount: StatementCounter | null = null
    if (statements) {
      if (dbEnv?.DB_HOST) log("statement counts need the embedded PostgreSQL; none with DB_HOST set")
      else {
        const own = new Client({ connectionString: databaseUrl })
        own.on("error", (error) => log(`the statement counter's database connection closed: ${error.message}`))
        await own.connect()
        cleanups.push(() => own.end())
        statementCount = await statementCounter(own)
      }
    }

    return {
      proxyUrl,
      sandbox,
      instances,
      counters,
      seed,
      logDir,
      query: async (sql, params) => (await pg.query(sql, params as any[])).rows,
      statements: statementCount,
      autoCapture,
      proxyHooks,
      databaseUrl,
      redis: { url: redisUrl, namespace: env.REDIS_NAMESPACE },
      killInstance: (index) => {
        const instance = instances[index]
        instance.up = false
        try {
          process.kill(-instance.child.pid!, "SIGKILL")
        } catch {
          // Already gone.
        }
      },
      startInstance,
      restartRedis: async () => {
        if (!ownRedis)
          throw new Error("the Redis is not ours to restart (REDIS_URL)")
        await ownRedis.restart()
      },
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}


/** Where the proxy sends each session's first callback or return (startProxy). */
export type SettleStart = "alternate" | "random"

const SETTLE_PATH = /^\/card-service\/(callback|return)\/([^/?]+)/

/**
 * Round robin over the instances that are up. Callbacks and returns of one
 * session alternate instances by their own counter, so the service's copies
 * and the browser's return meet on different instances. A refused
 * connection (dead instance) goes to the other one; a request lost in flight
 * is answered 502, as a load balancer would, and counted.
 *
 * Where a session's first callback or return goes: to each instance in
 * turn ("alternate"), as the system provider's completions go, or to either
 * at random ("random", how it was until issue 33). The first delivery is the
 * one that completes the cart, a checkout's whole work, so at random one
 * instance had 7 of a round's 10 completions as often as not and the other
 * idled at the round's end: the card side's wait at 10 shoppers.
 */
function startProxy(
  port: number,
  instances: Instance[],
  counters: ProxyCounters,
  settleStart: SettleStart,
  hooks: ProxyHooks = {}
) {
  let next = 0
  let sessions = 0
  const perSession = new Map<string, number>()
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 })
  const pick = (url: string, skip?: Instance): Instance | undefined => {
    const up = instances.filter((i) => i.up && i !== skip)
    if (!up.length) return undefined
    const match = SETTLE_PATH.exec(url)
    if (match) {
      const n = perSession.get(match[2]) ?? (settleStart === "random" ? Math.floor(Math.random() * 2) : sessions++)
      perSession.set(match[2], n + 1)
      const target = up[n % up.length]
      const seen = counters.settledOn.get(match[2]) ?? new Set<string>()
      counters.settledOn.set(match[2], seen.add(target.name))
      return target
    }
    return up[next++ % up.length]
  }
  return http.createServer(async (req, res) => {
    counters.requests++
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks)
    const forward = (target: Instance | undefined, tried: number) => {
      if (!target) {
        counters.proxy502++
        res.writeHead(502).end("no instance")
        return
      }
      const upstream = http.request(
        {
          host: "127.0.0.1",
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: `127.0.0.1:${port}` },
          agent,
        },
        async (answer) => {
          const status = answer.statusCode ?? 502
          if (hooks.beforeAnswer) {
            answer.pause()
            const verdict = await hooks.beforeAnswer({ method: req.method ?? "", url: req.url ?? "", status, instance: target })
            if (verdict === "drop") {
              answer.destroy()
              res.destroy()
              return
            }
          }
          if (status >= 500) {
            counters.upstream5xx++
            if (req.url?.startsWith("/card-service/callback/")) counters.callback5xx++
            if (counters.upstream5xxPaths.length < 20)
              counters.upstream5xxPaths.push(
                `${status} ${req.method} ${req.url}`
              )
          }
          res.writeHead(status, answer.headers)
          answer.pipe(res)
        }
      )
      upstream.on("error", (error: NodeJS.ErrnoException) => {
        if (res.headersSent) {
          res.destroy()
          return
        }
        if (error.code === "ECONNREFUSED" && tried < instances.length) {
          // Never reached the instance: safe to send to another one.
          target.up = false
          counters.rerouted++
          forward(pick(req.url ?? "/", target), tried + 1)
          return
        }
        counters.proxy502++
        res.writeHead(502).end("upstream lost")
      })
      upstream.end(body)
    }
    forward(pick(req.url ?? "/"), 1)
  })
}
