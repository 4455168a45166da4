import { ChildProcess } from "node:child_process"
import net from "node:net"

/** The JSON line `npm run demo` prints when it is ready. */
export type Ready = {
  storefront: string
  backend: string
  admin: string
  sandbox: string
  adminEmail: string
  adminPassword: string
  publishableKey: string
  regionId: string
  /** false with DEMO_STOREFRONT_URL: shoppers return to that storefront. */
  storefrontStarted: boolean
  testCards: { approved: string; challenge: string; declined: string }
}

/** Resolves with the demo's JSON line, or fails with its output so far. */
export function readyLine(
  child: ChildProcess,
  output: () => string,
  timeoutMs: number
): Promise<Ready> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () =>
        finish(
          new Error(`no JSON line within ${timeoutMs / 1000} s:\n${output()}`)
        ),
      timeoutMs
    )
    const onExit = () =>
      finish(new Error(`npm run demo exited before it was ready:\n${output()}`))
    const onData = () => {
      const line = output()
        .split("\n")
        .find((l) => l.startsWith("{") && l.endsWith("}"))
      if (line) finish(null, JSON.parse(line))
    }
    function finish(error: Error | null, ready?: Ready) {
      clearTimeout(timer)
      child.off("exit", onExit)
      child.stdout!.off("data", onData)
      if (error) reject(error)
      else resolve(ready!)
    }
    child.on("exit", onExit)
    child.stdout!.on("data", onData)
  })
}

/** Sends a signal to the demo's whole process group, as a terminal's Ctrl-C does. */
export function signalGroup(pid: number, signal: NodeJS.Signals) {
  try {
    process.kill(-pid, signal)
  } catch {
    // Already gone.
  }
}

export function exited(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve()
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error("did not exit in time")),
      timeoutMs
    )
    child.once("exit", () => {
      clearTimeout(timer)
      resolve()
    })
  })
}

export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: count }, () => {
      const server = net.createServer()
      return new Promise<net.Server>((resolve) =>
        server.listen(0, () => resolve(server))
      )
    })
  )
  const ports = servers.map(
    (server) => (server.address() as net.AddressInfo).port
  )
  await Promise.all(
    servers.map((server) => new Promise((resolve) => server.close(resolve)))
  )
  return ports
}
