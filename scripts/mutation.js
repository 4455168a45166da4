#!/usr/bin/env node
// npm run test:mutation [-- <group> [<group>...]] [--force] [--ignore-static]
//
// One StrykerJS run per group of scripts/mutation-groups.js, each against the
// fast rings only (jest.mutation.config.js: unit + contract; a group may name
// its own specs, see mutation-groups.js). Incremental by
// default (reports/stryker-incremental-<group>.json keeps the last results, so
// only changed code and tests are re-run); --force re-runs every mutant.
// --ignore-static leaves out static mutants (code run when a module loads,
// e.g. its constant tables): each needs every related test file reloaded,
// which is most of a run's time; they are then counted as ignored, not scored.
// Prints, per group, the mutation score per module and every surviving mutant
// (file:line, mutator, replacement), read from Stryker's JSON report
// (reports/mutation/<group>.json, mutation-testing-report-schema).
// Concurrency 1 by default (a shared 2-core machine); STRYKER_CONCURRENCY
// overrides it. Not part of `npm test`.
const { spawnSync } = require("node:child_process")
const fs = require("node:fs")
const path = require("node:path")
const groups = require("./mutation-groups")

const root = path.resolve(__dirname, "..")
const reports = path.join(root, "reports")

function usage(message) {
  if (message) console.error(message)
  console.error(
    `usage: npm run test:mutation [-- [--force] [--ignore-static] <group>...]\ngroups: ${Object.keys(groups).join(", ")}`
  )
  process.exit(2)
}

function parseArgs(argv) {
  let force = false
  let ignoreStatic = false
  const chosen = []
  for (const arg of argv) {
    if (arg === "--force") force = true
    else if (arg === "--ignore-static") ignoreStatic = true
    else if (arg === "--help" || arg === "-h") usage()
    else if (arg.startsWith("-")) usage(`unknown option ${arg}`)
    else if (!(arg in groups)) usage(`unknown group ${arg}`)
    else if (!chosen.includes(arg)) chosen.push(arg)
  }
  return { force, ignoreStatic, chosen: chosen.length ? chosen : Object.keys(groups) }
}

function concurrency() {
  const raw = process.env.STRYKER_CONCURRENCY
  if (raw === undefined || raw === "") return 1
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 1) usage(`STRYKER_CONCURRENCY must be a positive integer, got "${raw}"`)
  return n
}

// Route folders are named "[session_id]": brackets are glob syntax for Stryker
// (minimatch; a backslash escape is turned into a path separator there).
const literalGlob = (file) => file.replace(/[[\]]/g, (c) => `[${c}]`)

function strykerConfig(group, { force, ignoreStatic }) {
  return {
    $schema: "../node_modules/@stryker-mutator/core/schema/stryker-schema.json",
    packageManager: "npm",
    testRunner: "jest",
    jest: {
      projectType: "custom",
      configFile: "jest.mutation.config.js",
      enableFindRelatedTests: true,
    },
    coverageAnalysis: groups[group].coverageAnalysis ?? "perTest",
    mutate: groups[group].mutate.map(literalGlob),
    concurrency: concurrency(),
    timeoutMS: groups[group].timeoutMS ?? 60000,
    reporters: ["clear-text", "progress", "json"],
    clearTextReporter: { allowColor: false, logTests: false, reportMutants: false, reportScoreTable: false },
    jsonReporter: { fileName: `reports/mutation/${group}.json` },
    incremental: true,
    incrementalFile: `reports/stryker-incremental-${group}.json`,
    force,
    tempDirName: ".stryker-tmp",
    cleanTempDir: true,
    ignorePatterns: ["reports", ".medusa", ".demo-data", "coverage", "storefront-example", "test-results"],
    ignoreStatic,
    thresholds: { high: 90, low: 80, break: null },
  }
}

const DETECTED = new Set(["Killed", "Timeout"])
const UNDETECTED = new Set(["Survived", "NoCoverage"])

function score(mutants) {
  const detected = mutants.filter((m) => DETECTED.has(m.status)).length
  const undetected = mutants.filter((m) => UNDETECTED.has(m.status)).length
  const valid = detected + undetected
  return {
    detected,
    undetected,
    ignored: mutants.filter((m) => m.status === "Ignored").length,
    errors: mutants.filter((m) => m.status === "CompileError" || m.status === "RuntimeError").length,
    score: valid === 0 ? null : (100 * detected) / valid,
  }
}

const pct = (s) => (s === null ? "n/a" : `${s.toFixed(1)}%`)
const oneLine = (text) => {
  const flat = String(text ?? "").replace(/\s+/g, " ").trim()
  return flat.length > 100 ? `${flat.slice(0, 97)}...` : flat
}

function summarize(group, seconds) {
  const file = path.join(reports, "mutation", `${group}.json`)
  if (!fs.existsSync(file)) {
    console.log(`\n[${group}] no JSON report at ${path.relative(root, file)}`)
    return null
  }
  const report = JSON.parse(fs.readFileSync(file, "utf8"))
  const rows = []
  const survivors = []
  const all = []
  for (const [name, entry] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b))) {
    const s = score(entry.mutants)
    rows.push([name, s])
    all.push(...entry.mutants)
    for (const m of entry.mutants) {
      if (UNDETECTED.has(m.status)) survivors.push({ name, ...m })
    }
  }
  const total = score(all)
  const width = Math.max(...rows.map(([n]) => n.length), 5)
  console.log(`\n=== mutation group "${group}" (${Math.round(seconds)} s) ===`)
  console.log(`${"module".padEnd(width)}  score   killed survived ignored errors`)
  for (const [name, s] of rows) {
    console.log(
      `${name.padEnd(width)}  ${pct(s.score).padStart(6)}  ${String(s.detected).padStart(6)} ${String(s.undetected).padStart(8)} ${String(s.ignored).padStart(7)} ${String(s.errors).padStart(6)}`
    )
  }
  console.log(
    `${"all".padEnd(width)}  ${pct(total.score).padStart(6)}  ${String(total.detected).padStart(6)} ${String(total.undetected).padStart(8)} ${String(total.ignored).padStart(7)} ${String(total.errors).padStart(6)}`
  )
  console.log(
    "(killed includes timeouts; survived includes mutants no test reached; errors: a spec crashed outside a test, e.g. while loading, which Stryker does not score)"
  )
  if (survivors.length === 0) console.log("surviving mutants: none")
  else {
    console.log(`surviving mutants (${survivors.length}):`)
    survivors.sort((a, b) => a.name.localeCompare(b.name) || a.location.start.line - b.location.start.line)
    for (const m of survivors) {
      const where = `${m.name}:${m.location.start.line}:${m.location.start.column}`
      const tag = m.status === "NoCoverage" ? " (no coverage)" : ""
      console.log(`  ${where}  ${m.mutatorName}${tag}  -> ${oneLine(m.replacement)}`)
    }
  }
  return total
}

function main() {
  const args = parseArgs(process.argv.slice(2))
  const { force, ignoreStatic, chosen } = args
  fs.mkdirSync(reports, { recursive: true })
  const cli = path.join(root, "node_modules", "@stryker-mutator", "core", "bin", "stryker.js")
  const results = []
  for (const group of chosen) {
    const configFile = path.join(reports, `stryker-${group}.config.json`)
    fs.writeFileSync(configFile, JSON.stringify(strykerConfig(group, args), null, 2))
    const started = Date.now()
    console.log(`\n>>> stryker: group "${group}" (${groups[group].mutate.length} modules)${force ? ", forced" : ""}${ignoreStatic ? ", static mutants ignored" : ""}`)
    const tests = groups[group].tests
    const env = { ...process.env }
    if (tests) env.MUTATION_TESTS = JSON.stringify(tests)
    else delete env.MUTATION_TESTS
    const run = spawnSync(process.execPath, [cli, "run", configFile], { cwd: root, stdio: "inherit", env })
    const seconds = (Date.now() - started) / 1000
    const total = summarize(group, seconds)
    results.push({ group, status: run.status, seconds, total })
  }
  console.log("\n=== summary ===")
  for (const r of results) {
    console.log(
      `${r.group.padEnd(12)} ${r.total ? pct(r.total.score) : "no report"}  ${Math.round(r.seconds)} s${r.status === 0 ? "" : `  (stryker exited ${r.status})`}`
    )
  }
  process.exit(results.every((r) => r.status === 0) ? 0 : 1)
}

main()
