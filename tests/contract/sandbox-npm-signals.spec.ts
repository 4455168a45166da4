import { ChildProcess, spawn } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { createInterface } from "node:readline"
import { exited, signalGroup } from "../helpers/demo-process"
import {
  commandLine,
  descendants,
  killAll,
  listening,
  shellEnv,
  waitUntilGone,
} from "../helpers/process-tree"

jest.setTimeout(60_000)

const ROOT = path.resolve(__dirname, "../..")

/**
 * A store's project with the package linked in, as `npm install <folder>` or
 * `npm link` leave it: node_modules/medusa-payment-card-service and the bin
 * in node_modules/.bin. npx and npm run find the bin there without asking
 * the registry.
 */
function storeProject(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "card-service-npx-"))
  fs.writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({
      name: "a-store",
      private: true,
      scripts: { sandbox: "card-service-sandbox" },
    })
  )
  fs.mkdirSync(path.join(dir, "node_modules", ".bin"), { recursive: true })
  fs.symlinkSync(
    ROOT,
    path.join(dir, "node_modules", "medusa-payment-card-service")
  )
  fs.symlinkSync(
    "../medusa-payment-card-service/bin/card-service-sandbox.js",
    path.join(dir, "node_modules", ".bin", "card-service-sandbox")
  )
  return dir
}

describe("the sandbox started through npm stops with it", () => {
  let project: string
  let child: ChildProcess | undefined
  let tree: number[] = []

  beforeAll(() => {
    project = storeProject()
  })

  afterEach(() => {
    if (child?.pid) killAll([child.pid, ...descendants(child.pid)])
    killAll(tree)
    child = undefined
    tree = []
  })

  afterAll(() => {
    fs.rmSync(project, { recursive: true, force: true })
  })

  /** Starts `command` in its own process group, as a shell runs a job; answers the sandbox's port. */
  async function start(command: string, args: string[]): Promise<number> {
    child = spawn(command, args, {
      cwd: project,
      env: shellEnv(),
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    })
    let stderr = ""
    child.stderr!.on("data", (chunk) => (stderr += chunk))
    const lines = createInterface({ input: child.stdout! })
    const line = await new Promise<string>((resolve, reject) => {
      lines.once("line", resolve)
      child!.once("exit", () =>
        reject(
          new Error(
            `${command} exited before the sandbox was ready:\n${stderr}`
          )
        )
      )
    })
    const { url } = JSON.parse(line)
    const port = Number(new URL(url).port)
    expect(await listening(port)).toBe(true)
    tree = descendants(child.pid!)
    // npm, the shell npm runs the bin in, and node running the bin.
    expect(tree.map(commandLine).join("\n")).toContain("card-service-sandbox")
    return port
  }

  async function expectAllGone(port: number) {
    await exited(child!, 10_000)
    const left = await waitUntilGone(tree, 5_000)
    expect(left.map(commandLine)).toEqual([])
    expect(await listening(port)).toBe(false)
  }

  it("SIGTERM to the pid of `npx card-service-sandbox`", async () => {
    // npm passes SIGTERM to the `sh -c` it runs the bin in, not to the bin.
    const port = await start("npx", [
      "--no",
      "--",
      "card-service-sandbox",
      "--port",
      "0",
    ])
    process.kill(child!.pid!, "SIGTERM")
    await expectAllGone(port)
  })

  it("SIGTERM to the pid of `npm run sandbox`", async () => {
    const port = await start("npm", [
      "run",
      "--silent",
      "sandbox",
      "--",
      "--port",
      "0",
    ])
    process.kill(child!.pid!, "SIGTERM")
    await expectAllGone(port)
  })

  it("Ctrl-C in the terminal running `npx card-service-sandbox`", async () => {
    // A terminal sends SIGINT to the whole foreground process group.
    const port = await start("npx", [
      "--no",
      "--",
      "card-service-sandbox",
      "--port",
      "0",
    ])
    signalGroup(child!.pid!, "SIGINT")
    await expectAllGone(port)
  })
})
