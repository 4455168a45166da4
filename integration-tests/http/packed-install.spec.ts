import axios from "axios"
import { ChildProcess, spawn } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { createInterface } from "node:readline"
import { Client } from "pg"
import { freePorts, signalGroup } from "../../tests/helpers/demo-process"
import {
  PackedPackage,
  packFreshCopy,
} from "../../tests/helpers/packed-package"
import {
  descendants,
  killAll,
  waitUntilGone,
} from "../../tests/helpers/process-tree"
import {
  logTail,
  PACKAGE,
  readmeMedusaConfig,
  runMedusa,
  STARTER_TSCONFIG,
  storeEnv,
  writeStoreDotEnv,
} from "../../scripts/lib/fresh-store"
import {
  CARD_SERVICE_PROVIDER_ID,
  type SeededStore,
} from "../helpers/seed-store"
import { storeApi } from "../helpers/store-api"

/**
 * The package as a store owner meets it: the packed tarball, installed into
 * a fresh Medusa 2.21.2 app with the README's medusa-config.ts, a .env that
 * leaves the live URL, the mode and the session secret empty, the
 * migrations, `medusa develop`, and a card-service payment session over the
 * store API.
 *
 * The app's @medusajs packages (and the plugin's dependencies) are links to
 * this repository's node_modules: installing Medusa from the registry takes
 * minutes, and `npm run test:compat` does it for each supported Medusa
 * version (scripts/compat.ts). The plugin itself is the
 * tarball, unpacked into node_modules/medusa-payment-card-service as npm
 * does, so only what the package ships is there to load.
 */
jest.setTimeout(15 * 60_000)

const ROOT = path.resolve(__dirname, "../..")

describe("the packed package installed into a fresh Medusa 2.21.2 store", () => {
  const timings: Record<string, number> = {}
  let pack: PackedPackage | undefined
  let app = ""
  let logs = ""
  let sandbox: ChildProcess | undefined
  let medusa: ChildProcess | undefined
  let medusaTree: number[] = []
  let backendUrl = ""
  let sandboxUrl = ""
  let database = ""
  let store: SeededStore

  async function timed<T>(label: string, step: () => Promise<T>): Promise<T> {
    const started = Date.now()
    try {
      return await step()
    } finally {
      timings[label] = Date.now() - started
    }
  }

  const tail = (name: string) => logTail(path.join(logs, name))
  const medusaCommand = (
    args: string[],
    name: string,
    extraEnv: NodeJS.ProcessEnv = {}
  ) => runMedusa(app, args, path.join(logs, name), extraEnv)

  beforeAll(async () => {
    const started = Date.now()
    // The repository's own build when it is current (CI builds first), else
    // the prepack build in a copy (tests/helpers/packed-package.ts).
    pack = await timed("npm pack", () => packFreshCopy())

    app = fs.mkdtempSync(path.join(os.tmpdir(), "card-service-store-"))
    // Outside the app: `medusa develop` restarts on every change in its folder.
    logs = fs.mkdtempSync(path.join(os.tmpdir(), "card-service-store-logs-"))
    const modules = path.join(app, "node_modules")
    fs.mkdirSync(path.join(modules, ".bin"), { recursive: true })

    // Everything but the plugin: links into the repository's node_modules.
    const shared = fs.realpathSync(path.join(ROOT, "node_modules"))
    for (const entry of fs.readdirSync(shared)) {
      if (entry.startsWith(".") || entry === PACKAGE) continue
      fs.symlinkSync(path.join(shared, entry), path.join(modules, entry))
    }
    // The plugin: the tarball unpacked as npm does (its "package/" folder).
    const installed = path.join(modules, PACKAGE)
    fs.mkdirSync(installed)
    await new Promise<void>((resolve, reject) => {
      const tar = spawn("tar", [
        "-xzf",
        pack!.tarball,
        "-C",
        installed,
        "--strip-components=1",
      ])
      tar.on("error", reject)
      tar.on("exit", (code) =>
        code === 0 ? resolve() : reject(new Error(`tar failed (${code})`))
      )
    })
    fs.symlinkSync(
      `../${PACKAGE}/bin/card-service-sandbox.js`,
      path.join(modules, ".bin", "card-service-sandbox")
    )
    expect(fs.existsSync(path.join(installed, "src"))).toBe(false)

    fs.writeFileSync(
      path.join(app, "package.json"),
      JSON.stringify(
        {
          name: "a-store",
          version: "0.0.1",
          private: true,
          dependencies: {
            "@medusajs/cli": "2.21.2",
            "@medusajs/framework": "2.21.2",
            "@medusajs/medusa": "2.21.2",
            [PACKAGE]: `file:${pack.tarball}`,
          },
        },
        null,
        2
      )
    )
    fs.writeFileSync(
      path.join(app, "tsconfig.json"),
      JSON.stringify(STARTER_TSCONFIG, null, 2)
    )
    fs.writeFileSync(path.join(app, "medusa-config.ts"), readmeMedusaConfig())
    // The seed goes through Medusa's workflows with the tests' own helper.
    fs.mkdirSync(path.join(app, "src", "scripts"), { recursive: true })
    fs.writeFileSync(
      path.join(app, "src", "scripts", "seed-store.ts"),
      [
        'import fs from "node:fs"',
        'import type { ExecArgs } from "@medusajs/framework/types"',
        `import { seedStore } from ${JSON.stringify(path.join(ROOT, "integration-tests", "helpers", "seed-store"))}`,
        "",
        "export default async function seed({ container }: ExecArgs) {",
        "  fs.writeFileSync(process.env.SEED_OUTPUT as string, JSON.stringify(await seedStore(container)))",
        "}",
        "",
      ].join("\n")
    )

    // The sandbox, started by the bin the tarball ships.
    sandbox = spawn(
      process.execPath,
      [path.join(modules, ".bin", "card-service-sandbox"), "--port", "0"],
      {
        cwd: app,
        env: storeEnv(),
        stdio: ["ignore", "pipe", "pipe"],
      }
    )
    let sandboxErrors = ""
    sandbox.stderr!.on("data", (chunk) => (sandboxErrors += chunk))
    const ready = await new Promise<any>((resolve, reject) => {
      createInterface({ input: sandbox!.stdout! }).once("line", (line) =>
        resolve(JSON.parse(line))
      )
      sandbox!.once("exit", () =>
        reject(new Error(`the sandbox exited:\n${sandboxErrors}`))
      )
    })
    sandboxUrl = ready.url

    database = `card_service_store_${Date.now()}`
    const admin = new Client({
      host: process.env.DB_HOST,
      port: Number(process.env.DB_PORT ?? 5432),
      user: process.env.DB_USERNAME,
      password: process.env.DB_PASSWORD,
      database: "postgres",
    })
    await admin.connect()
    await admin.query(`CREATE DATABASE ${database}`)
    await admin.end()

    const [port] = await freePorts(1)
    backendUrl = `http://localhost:${port}`
    const user = encodeURIComponent(process.env.DB_USERNAME ?? "postgres")
    const password = encodeURIComponent(process.env.DB_PASSWORD ?? "")
    writeStoreDotEnv(app, {
      databaseUrl: `postgres://${user}:${password}@${process.env.DB_HOST}:${process.env.DB_PORT}/${database}`,
      backendUrl,
      sandbox: { ...ready, url: sandboxUrl },
    })

    await timed("medusa db:migrate", () =>
      medusaCommand(["db:migrate"], "migrate.log", {
        CARD_SERVICE_LIVE_URL: "",
      })
    )
    const seedOutput = path.join(app, "seed.json")
    await timed("medusa exec seed", () =>
      medusaCommand(["exec", "./src/scripts/seed-store.ts"], "seed.log", {
        SEED_OUTPUT: seedOutput,
      })
    )
    store = JSON.parse(fs.readFileSync(seedOutput, "utf8"))

    await timed("medusa develop until /health", async () => {
      const out = fs.openSync(path.join(logs, "develop.log"), "a")
      medusa = spawn(
        process.execPath,
        [
          path.join(modules, "@medusajs", "cli", "cli.js"),
          "develop",
          "--port",
          String(port),
        ],
        {
          cwd: app,
          env: { ...storeEnv(), CARD_SERVICE_LIVE_URL: "" },
          detached: true,
          stdio: ["ignore", out, out],
        }
      )
      fs.closeSync(out)
      const deadline = Date.now() + 5 * 60_000
      for (;;) {
        if (medusa.exitCode !== null) {
          throw new Error(
            `medusa develop exited (${medusa.exitCode}):\n${tail("develop.log")}`
          )
        }
        const healthy = await fetch(`${backendUrl}/health`)
          .then((res) => res.ok)
          .catch(() => false)
        if (healthy) break
        if (Date.now() > deadline) {
          throw new Error(
            `medusa develop did not answer /health in 5 minutes:\n${tail("develop.log")}`
          )
        }
        await new Promise((resolve) => setTimeout(resolve, 500))
      }
      medusaTree = descendants(medusa.pid!)
    })
    timings["setup in all"] = Date.now() - started
  })

  afterAll(async () => {
    if (medusa?.pid) {
      const tree = [medusa.pid, ...descendants(medusa.pid), ...medusaTree]
      signalGroup(medusa.pid, "SIGTERM")
      killAll(await waitUntilGone(tree, 15_000))
    }
    if (sandbox && sandbox.exitCode === null) sandbox.kill("SIGTERM")
    console.log(
      `packed install timings (s; packed ${pack?.reused ? "the current build" : "a prepack build"}):\n` +
        Object.entries(timings)
          .map(([label, ms]) => `  ${label}: ${(ms / 1000).toFixed(1)}`)
          .join("\n")
    )
    pack?.cleanup()
    // KEEP_PACKED_STORE=1 keeps the store and its logs for a look afterwards.
    if (app && !process.env.KEEP_PACKED_STORE) {
      fs.rmSync(app, { recursive: true, force: true })
      fs.rmSync(logs, { recursive: true, force: true })
    } else if (app) console.log(`the store is kept: ${app} (logs in ${logs})`)
  })

  it("creates a card-service payment session whose data has a pay_url serving the payment page", async () => {
    const api = axios.create({ baseURL: backendUrl })
    const storefront = storeApi(api, store)
    const cart = await storefront.createCart()

    const collection = await storefront.startPaymentSession(
      cart.id,
      CARD_SERVICE_PROVIDER_ID
    )

    const [session] = collection.payment_sessions
    expect(session.provider_id).toBe(CARD_SERVICE_PROVIDER_ID)
    expect(session.data.pay_url).toBe(
      `${backendUrl}/card-service/pay/${session.id}`
    )

    // The plugin's routes came from the tarball too ("plugins" in the README's config).
    const page = await fetch(session.data.pay_url)
    expect(page.status).toBe(200)
    expect(page.headers.get("content-type")).toContain("text/html")
    expect(await page.text()).toContain(`${sandboxUrl}/order/start`)
  })

  it("registered the plugin's settings module from `plugins` and migrated its tables", async () => {
    // Medusa 2.21 registers the modules a plugin ships (.medusa/server/src/modules);
    // db:migrate above created their tables in the store's database.
    const client = new Client({
      host: process.env.DB_HOST,
      port: Number(process.env.DB_PORT ?? 5432),
      user: process.env.DB_USERNAME,
      password: process.env.DB_PASSWORD,
      database,
    })
    await client.connect()
    try {
      const { rows } = await client.query(
        `select table_name from information_schema.tables where table_name like 'card_service_settings%' order by table_name`
      )
      expect(rows.map((r) => r.table_name)).toEqual([
        "card_service_settings",
        "card_service_settings_change",
      ])
    } finally {
      await client.end()
    }
  })

  it("loaded the plugin from the tarball, not from this repository", async () => {
    // Resolved by Node from the store, as Medusa resolves medusa-config's "resolve".
    const resolved = await new Promise<string>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ["-p", `require.resolve("${PACKAGE}/providers/card-service")`],
        { cwd: app, env: storeEnv(), stdio: ["ignore", "pipe", "inherit"] }
      )
      let out = ""
      child.stdout!.on("data", (chunk) => (out += chunk))
      child.on("error", reject)
      child.on("exit", () => resolve(out.trim()))
    })
    expect(resolved).toBe(
      path.join(
        app,
        "node_modules",
        PACKAGE,
        ".medusa",
        "server",
        "src",
        "providers",
        "card-service",
        "index.js"
      )
    )
  })
})
