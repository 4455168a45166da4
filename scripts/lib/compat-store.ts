/**
 * One fresh store for `npm run test:compat` (scripts/compat.ts): a folder
 * with the package.json a store on the given Medusa version has, the
 * README's medusa-config.ts and a .env for the sandbox, the packed plugin
 * installed with plain `npm install` (no --legacy-peer-deps: a peer range
 * npm refuses fails here as it fails for a store owner), the migrations,
 * the demo's seed and `medusa develop`.
 */
import { spawn } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import type { CardServiceSandbox } from "../../src/sandbox"
import {
  logTail,
  PACKAGE,
  readmeMedusaConfig,
  runMedusa,
  STARTER_TSCONFIG,
  storeEnv,
  writeStoreDotEnv,
} from "./fresh-store"
import type { DemoSeed } from "./demo-seed"

// The launcher's helpers are plain JavaScript shared with scripts/demo.js.
const { freePort } = require("./embedded-db")
const { spawnNode, stopGroup, waitForHttp } = require("./demo-processes")

export const ADMIN = { email: "admin@example.com", password: "supersecret" }

export type CompatStore = {
  version: string
  dir: string
  logDir: string
  backendUrl: string
  seed: DemoSeed
  /** Seconds per setup step. */
  timings: Record<string, number>
  /** What `npm ls` says was installed: the Medusa packages and the plugin's own dependencies. */
  installed: Record<string, string>
  stop: () => Promise<void>
}

export type StoreStep = "npm install" | "migrations" | "seed" | "boot"

/** A failed setup step, named for the matrix. */
export class StoreSetupError extends Error {
  constructor(
    readonly step: StoreStep,
    message: string
  ) {
    super(message)
  }
}

/**
 * The store's package.json: what create-medusa-app writes for the version
 * (Medusa's four packages at one version, the TypeScript tooling that
 * `medusa develop` and `medusa exec` load .ts files with), and the plugin.
 */
export function storePackageJson(version: string, tarball: string) {
  return {
    name: `compat-store-${version.replace(/\./g, "-")}`,
    version: "0.0.1",
    private: true,
    dependencies: {
      "@medusajs/admin-sdk": version,
      "@medusajs/cli": version,
      "@medusajs/framework": version,
      "@medusajs/medusa": version,
      [PACKAGE]: `file:${tarball}`,
    },
    devDependencies: {
      "@swc/core": "^1.7.28",
      "@types/node": "^20.0.0",
      "ts-node": "^10.9.2",
      typescript: "^5.6.2",
    },
  }
}

export async function createCompatStore({
  version,
  tarball,
  databaseUrl,
  sandbox,
  log,
}: {
  version: string
  tarball: string
  databaseUrl: string
  sandbox: CardServiceSandbox
  log: (line: string) => void
}): Promise<CompatStore> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `compat-${version}-`))
  // Outside the store: `medusa develop` restarts on every change in its folder.
  const logDir = fs.mkdtempSync(
    path.join(os.tmpdir(), `compat-${version}-logs-`)
  )
  const timings: Record<string, number> = {}
  let medusa: any = null
  const stop = async () => {
    if (medusa) await stopGroup(medusa, { graceMs: 10_000 })
    medusa = null
  }
  const timed = async <T>(
    step: StoreStep,
    run: () => Promise<T>
  ): Promise<T> => {
    const started = Date.now()
    log(`${version}: ${step}`)
    try {
      return await run()
    } catch (error) {
      throw error instanceof StoreSetupError
        ? error
        : new StoreSetupError(step, (error as Error).message)
    } finally {
      timings[step] = (Date.now() - started) / 1000
    }
  }

  try {
    fs.writeFileSync(
      path.join(dir, "package.json"),
      JSON.stringify(storePackageJson(version, tarball), null, 2)
    )
    fs.writeFileSync(
      path.join(dir, "tsconfig.json"),
      JSON.stringify(STARTER_TSCONFIG, null, 2)
    )
    fs.writeFileSync(path.join(dir, "medusa-config.ts"), readmeMedusaConfig())
    // The demo's seed, run by the store's own Medusa: a region paying with
    // the card service, a product in stock, shipping, a publishable key and
    // an admin login.
    const scripts = path.join(dir, "src", "scripts")
    fs.mkdirSync(scripts, { recursive: true })
    for (const file of ["demo-seed.ts", "seed-shipping.ts"]) {
      fs.copyFileSync(path.join(__dirname, file), path.join(scripts, file))
    }
    const port = await freePort()
    const backendUrl = `http://localhost:${port}`
    writeStoreDotEnv(dir, {
      databaseUrl,
      backendUrl,
      sandbox: { url: sandbox.url, ...sandbox.credentials },
    })

    await timed("npm install", () =>
      npmInstall(dir, path.join(logDir, "npm-install.log"))
    )
    const installed = await installedVersions(dir)
    await timed("migrations", () =>
      runMedusa(dir, ["db:migrate"], path.join(logDir, "migrate.log"))
    )
    const seedFile = path.join(logDir, "seed.json")
    await timed("seed", () =>
      runMedusa(
        dir,
        ["exec", "./src/scripts/demo-seed.ts"],
        path.join(logDir, "seed.log"),
        {
          DEMO_SEED_OUTPUT: seedFile,
          DEMO_ADMIN_EMAIL: ADMIN.email,
          DEMO_ADMIN_PASSWORD: ADMIN.password,
        }
      )
    )
    const seed: DemoSeed = JSON.parse(fs.readFileSync(seedFile, "utf8"))

    await timed("boot", async () => {
      const logFile = path.join(logDir, "develop.log")
      medusa = spawnNode(
        [
          path.join(dir, "node_modules", "@medusajs", "cli", "cli.js"),
          "develop",
          "--port",
          String(port),
        ],
        {
          env: storeEnv(),
          logFile,
          cwd: dir,
        }
      )
      try {
        await waitForHttp(`${backendUrl}/health`, {
          child: medusa,
          timeoutMs: 300_000,
        })
      } catch (error) {
        throw new Error(`${(error as Error).message}\n${logTail(logFile)}`)
      }
    })
    return { version, dir, logDir, backendUrl, seed, timings, installed, stop }
  } catch (error) {
    await stop()
    throw Object.assign(error as Error, { logDir, dir, timings })
  }
}

/**
 * Errors that say the registry answered badly, not that the store cannot
 * install: a version the registry lists but served a stale document without
 * (ETARGET, seen in CI on 2026-11-26 for a version published weeks before), a
 * dropped or timed-out connection, a 5xx.
 */
const REGISTRY_HICCUP = /\b(ETARGET|ECONNRESET|ETIMEDOUT|EAI_AGAIN|ECONNREFUSED|E50[0-4])\b/

/**
 * Plain `npm install` in the store, as its owner runs it. A registry hiccup is
 * retried once with `--prefer-online`, which makes npm revalidate every cached
 * package document; a refusal (ERESOLVE) or a second failure is reported.
 */
async function npmInstall(dir: string, logFile: string): Promise<void> {
  const first = await runNpmInstall(dir, logFile, [])
  if (first === 0) return
  const text = fs.readFileSync(logFile, "utf8")
  if (REGISTRY_HICCUP.test(text) && !/ERESOLVE/.test(text)) {
    fs.appendFileSync(logFile, "\n--- registry hiccup: once more with --prefer-online ---\n")
    await new Promise((resolve) => setTimeout(resolve, 5_000))
    const second = await runNpmInstall(dir, logFile, ["--prefer-online"])
    if (second === 0) return
    throw installFailure(second, logFile, "after one retry")
  }
  throw installFailure(first, logFile)
}

function runNpmInstall(dir: string, logFile: string, extra: string[]): Promise<number | string> {
  return new Promise((resolve, reject) => {
    const out = fs.openSync(logFile, "a")
    const child = spawn("npm", ["install", "--no-audit", "--no-fund", ...extra], {
      cwd: dir,
      env: storeEnv(),
      stdio: ["ignore", out, out],
    })
    fs.closeSync(out)
    child.on("error", reject)
    child.on("exit", (code, signal) => resolve(code ?? signal ?? "unknown"))
  })
}

function installFailure(code: number | string, logFile: string, when?: string): Error {
  const eresolve = /ERESOLVE/.test(fs.readFileSync(logFile, "utf8"))
  return new Error(
    `npm install failed (${code})${when ? ` ${when}` : ""}${eresolve ? ": ERESOLVE, the peer range refuses this Medusa" : ""}:\n${logTail(logFile, 25)}`
  )
}

/** The versions npm installed of the packages that decide compatibility. */
async function installedVersions(dir: string): Promise<Record<string, string>> {
  const plugin = path.join(dir, "node_modules", PACKAGE)
  return {
    "@medusajs/medusa": versionSeenFrom(dir, "@medusajs/medusa"),
    "@medusajs/framework": versionSeenFrom(dir, "@medusajs/framework"),
    "@medusajs/admin-sdk": versionSeenFrom(dir, "@medusajs/admin-sdk"),
    // As the plugin resolves them: a copy of its own, or the store's.
    undici: versionSeenFrom(plugin, "undici"),
    zod: versionSeenFrom(plugin, "zod"),
  }
}

/** The version of `name` that Node's lookup from `from` finds (node_modules upwards). */
function versionSeenFrom(from: string, name: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const file = path.join(dir, "node_modules", name, "package.json")
    if (fs.existsSync(file))
      return JSON.parse(fs.readFileSync(file, "utf8")).version
    if (path.dirname(dir) === dir) return "missing"
  }
}
