#!/usr/bin/env node
// Runs the card-service sandbox (src/sandbox) as a process, for the demo and
// for manual testing. Prints one JSON line when ready; SIGINT/SIGTERM close it,
// also when sent to the npx or npm that started it (see stopWithStarter).
"use strict"

const path = require("node:path")
const fs = require("node:fs")

const USAGE = `Usage: card-service-sandbox [options]

  --port <n>             port to listen on (0 = any free port; default 0)
  --host <host>          address to bind (default 127.0.0.1)
  --client-code <s>      clientCode for GET /authorize
  --client-secret <s>    clientSecret for GET /authorize
  --verify-id <s>        the merchant code (verifyId)
  --merchant-id <s>      the merchant ID
  --settlement-ms <n>    time from capture/refund to TRANSMITTED (default 300000)
  --verification-ttl-ms <n>  lifetime of a verification code (default 1800000)
  --review-after-ms <n>  payments marked for review (480) conclude on their own
                         this long after their result (default: only by
                         POST /_sandbox/reviews/{transactionId})
  --callback-format <json|form>
  --code-scoping <permissive|scoped>
                         scoped: a code posted in a payment form is refused
                         by reverse, capture, refund, void and retrieve
                         (default permissive)
  --callback-knobs <json>  start-up callback knobs, as POST /_sandbox/callback-knobs
                         takes them, e.g. '{"drop":true}' or '{"retries":0}'
  --latency-ms <n>       a round trip added to every request before it is
                         handled, as a service across the internet (default 0)
  --latency-jitter-ms <n>  up to this much more or less per request (default 0)
  --fault <json>         one fault queued at start, as POST /_sandbox/faults takes it,
                         e.g. '{"type":"destroy","count":2,"path":"/capture"}'
  --verbose              log one line per request to stderr

Every option can also be set as CARD_SERVICE_SANDBOX_<NAME>, e.g.
CARD_SERVICE_SANDBOX_PORT=7070 or CARD_SERVICE_SANDBOX_CLIENT_SECRET=...`

const OPTIONS = [
  "port",
  "host",
  "client-code",
  "client-secret",
  "verify-id",
  "merchant-id",
  "settlement-ms",
  "verification-ttl-ms",
  "review-after-ms",
  "callback-format",
  "code-scoping",
  "callback-knobs",
  "fault",
  "latency-ms",
  "latency-jitter-ms",
]

function parseArgs(argv, env) {
  const values = {}
  for (const name of OPTIONS) {
    const fromEnv =
      env[`CARD_SERVICE_SANDBOX_${name.toUpperCase().replace(/-/g, "_")}`]
    if (fromEnv !== undefined && fromEnv !== "") {
      values[name] = fromEnv
    }
  }
  let verbose = env.CARD_SERVICE_SANDBOX_VERBOSE === "1"
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === "--help" || arg === "-h") {
      process.stdout.write(`${USAGE}\n`)
      process.exit(0)
    }
    if (arg === "--verbose") {
      verbose = true
      continue
    }
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg)
    if (!match || !OPTIONS.includes(match[1])) {
      fail(`unknown option ${arg}`)
    }
    const value = match[2] !== undefined ? match[2] : argv[++i]
    if (value === undefined) {
      fail(`${arg} needs a value`)
    }
    values[match[1]] = value
  }
  return { values, verbose }
}

function fail(message) {
  process.stderr.write(`card-service-sandbox: ${message}\n\n${USAGE}\n`)
  process.exit(2)
}

function integer(name, text) {
  if (text === undefined) {
    return undefined
  }
  if (!/^\d+$/.test(text)) {
    fail(`--${name} must be a whole number, got ${JSON.stringify(text)}`)
  }
  return Number(text)
}

/** A JSON option through the control endpoints' own check; exits 2 naming the problem. */
function json(name, text, parse) {
  if (text === undefined) {
    return undefined
  }
  let value
  try {
    value = JSON.parse(text)
  } catch {
    fail(`--${name} must be JSON, got ${JSON.stringify(text)}`)
  }
  const parsed = parse(value)
  if (typeof parsed === "string") {
    fail(`--${name}: ${parsed}`)
  }
  return parsed
}

/**
 * The built package ships .medusa/server/src/sandbox/index.js; in this
 * repository before a build only the TypeScript exists, so ts-node (with swc,
 * type checks off) compiles it on the fly. A build older than the sources is
 * skipped, so a stale .medusa folder never runs yesterday's sandbox.
 */
function loadSandbox() {
  const root = path.resolve(__dirname, "..")
  const built = path.join(
    root,
    ".medusa",
    "server",
    "src",
    "sandbox",
    "index.js"
  )
  const sources = path.join(root, "src", "sandbox")
  if (fs.existsSync(built) && !newerThan(sources, fs.statSync(built).mtimeMs)) {
    return require(built)
  }
  require("ts-node").register({
    transpileOnly: true,
    swc: true,
    project: path.join(root, "tsconfig.json"),
  })
  return require(path.join(root, "src", "sandbox", "index.ts"))
}

function newerThan(dir, mtimeMs) {
  if (!fs.existsSync(dir)) {
    return false
  }
  return fs
    .readdirSync(dir)
    .some((name) => fs.statSync(path.join(dir, name)).mtimeMs > mtimeMs)
}

/**
 * npx, `npm exec` and `npm run` start a bin as the child of a `sh -c` and
 * pass a SIGTERM or SIGINT sent to npm on to that shell only. The shell dies
 * of it, and this process, adopted by init, would keep serving and hold its
 * port. So when npm started us (it sets npm_lifecycle_event), our parent
 * going away stops us too. Started directly, the signals reach this process
 * itself and nothing is watched, so `nohup` and service managers keep their
 * usual meaning.
 */
function stopWithStarter(env, onGone) {
  if (env.npm_lifecycle_event === undefined) {
    return
  }
  const parent = process.ppid
  const timer = setInterval(() => {
    if (process.ppid !== parent) {
      clearInterval(timer)
      onGone()
    }
  }, PARENT_POLL_MS)
  timer.unref()
}

// How soon after npm is stopped the sandbox follows; a ppid read is cheap.
const PARENT_POLL_MS = 200

async function main() {
  const { values, verbose } = parseArgs(process.argv.slice(2), process.env)
  const format = values["callback-format"]
  if (format !== undefined && format !== "json" && format !== "form") {
    fail("--callback-format must be json or form")
  }
  const scoping = values["code-scoping"]
  if (scoping !== undefined && scoping !== "permissive" && scoping !== "scoped") {
    fail("--code-scoping must be permissive or scoped")
  }
  const credentials = {}
  for (const [flag, key] of [
    ["client-code", "clientCode"],
    ["client-secret", "clientSecret"],
    ["verify-id", "verifyId"],
    ["merchant-id", "merchantId"],
  ]) {
    if (values[flag] !== undefined) {
      credentials[key] = values[flag]
    }
  }
  const log = (level) => (message) =>
    process.stderr.write(`[sandbox] ${level} ${message}\n`)
  const { startSandbox, parseKnobs, parseFault, parseLatency } = loadSandbox()
  // Checked as the /_sandbox/ endpoints check them, before anything starts.
  const knobs = json("callback-knobs", values["callback-knobs"], parseKnobs)
  const fault = json("fault", values.fault, parseFault)
  const latency = {}
  for (const [flag, key] of [
    ["latency-ms", "ms"],
    ["latency-jitter-ms", "jitterMs"],
  ]) {
    const ms = integer(flag, values[flag])
    if (ms !== undefined) latency[key] = ms
  }
  const latencyProblem = parseLatency(latency)
  if (typeof latencyProblem === "string") {
    fail(`--latency-ms, --latency-jitter-ms: ${latencyProblem}`)
  }
  const sandbox = await startSandbox({
    port: integer("port", values.port) ?? 0,
    host: values.host,
    credentials,
    settlementMs: integer("settlement-ms", values["settlement-ms"]),
    verificationTtlMs: integer(
      "verification-ttl-ms",
      values["verification-ttl-ms"]
    ),
    reviewAfterMs: integer("review-after-ms", values["review-after-ms"]),
    callbackFormat: format,
    codeScoping: scoping,
    ...(knobs ? { callbackKnobs: knobs } : {}),
    latency,
    logger: {
      debug: verbose ? log("debug") : undefined,
      info: log("info"),
      warn: log("warn"),
      error: log("error"),
    },
  })
  if (fault) {
    sandbox.injectFault(fault)
  }
  let closing = false
  const stop = () => {
    if (closing) {
      return
    }
    closing = true
    sandbox.close().then(
      () => process.exit(0),
      () => process.exit(1)
    )
  }
  // Handlers first: whoever reads the ready line may signal at once.
  process.on("SIGINT", stop)
  process.on("SIGTERM", stop)
  stopWithStarter(process.env, () => {
    log("info")("the npm process that started the sandbox has ended: stopping")
    stop()
  })
  const { clientCode, clientSecret, verifyId, merchantId } = sandbox.credentials
  process.stdout.write(
    `${JSON.stringify({ url: sandbox.url, clientCode, clientSecret, verifyId, merchantId })}\n`
  )
}

main().catch((error) => {
  process.stderr.write(
    `card-service-sandbox: ${error && error.stack ? error.stack : error}\n`
  )
  process.exit(1)
})
