/**
 * A Medusa store as a store owner has it, made from files: Medusa's starter
 * tsconfig, the README's medusa-config.ts, a .env, and `medusa <command>`
 * run in it. Shared by the packed-install test (a store linked to this
 * repository's node_modules) and `npm run test:compat` (a store installed
 * from the registry on the Medusa version under test).
 */
import { spawn } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { shellEnv } from "../../tests/helpers/process-tree"

const ROOT = path.resolve(__dirname, "..", "..")
export const PACKAGE = "medusa-payment-card-service"

/** Medusa's starter tsconfig, as a store created with create-medusa-app has it. */
export const STARTER_TSCONFIG = {
  compilerOptions: {
    target: "ES2021",
    esModuleInterop: true,
    module: "Node16",
    moduleResolution: "Node16",
    emitDecoratorMetadata: true,
    experimentalDecorators: true,
    skipLibCheck: true,
    skipDefaultLibCheck: true,
    declaration: false,
    sourceMap: false,
    inlineSourceMap: true,
    outDir: "./.medusa/server",
    rootDir: "./",
    jsx: "react-jsx",
    baseUrl: ".",
    resolveJsonModule: true,
    checkJs: false,
    strictNullChecks: true,
  },
  "ts-node": { swc: true },
  include: ["**/*", ".medusa/types/*"],
  exclude: ["node_modules", ".medusa/server", ".medusa/admin", ".cache"],
}

/** The README's medusa-config.ts: the first ts block of its "Configure it" step. */
export function readmeMedusaConfig(): string {
  const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8")
  const step = readme.indexOf("### 2. Configure it")
  const match =
    step === -1 ? null : /```ts\n([\s\S]*?)\n```/.exec(readme.slice(step))
  const config = match?.[1]
  if (!config?.includes(`resolve: "${PACKAGE}/providers/card-service"`)) {
    throw new Error(
      `README.md has no medusa-config.ts registering ${PACKAGE}/providers/card-service under "### 2. Configure it"`
    )
  }
  return `${config}\n`
}

/** What a store is told by its .env only: nothing of the caller's own environment leaks in. */
const STORE_SETTINGS =
  /^(CARD_SERVICE_|MEDUSA_|DB_|DATABASE_URL$|STOREFRONT_URL$|PORT$|STORE_CORS$|ADMIN_CORS$|AUTH_CORS$|JWT_SECRET$|COOKIE_SECRET$|REDIS_URL$|NODE_ENV$|NODE_OPTIONS$)/

/** The environment of a shell in the store (shellEnv), less every setting the store takes from its .env. */
export function storeEnv(): NodeJS.ProcessEnv {
  const env = shellEnv()
  for (const key of Object.keys(env)) {
    if (STORE_SETTINGS.test(key)) delete env[key]
  }
  env.MEDUSA_DISABLE_TELEMETRY = "true"
  // The store's logs should say what happened when a step fails.
  env.LOG_LEVEL = "info"
  return env
}

export type StoreDotEnv = {
  databaseUrl: string
  backendUrl: string
  sandbox: {
    url: string
    clientCode: string
    clientSecret: string
    verifyId: string
    merchantId: string
  }
  /** More lines, NAME=value each. */
  extra?: string[]
}

/** The store's .env for the sandbox in test mode, as README step 3 has it. */
export function writeStoreDotEnv(app: string, settings: StoreDotEnv) {
  const { sandbox, backendUrl } = settings
  fs.writeFileSync(
    path.join(app, ".env"),
    [
      `DATABASE_URL=${settings.databaseUrl}`,
      "STORE_CORS=http://localhost:8000",
      `ADMIN_CORS=${backendUrl}`,
      `AUTH_CORS=${backendUrl},http://localhost:8000`,
      "JWT_SECRET=a-store-jwt-secret",
      "COOKIE_SECRET=a-store-cookie-secret",
      `CARD_SERVICE_CLIENT_CODE=${sandbox.clientCode}`,
      `CARD_SERVICE_CLIENT_SECRET=${sandbox.clientSecret}`,
      `CARD_SERVICE_VERIFY_ID=${sandbox.verifyId}`,
      `CARD_SERVICE_MERCHANT_ID=${sandbox.merchantId}`,
      // Left empty, as a store in test mode does: each means "not set".
      "CARD_SERVICE_MODE=",
      `CARD_SERVICE_TEST_URL=${sandbox.url}`,
      "CARD_SERVICE_LIVE_URL=",
      "CARD_SERVICE_SESSION_SECRET=",
      `MEDUSA_BACKEND_URL=${backendUrl}`,
      "STOREFRONT_URL=http://localhost:8000",
      ...(settings.extra ?? []),
      "",
    ].join("\n")
  )
}

/** The last `lines` lines of a log file, for an error message. */
export function logTail(file: string, lines = 40): string {
  try {
    return fs.readFileSync(file, "utf8").split("\n").slice(-lines).join("\n")
  } catch {
    return "(no log)"
  }
}

/**
 * `medusa <args>` in the store, to completion, with the store's own CLI;
 * its output is appended to `logFile`.
 */
export function runMedusa(
  app: string,
  args: string[],
  logFile: string,
  extraEnv: NodeJS.ProcessEnv = {}
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const out = fs.openSync(logFile, "a")
    const child = spawn(
      process.execPath,
      [path.join(app, "node_modules", "@medusajs", "cli", "cli.js"), ...args],
      {
        cwd: app,
        env: { ...storeEnv(), ...extraEnv },
        stdio: ["ignore", out, out],
      }
    )
    fs.closeSync(out)
    child.on("error", reject)
    child.on("exit", (code, signal) => {
      if (code === 0) resolve()
      else
        reject(
          new Error(
            `medusa ${args.join(" ")} failed (${code ?? signal}):\n${logTail(logFile)}`
          )
        )
    })
  })
}
