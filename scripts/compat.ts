/**
 * `npm run test:compat`: the packed plugin in a fresh store on each Medusa
 * version asked for, installed with plain `npm install`, migrated, booted,
 * and taken through a checkout with a 3DS challenge to an order, a capture,
 * a partial refund, a lost callback settled by the sweep, a voided capture,
 * a canceled order's reversal and the admin pages
 * (scripts/lib/compat-payments.ts). Prints a matrix and
 * a closing "compat: N passed, N failed" line; exits 1 when a version fails.
 *
 *   npm run test:compat                          oldest supported and newest 2.x
 *   npm run test:compat -- --medusa 2.20.1,2.21  these (a minor: its newest patch)
 *   npm run test:compat -- --all                 newest patch of every supported minor, and the newest 2.x
 *   --keep                                       keep the stores (/tmp/compat-*) for a look
 *
 * The versions come from the registry (`npm view @medusajs/medusa versions`)
 * and the peer range in package.json. The stores run one after the other:
 * each install is large and the machines have two cores.
 */
import { execFileSync } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { Client } from "pg"
import { startSandbox } from "../src/sandbox"
import { packFreshCopy } from "../tests/helpers/packed-package"
import {
  ADMIN,
  createCompatStore,
  StoreSetupError,
  type CompatStore,
} from "./lib/compat-store"
import { runPaymentSteps, STEPS, type StepOutcome } from "./lib/compat-payments"
import { chooseVersions, compatPlan } from "./lib/compat-versions"

const { startEmbeddedPostgres } = require("./lib/embedded-db")

const ROOT = path.resolve(__dirname, "..")
/** Stores being deleted; awaited before the run ends. */
const removals: Promise<void>[] = []
const SETUP_STEPS = ["npm install", "migrations", "seed", "boot"] as const
const COLUMNS = [...SETUP_STEPS, ...STEPS]

type Row = {
  version: string
  /** Per column: seconds when it passed, the error when it failed, absent when not reached. */
  cells: Record<string, { ok: boolean; seconds: number; error?: string }>
  minutes: number
  installed?: Record<string, string>
  logDir?: string
}

const USAGE = `Usage: npm run test:compat -- [--medusa <v>[,<v>...]] [--all] [--keep]
  --medusa  versions (2.20.1) or minors (2.20: the newest patch), comma-separated
  --all     the newest patch of every minor the peer range accepts, and the newest 2.x
  --keep    keep each store and its logs
Default: the oldest supported version and the newest 2.x on the registry.`

function parseArgs(argv: string[]) {
  const options: { medusa?: string; all: boolean; keep: boolean } = {
    all: false,
    keep: false,
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === "--all") options.all = true
    else if (arg === "--keep") options.keep = true
    else if (arg === "--medusa") options.medusa = argv[++i]
    else if (arg.startsWith("--medusa="))
      options.medusa = arg.slice("--medusa=".length)
    else if (arg === "--help" || arg === "-h") {
      console.log(USAGE)
      process.exit(0)
    } else {
      console.error(`unknown argument ${arg}\n${USAGE}`)
      process.exit(2)
    }
  }
  if (options.medusa !== undefined && options.all) {
    console.error(`--medusa and --all exclude each other\n${USAGE}`)
    process.exit(2)
  }
  return options
}

function registryVersions(): string[] {
  const out = execFileSync(
    "npm",
    ["view", "@medusajs/medusa", "versions", "--json"],
    { encoding: "utf8" }
  )
  return JSON.parse(out)
}

const started = Date.now()
const log = (line: string) =>
  console.log(
    `[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`
  )

async function main() {
  const options = parseArgs(process.argv.slice(2))
  const pkg = JSON.parse(
    fs.readFileSync(path.join(ROOT, "package.json"), "utf8")
  )
  const peerRange: string = pkg.peerDependencies["@medusajs/medusa"]
  const registry = registryVersions()
  const plan = compatPlan(registry, peerRange)
  const versions = chooseVersions(plan, registry, options)
  log(
    `peer range ${peerRange}; supported minors' newest patches: ${plan.supported.join(", ")}; newest 2.x: ${plan.newest}`
  )
  log(`stores to build: ${versions.join(", ")} (Node ${process.version})`)

  const pack = await packFreshCopy()
  log(
    `packed ${path.basename(pack.tarball)} (${pack.reused ? "the current build" : "a fresh prepack build"})`
  )
  const db = await startEmbeddedPostgres()
  const rows: Row[] = []
  try {
    for (const version of versions) {
      rows.push(await runVersion(version, pack.tarball, db, options.keep))
    }
  } finally {
    await db.stop()
    pack.cleanup()
    // Each store's folder (most of a gigabyte) goes while the next store installs.
    await Promise.all(removals)
  }
  printMatrix(rows)
  const failed = rows.filter((row) => !passed(row)).length
  console.log(`\ncompat: ${rows.length - failed} passed, ${failed} failed`)
  process.exit(failed ? 1 : 0)
}

function passed(row: Row): boolean {
  return COLUMNS.every((column) => row.cells[column]?.ok)
}

async function runVersion(
  version: string,
  tarball: string,
  db: any,
  keep: boolean
): Promise<Row> {
  const begun = Date.now()
  const row: Row = { version, cells: {}, minutes: 0 }
  const database = `compat_${version.replace(/\W/g, "_")}`
  await db.createDatabase(database)
  const sandbox = await startSandbox({ port: 0 })
  const pg = new Client({ connectionString: db.databaseUrl(database) })
  let store: CompatStore | undefined
  let dir: string | undefined
  try {
    store = await createCompatStore({
      version,
      tarball,
      databaseUrl: db.databaseUrl(database),
      sandbox,
      log,
    })
    dir = store.dir
    row.installed = store.installed
    row.logDir = store.logDir
    for (const step of SETUP_STEPS)
      row.cells[step] = { ok: true, seconds: store.timings[step] }
    log(`${version}: installed ${JSON.stringify(store.installed)}`)
    await pg.connect()
    const outcomes: StepOutcome[] = await runPaymentSteps({
      store: {
        proxyUrl: store.backendUrl,
        seed: store.seed,
        query: async (sql, params) => (await pg.query(sql, params)).rows,
      },
      admin: {
        backend: store.backendUrl,
        admin: `${store.backendUrl}/app`,
        adminEmail: ADMIN.email,
        adminPassword: ADMIN.password,
      },
      sandbox,
      log,
    })
    for (const outcome of outcomes) row.cells[outcome.step] = outcome
  } catch (error) {
    const failure = error as Error & {
      logDir?: string
      dir?: string
      timings?: Record<string, number>
    }
    dir = failure.dir ?? dir
    row.logDir = failure.logDir ?? row.logDir
    for (const [step, seconds] of Object.entries(failure.timings ?? {}))
      row.cells[step] = { ok: true, seconds }
    const step = error instanceof StoreSetupError ? error.step : "3DS order"
    row.cells[step] = {
      ok: false,
      seconds: failure.timings?.[step] ?? 0,
      error: failure.message,
    }
  } finally {
    const stopping = Date.now()
    await store?.stop()
    await pg.end().catch(() => {})
    await sandbox.close()
    log(
      `${version}: stopped in ${((Date.now() - stopping) / 1000).toFixed(0)} s`
    )
    if (dir && !keep) {
      removals.push(fs.promises.rm(dir, { recursive: true, force: true }))
    }
  }
  row.minutes = (Date.now() - begun) / 60_000
  for (const [step, cell] of Object.entries(row.cells)) {
    if (!cell.ok) log(`${version}: ${step} FAILED: ${cell.error}`)
  }
  log(
    `${version}: ${passed(row) ? "passed" : "FAILED"} in ${row.minutes.toFixed(1)} min (${COLUMNS.map((c) => `${c} ${row.cells[c] ? (row.cells[c].ok ? "ok" : "FAIL") : "-"}`).join(", ")})`
  )
  if (passed(row) && row.logDir && !keep)
    fs.rmSync(row.logDir, { recursive: true, force: true })
  else if (row.logDir)
    log(
      `${version}: logs kept in ${row.logDir}${keep && dir ? `, the store in ${dir}` : ""}`
    )
  return row
}

function printMatrix(rows: Row[]) {
  const header = ["Medusa", ...COLUMNS, "min", "undici", "zod"]
  const table = rows.map((row) => [
    row.version,
    ...COLUMNS.map((column) => {
      const cell = row.cells[column]
      if (!cell) return "-"
      return cell.ok ? `ok ${cell.seconds.toFixed(0)}s` : "FAIL"
    }),
    row.minutes.toFixed(1),
    row.installed?.undici ?? "-",
    row.installed?.zod ?? "-",
  ])
  const widths = header.map((title, i) =>
    Math.max(title.length, ...table.map((line) => line[i].length))
  )
  const format = (cells: string[]) =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(" | ")} |`
  console.log(
    `\nMedusa compatibility, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}:`
  )
  console.log(format(header))
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`)
  for (const line of table) console.log(format(line))
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
