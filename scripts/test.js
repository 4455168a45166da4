#!/usr/bin/env node
// `npm test`: every ring of tests in one jest run (see jest.config.js), on a
// real PostgreSQL. Without DB settings (DB_HOST unset) it starts an embedded
// PostgreSQL from npm in a fresh temporary directory and removes it
// afterwards, also when tests fail or the run is interrupted. Extra arguments
// go to jest (`npm test -- --selectProjects unit`).
const { spawn } = require("node:child_process")
const fs = require("node:fs")
const os = require("node:os")
const path = require("node:path")
const { startEmbeddedPostgres } = require("./lib/embedded-db")

async function main() {
  let db = null
  let child = null
  let interrupted = false

  const shutdown = async (signal) => {
    interrupted = true
    if (child && child.exitCode === null) {
      child.kill(signal)
    }
  }
  process.on("SIGINT", () => shutdown("SIGINT"))
  process.on("SIGTERM", () => shutdown("SIGTERM"))

  const env = { ...process.env }
  if (!process.env.DB_HOST) {
    process.stdout.write("Starting an embedded PostgreSQL for the integration tests... ")
    const started = Date.now()
    db = await startEmbeddedPostgres()
    Object.assign(env, db.env)
    console.log(`ready on port ${db.port} in ${Date.now() - started} ms`)
  } else {
    console.log(`Using the PostgreSQL at ${process.env.DB_HOST}:${process.env.DB_PORT ?? 5432}`)
  }

  env.MEDUSA_DISABLE_TELEMETRY = "true"
  env.LOG_LEVEL = env.LOG_LEVEL ?? "error"
  // medusaIntegrationTestRunner needs ESM dynamic import inside jest's VM.
  env.NODE_OPTIONS = [env.NODE_OPTIONS, "--experimental-vm-modules"].filter(Boolean).join(" ")

  const resultFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "card-service-jest-")), "results.json")
  const extra = process.argv.slice(2)
  // Two test files at a time, unless told otherwise. Jest's default on a
  // 2-core machine is one, and most of a file's time is spent waiting (on
  // Medusa's boot, timers, a browser, child processes), so a second file fits
  // beside it: on this project's 2-core machines one worker took about twice
  // as long, three no less than two (README, "Tests").
  const workers = extra.some((arg) => /^(--maxWorkers|-w|--runInBand|-i)(=|$)/.test(arg))
    ? []
    : ["--maxWorkers=2"]
  const args = [
    require.resolve("jest/bin/jest"),
    // Medusa's Redis modules (event bus, workflow engine) keep ioredis and
    // BullMQ handles open after the app shuts down; without this the run
    // would never end once every test has finished.
    "--forceExit",
    "--json",
    `--outputFile=${resultFile}`,
    ...workers,
    ...extra,
  ]
  let code = 1
  try {
    code = await new Promise((resolve) => {
      child = spawn(process.execPath, args, { env, stdio: "inherit" })
      child.on("exit", (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)))
    })
  } finally {
    if (db) {
      process.stdout.write("Stopping the embedded PostgreSQL... ")
      await db.stop()
      console.log("done")
    }
  }

  if (fs.existsSync(resultFile)) {
    const results = JSON.parse(fs.readFileSync(resultFile, "utf8"))
    fs.rmSync(path.dirname(resultFile), { recursive: true, force: true })
    const skipped = results.numPendingTests + results.numTodoTests
    const failedSuites = results.numRuntimeErrorTestSuites
    console.log(
      `\ntests: ${results.numPassedTests} passed, ${results.numFailedTests} failed` +
        (skipped ? `, ${skipped} skipped` : "")
    )
    if (failedSuites) {
      console.log(`${failedSuites} test file(s) could not run: see the errors above`)
    }
    // The files that decide how long the run takes (npm test is held under
    // 15 minutes on a 2-core machine): the slowest ten, from jest's own times.
    const slowest = results.testResults
      .map((file) => ({
        file: path.relative(process.cwd(), file.name),
        seconds: (file.endTime - file.startTime) / 1000,
      }))
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, 10)
    // Only when every test passed: a failure's own lines are what the end of
    // a CI log is for.
    if (slowest.length > 1 && results.numFailedTests === 0 && !failedSuites) {
      console.log("slowest files:")
      for (const { file, seconds } of slowest) {
        console.log(`  ${seconds.toFixed(1).padStart(6)} s  ${file}`)
      }
    }
  }
  if (interrupted) code = code || 130
  process.exit(code)
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
