// A redis-server of the caller's own on a free port (Debian's binary), so a
// benchmark or test never shares state with a Redis the machine runs for
// something else; REDIS_URL is the fallback where the binary is missing.
import { ChildProcess, spawn } from "node:child_process"
import fs from "node:fs"
import net from "node:net"

// eslint-disable-next-line @typescript-eslint/no-var-requires
const { freePort } = require("./embedded-db")

export const REDIS_BINARY = "/usr/bin/redis-server"

export type OwnRedis = {
  url: string
  /**
   * Stops the server (SIGTERM) and starts it again on the same port: empty,
   * or with what it held when it keeps an append-only file (`persistent`).
   */
  restart: () => Promise<void>
  stop: () => Promise<void>
}

/**
 * Starts a redis-server on a free 127.0.0.1 port; its output goes to
 * `logFile` when given. It keeps nothing on disk, unless `persistentDir`
 * names a directory for an append-only file, as a production Redis under
 * BullMQ (Medusa's workflow engine and scheduled jobs) keeps one: then a
 * restart comes back with its keys. Null when there is no REDIS_BINARY: the
 * caller falls back to REDIS_URL.
 */
export async function startOwnRedis({
  logFile,
  persistentDir,
}: { logFile?: string; persistentDir?: string } = {}): Promise<OwnRedis | null> {
  if (!fs.existsSync(REDIS_BINARY)) return null
  const port: number = await freePort()
  let child: ChildProcess | null = null
  const storage = persistentDir
    ? ["--save", "", "--appendonly", "yes", "--appendfsync", "everysec", "--dir", persistentDir]
    : ["--save", "", "--appendonly", "no"]
  const start = async () => {
    const out = logFile ? fs.openSync(logFile, "a") : "ignore"
    child = spawn(REDIS_BINARY, ["--port", String(port), "--bind", "127.0.0.1", ...storage], {
      stdio: ["ignore", out, "inherit"],
    })
    if (typeof out === "number") fs.closeSync(out)
    await waitForPort(port, 10_000)
  }
  const stopChild = async (signal: NodeJS.Signals) => {
    const running = child
    child = null
    if (!running || running.exitCode !== null) return
    await new Promise<void>((resolve) => {
      running.once("exit", () => resolve())
      running.kill(signal)
    })
  }
  await start()
  return {
    url: `redis://127.0.0.1:${port}`,
    restart: async () => {
      await stopChild("SIGTERM")
      await start()
    },
    stop: () => stopChild("SIGKILL"),
  }
}

function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const socket = net.connect({ host: "127.0.0.1", port })
      socket.once("connect", () => {
        socket.destroy()
        resolve()
      })
      socket.once("error", () => {
        socket.destroy()
        if (Date.now() > deadline) reject(new Error(`nothing listens on ${port}`))
        else setTimeout(attempt, 100)
      })
    }
    attempt()
  })
}
