#!/usr/bin/env node
// Proves the storefront recipe (scripts/lib/starter-recipe.js) against a real
// copy of Medusa's starter (medusajs/dtc-starter's apps/storefront):
//
//   npm run check:starter -- <starter's apps/storefront> [--variant form|hosted|both] [--keep]
//
// A copy of it gets plain `npm install`; `tsc --noEmit` with its own tsconfig
// gives the errors it has anyway. Per variant: the recipe's lines, the plugin
// packed from this repository (plain `npm install <tarball>`), tsc again (no
// new error allowed), `next build` and `next start` against `npm run demo`,
// then the checkout cases of scripts/lib/starter-driver.js in Chromium. The
// starter sets typescript.ignoreBuildErrors, so tsc is where a wrong import
// shows before a shopper meets it. Exits non-zero on any failure; everything
// it starts is stopped and its temp dir removed (unless --keep), on Ctrl-C too.
"use strict"

const { spawn } = require("node:child_process")
const fs = require("node:fs")
const os = require("node:os")
const path = require("node:path")

const ROOT = path.resolve(__dirname, "..")
// The shared test helpers are TypeScript, as in scripts/demo.js's sandbox.
require("ts-node").register({
  transpileOnly: true,
  swc: true,
  project: path.join(ROOT, "tsconfig.json"),
})
const { launchChromium } = require("../tests/helpers/chromium.ts")
const {
  exited,
  freePorts,
  readyLine,
  signalGroup,
} = require("../tests/helpers/demo-process.ts")
const { packFreshCopy } = require("../tests/helpers/packed-package.ts")
const { shellEnv } = require("../tests/helpers/process-tree.ts")
const {
  spawnNode,
  stopGroup,
  tail,
  waitForHttp,
} = require("./lib/demo-processes")
const { VARIANTS, applyEdit, lineCounts } = require("./lib/starter-recipe")
const { CASES, runCase } = require("./lib/starter-driver")

const SHOTS = path.join(ROOT, "test-results")
const MINUTE = 60_000
/** Medusa's server packages: a storefront needs none of them (docs/storefront.md). */
const SERVER_PACKAGES = [
  "@medusajs/medusa",
  "@medusajs/framework",
  "@medusajs/admin-sdk",
  "@medusajs/cli",
]
/** tsc's plain (non-TTY) error line: file(line,col): error TSnnnn: message. */
const TSC_ERROR = /^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/

const cleanups = []
const live = new Set()
const timings = []

function usage(message) {
  console.error(
    `${message}\nusage: node scripts/check-starter.js <starter's apps/storefront> [--variant form|hosted|both] [--keep]`
  )
  process.exit(2)
}

function parseArgs(args) {
  const options = { source: null, variants: ["form", "hosted"], keep: false }
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--keep") options.keep = true
    else if (args[i] === "--variant") {
      const value = args[++i]
      if (value === "both") options.variants = ["form", "hosted"]
      else if (VARIANTS[value]) options.variants = [value]
      else usage(`--variant must be form, hosted or both, got ${value}`)
    } else if (!options.source) options.source = path.resolve(args[i])
    else usage(`unexpected argument ${args[i]}`)
  }
  if (!options.source) usage("which storefront?")
  if (!fs.existsSync(path.join(options.source, "package.json"))) {
    usage(
      `${options.source} has no package.json: give the starter's apps/storefront`
    )
  }
  return options
}

/** Times a step, prints its outcome; a failure is rethrown for the caller to weigh. */
async function step(label, work) {
  if (stopping) throw new Error("stopped")
  const started = Date.now()
  console.log(`... ${label}`)
  try {
    const result = await work()
    timings.push([label, (Date.now() - started) / 1000, "ok"])
    console.log(`ok  ${label} (${seconds(started)})`)
    return result
  } catch (error) {
    timings.push([label, (Date.now() - started) / 1000, "FAILED"])
    // After Ctrl-C, steps fail because their processes were stopped: not news.
    if (!stopping)
      console.log(`FAILED ${label} (${seconds(started)}): ${error.message}`)
    throw error
  }
}

function seconds(since) {
  return `${((Date.now() - since) / 1000).toFixed(0)} s`
}

/**
 * A command in its own process group, its output in `log`; the whole group
 * is stopped after `timeoutMs`, or by the cleanup on Ctrl-C. Resolves with
 * the exit code and the output.
 */
async function run(command, args, { cwd, env, log, timeoutMs }) {
  // Nothing new once Ctrl-C's cleanup has begun: it would outlive it.
  if (stopping) throw new Error("stopped")
  const fd = fs.openSync(log, "a")
  const child = spawn(command, args, {
    cwd,
    env,
    detached: true,
    stdio: ["ignore", fd, fd],
  })
  fs.closeSync(fd)
  child.exited = new Promise((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal }))
  )
  live.add(child)
  let timer
  const late = new Promise(
    (resolve) => (timer = setTimeout(resolve, timeoutMs, "late"))
  )
  const result = await Promise.race([child.exited, late])
  clearTimeout(timer)
  if (result === "late") await stopGroup(child)
  live.delete(child)
  if (result === "late") {
    throw new Error(
      `${command} ${args.join(" ")} did not finish within ${timeoutMs / MINUTE} min; see ${log}`
    )
  }
  return { code: result.code, output: fs.readFileSync(log, "utf8") }
}

async function mustRun(command, args, options) {
  const { code } = await run(command, args, options)
  if (code !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} failed (exit ${code}); last lines of ${options.log}:\n${tail(options.log, 20)}`
    )
  }
}

/** `npx tsc --noEmit -p tsconfig.json` in the storefront: its errors, without line numbers for comparing. */
async function typeCheck(dir, env, log) {
  // Incremental state from an earlier run must not decide what gets checked.
  fs.rmSync(path.join(dir, "tsconfig.tsbuildinfo"), { force: true })
  fs.writeFileSync(log, "")
  const { code, output } = await run(
    "npx",
    ["--no", "--", "tsc", "--noEmit", "-p", "tsconfig.json"],
    {
      cwd: dir,
      env,
      log,
      timeoutMs: 15 * MINUTE,
    }
  )
  const errors = output
    .split("\n")
    .map((line) => line.match(TSC_ERROR))
    .filter(Boolean)
    .map((m) => ({ key: `${m[1]} ${m[4]} ${m[5]}`, line: m[0] }))
  if (code !== 0 && errors.length === 0)
    throw new Error(
      `tsc failed without an error line (exit ${code}); see ${log}`
    )
  return errors
}

/** Errors of `after` that `baseline` has not (as many times). */
function newErrors(after, baseline) {
  const left = new Map()
  for (const e of baseline) left.set(e.key, (left.get(e.key) ?? 0) + 1)
  return after.filter((e) => {
    const n = left.get(e.key) ?? 0
    left.set(e.key, n - 1)
    return n <= 0
  })
}

/** The recipe's files as the starter has them, then the variant's lines (what an owner writes). */
function applyRecipe(source, dir, variant) {
  const files = new Set(
    Object.values(VARIANTS)
      .flat()
      .map((edit) => edit.file)
  )
  const text = new Map()
  for (const file of files) {
    const original = path.join(source, file)
    text.set(
      file,
      fs.existsSync(original) ? fs.readFileSync(original, "utf8") : null
    )
  }
  for (const edit of VARIANTS[variant])
    text.set(edit.file, applyEdit(text.get(edit.file), edit))
  for (const [file, content] of text) {
    const target = path.join(dir, file)
    if (content === null) fs.rmSync(target, { force: true })
    else {
      fs.mkdirSync(path.dirname(target), { recursive: true })
      fs.writeFileSync(target, content)
    }
  }
}

/** `npm run demo` in its own group, returning shoppers to the starter; as the browser tests start it. */
function startDemo({ work, storefront }) {
  return freePorts(2).then(([backendPort, sandboxPort]) => {
    const env = {
      ...shellEnv(),
      DEMO_DATA_DIR: path.join(work, "demo-data"),
      DEMO_BACKEND_PORT: String(backendPort),
      DEMO_SANDBOX_PORT: String(sandboxPort),
      DEMO_STOREFRONT_URL: storefront,
    }
    delete env.NODE_OPTIONS
    const demo = spawn("npm", ["run", "demo"], {
      cwd: ROOT,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    })
    const log = fs.createWriteStream(path.join(work, "logs", "demo.log"))
    let output = ""
    for (const stream of [demo.stdout, demo.stderr]) {
      stream.on("data", (chunk) => {
        output += chunk
        log.write(chunk)
      })
    }
    cleanups.push(async () => {
      if (demo.exitCode !== null || demo.signalCode !== null) return
      signalGroup(demo.pid, "SIGINT")
      await exited(demo, MINUTE).catch(() => signalGroup(demo.pid, "SIGKILL"))
    })
    return readyLine(demo, () => output, 12 * MINUTE)
  })
}

/**
 * launchChromium, with Ctrl-C left to this script: Playwright's own SIGINT
 * handler exits the process as soon as the browser is closed, before the demo
 * and the storefront are stopped.
 */
async function launchBrowser() {
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"]
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]))
  const browser = await launchChromium()
  for (const signal of signals) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal).has(listener)) process.off(signal, listener)
    }
  }
  cleanups.push(() => browser.close().catch(() => {}))
  return browser
}

/** One variant: recipe, tsc, build, start, cases. Resolves with the cases' results. */
async function checkVariant(variant, ctx) {
  const { options, dir, baseline, logs, storefront, storefrontPort } = ctx
  const names = Object.keys(CASES)
  const notRun = (reason) =>
    names.map((name) => ({ variant, name, ok: false, reason }))
  console.log(`\n== ${variant} variant ==`)
  try {
    await step(`recipe (${variant})`, () =>
      applyRecipe(options.source, dir, variant)
    )
  } catch (error) {
    return notRun(`the recipe does not apply: ${error.message.split("\n")[0]}`)
  }
  const counts = lineCounts(variant)
  console.log(`lines the owner wrote (${variant}):`)
  for (const [file, lines] of Object.entries(counts.perFile))
    console.log(`  ${String(lines).padStart(3)}  ${file}`)
  console.log(`  ${String(counts.total).padStart(3)}  in all`)
  await ctx.installPlugin()

  const after = await step(`tsc with the recipe (${variant})`, () =>
    typeCheck(dir, ctx.env, path.join(logs, `tsc-${variant}.log`))
  )
  const added = newErrors(after, baseline)
  console.log(
    `tsc: ${after.length} errors, ${added.length} new versus the pristine starter's ${baseline.length}`
  )
  for (const e of added) console.log(`  NEW ${e.line}`)
  const results = []
  if (added.length)
    results.push({
      variant,
      name: "tsc",
      ok: false,
      reason: `${added.length} new tsc errors`,
    })

  const ready = await ctx.demo
  const nextEnv = {
    ...ctx.env,
    NEXT_PUBLIC_MEDUSA_BACKEND_URL: ready.backend,
    NEXT_PUBLIC_MEDUSA_PUBLISHABLE_KEY: ready.publishableKey,
    NEXT_PUBLIC_DEFAULT_REGION: "de",
    NEXT_PUBLIC_BASE_URL: storefront,
  }
  let next
  try {
    fs.rmSync(path.join(dir, ".next"), { recursive: true, force: true })
    const log = path.join(logs, `next-build-${variant}.log`)
    await step(`next build (${variant})`, () =>
      mustRun("npx", ["--no", "--", "next", "build"], {
        cwd: dir,
        env: nextEnv,
        log,
        timeoutMs: 20 * MINUTE,
      })
    )
    next = await step(`next start (${variant})`, async () => {
      const child = spawnNode(
        [
          path.join(dir, "node_modules", "next", "dist", "bin", "next"),
          "start",
          "--port",
          String(storefrontPort),
          "--hostname",
          "127.0.0.1",
        ],
        {
          env: { ...nextEnv, NODE_ENV: "production" },
          logFile: path.join(logs, `next-start-${variant}.log`),
          cwd: dir,
        }
      )
      cleanups.push(() => stopGroup(child))
      await waitForHttp(`${storefront}/de`, { child, timeoutMs: 3 * MINUTE })
      return child
    })
  } catch (error) {
    return [
      ...results,
      ...notRun(
        `the storefront did not start: ${error.message.split("\n")[0]}`
      ),
    ]
  }
  const site = { storefront, ready, variant, shots: SHOTS }
  for (const name of names) {
    const result = { variant, ...(await runCase(ctx.browser, site, name)) }
    results.push(result)
    printCase(result)
  }
  await stopGroup(next)
  return results
}

function printCase(r) {
  if (r.ok) {
    console.log(`PASS ${r.name} ${r.url}`)
    return
  }
  console.log(`FAIL ${r.name} ${r.reason}`)
  if (r.url) console.log(`     at ${r.url}`)
  if (r.screenshot)
    console.log(`     screenshot ${path.relative(ROOT, r.screenshot)}`)
  if (r.text) console.log(`     page text: ${r.text}`)
}

function printTimings() {
  console.log("\n== summary ==")
  for (const [label, secs, outcome] of timings) {
    console.log(
      `  ${label.padEnd(36)} ${outcome.padEnd(6)} ${secs.toFixed(0).padStart(5)} s`
    )
  }
}

function printSummary(results) {
  printTimings()
  console.log("")
  for (const r of results) {
    const time = r.seconds === undefined ? "" : `${r.seconds} s`
    console.log(
      `  ${r.variant.padEnd(7)} ${r.name.padEnd(15)} ${r.ok ? "PASS" : "FAIL"} ${time.padStart(6)}  ${r.ok ? r.url : r.reason}`
    )
  }
  const failed = results.filter((r) => !r.ok).length
  console.log(`\n${results.length - failed} passed, ${failed} failed`)
  return failed
}

async function main() {
  const options = parseArgs(process.argv.slice(2))
  const started = Date.now()
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "card-service-starter-"))
  // The demo's PostgreSQL runs as the `postgres` user when this runs as root:
  // it must pass through (not list) this folder to reach its data below it.
  fs.chmodSync(work, 0o711)
  cleanups.push(() => {
    if (options.keep) console.log(`kept ${work}`)
    else {
      // The starter's node_modules and builds: a minute on a busy disk.
      console.log(`removing ${work}`)
      fs.rmSync(work, { recursive: true, force: true })
    }
  })
  const logs = path.join(work, "logs")
  fs.mkdirSync(logs)
  const dir = path.join(work, "storefront")
  const [storefrontPort] = await freePorts(1)
  const storefront = `http://localhost:${storefrontPort}`
  const env = { ...shellEnv(), NEXT_TELEMETRY_DISABLED: "1" }
  delete env.NODE_OPTIONS
  delete env.NODE_ENV
  console.log(`starter ${options.source}\nwork dir ${work} (logs in logs/)`)

  // The demo's first run migrates and seeds for minutes: beside the install.
  const demo = step("npm run demo ready", () => startDemo({ work, storefront }))
  demo.catch(() => {})
  await step("copy the storefront", () =>
    fs.cpSync(options.source, dir, {
      recursive: true,
      filter: (file) =>
        !["node_modules", ".next"].includes(path.basename(file)),
    })
  )
  await step("npm install (starter)", () =>
    mustRun("npm", ["install"], {
      cwd: dir,
      env,
      log: path.join(logs, "npm-install.log"),
      timeoutMs: 15 * MINUTE,
    })
  )
  const baseline = await step("tsc (pristine starter)", () =>
    typeCheck(dir, env, path.join(logs, "tsc-pristine.log"))
  )
  console.log(`tsc: the pristine starter has ${baseline.length} errors`)
  for (const e of baseline) console.log(`  ${e.line}`)

  let installed = null
  const installPlugin = () =>
    (installed ??= step("npm install <packed plugin>", async () => {
      const packed = await packFreshCopy()
      cleanups.push(packed.cleanup)
      console.log(
        `packed ${path.basename(packed.tarball)} (${packed.reused ? "the repository's current build" : "built afresh in a copy"})`
      )
      await mustRun("npm", ["install", packed.tarball], {
        cwd: dir,
        env,
        log: path.join(logs, "npm-install-plugin.log"),
        timeoutMs: 10 * MINUTE,
      })
      const pulled = SERVER_PACKAGES.filter((name) =>
        fs.existsSync(path.join(dir, "node_modules", name))
      )
      if (pulled.length)
        throw new Error(
          `the plugin pulled Medusa server packages into the storefront: ${pulled.join(", ")}`
        )
    }))

  const ready = await demo
  console.log(
    `demo: backend ${ready.backend}, sandbox ${ready.sandbox}, storefront ${storefront}`
  )
  const browser = await launchBrowser()
  const ctx = {
    options,
    dir,
    baseline,
    logs,
    env,
    storefront,
    storefrontPort,
    demo,
    browser,
    installPlugin,
  }
  const results = []
  for (const variant of options.variants)
    results.push(...(await checkVariant(variant, ctx)))
  const failed = printSummary(results)
  console.log(`total ${seconds(started)}`)
  return failed ? 1 : 0
}

async function cleanUp() {
  for (const child of live) await stopGroup(child)
  while (cleanups.length) {
    try {
      await cleanups.pop()()
    } catch (error) {
      console.error(`cleanup: ${error.message}`)
    }
  }
}

let stopping = false
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    if (stopping) return
    stopping = true
    console.error(
      `\n${signal}: stopping the demo, the storefront and the browser`
    )
    cleanUp().finally(() => process.exit(130))
  })
}

main()
  .catch((error) => {
    if (stopping) return 130
    console.error(`\ncheck-starter stopped: ${error.message}`)
    printTimings()
    return 1
  })
  .then(async (code) => {
    if (stopping) return
    stopping = true
    await cleanUp()
    process.exit(code)
  })
