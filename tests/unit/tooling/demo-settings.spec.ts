import { spawnSync } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"

/**
 * `npm run demo`'s settings (scripts/demo.js, README "Demo"): a variable it
 * cannot use stops it with one line naming the variable and the value,
 * before it starts anything (no database, no data folder, no port checked).
 */
const DEMO = path.resolve(__dirname, "..", "..", "..", "scripts", "demo.js")

function demoWith(env: Record<string, string>) {
  const dataDir = path.join(
    fs.mkdtempSync(path.join(os.tmpdir(), "demo-settings-")),
    "data"
  )
  const { NODE_OPTIONS: _omitted, ...inherited } = process.env
  const result = spawnSync(process.execPath, [DEMO], {
    env: { ...inherited, DEMO_DATA_DIR: dataDir, ...env },
    encoding: "utf8",
    timeout: 30_000,
  })
  const started = fs.existsSync(dataDir)
  fs.rmSync(path.dirname(dataDir), { recursive: true, force: true })
  return { ...result, started }
}

describe("the demo's settings", () => {
  it.each([
    [
      "DEMO_SANDBOX_LATENCY_MS",
      "fast",
      'DEMO_SANDBOX_LATENCY_MS must be a whole number of milliseconds up to 60000, got "fast"',
    ],
    [
      "DEMO_SANDBOX_LATENCY_MS",
      "-5",
      'DEMO_SANDBOX_LATENCY_MS must be a whole number of milliseconds up to 60000, got "-5"',
    ],
    [
      "DEMO_SANDBOX_LATENCY_JITTER_MS",
      "60001",
      'DEMO_SANDBOX_LATENCY_JITTER_MS must be a whole number of milliseconds up to 60000, got "60001"',
    ],
    [
      "DEMO_BACKEND_PORT",
      "70000",
      'DEMO_BACKEND_PORT must be a port number (1-65535), got "70000"',
    ],
  ])("stops on %s=%s, saying why, before it starts anything", (name, value, message) => {
    const result = demoWith({ [name]: value })
    expect(result.status).toBe(1)
    expect(result.stderr.trim()).toBe(message)
    expect(result.stdout).not.toContain("Checking ports")
    expect(result.started).toBe(false)
  })

  it("takes the largest latency it documents", () => {
    // 60000 passes the check, so the demo goes on to the setting read after
    // it (DEMO_DB_PORT); a port it cannot use stops it there, which proves
    // the latency was accepted.
    const result = demoWith({
      DEMO_SANDBOX_LATENCY_MS: "60000",
      DEMO_SANDBOX_LATENCY_JITTER_MS: "0",
      DEMO_DB_PORT: "0",
    })
    expect(result.status).toBe(1)
    expect(result.stderr.trim()).toBe(
      'DEMO_DB_PORT must be a port number (1-65535), got "0"'
    )
  })
})
