import fs from "node:fs"
import net from "node:net"

/**
 * The processes a command left behind, read from /proc (Linux, where the
 * tests run). A wrapper such as npx runs the real program as a grandchild, so
 * the child's own exit says nothing about whether the program stopped.
 */

/** Every live descendant of `pid`, children before grandchildren. */
export function descendants(pid: number): number[] {
  const parents = new Map<number, number[]>()
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    const stat = readStat(Number(entry))
    if (!stat || stat.state === "Z") continue
    const siblings = parents.get(stat.ppid) ?? []
    siblings.push(Number(entry))
    parents.set(stat.ppid, siblings)
  }
  const found: number[] = []
  const queue = [pid]
  while (queue.length) {
    const children = parents.get(queue.shift()!) ?? []
    found.push(...children)
    queue.push(...children)
  }
  return found
}

/** Running, not a zombie left for a parent (or an init) that does not reap. */
export function running(pid: number): boolean {
  const stat = readStat(pid)
  return stat !== null && stat.state !== "Z"
}

/** Waits until none of `pids` runs; answers those still running after `timeoutMs`. */
export async function waitUntilGone(
  pids: number[],
  timeoutMs: number
): Promise<number[]> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const left = pids.filter(running)
    if (!left.length || Date.now() > deadline) return left
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** The command line of `pid`, for a failure message. */
export function commandLine(pid: number): string {
  try {
    return fs
      .readFileSync(`/proc/${pid}/cmdline`, "utf8")
      .split("\0")
      .join(" ")
      .trim()
  } catch {
    return "(gone)"
  }
}

export function killAll(pids: number[]) {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL")
    } catch {
      // Already gone.
    }
  }
}

/** Whether something accepts connections on 127.0.0.1:`port`. */
export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port })
    const done = (result: boolean) => {
      socket.destroy()
      resolve(result)
    }
    socket.setTimeout(1000, () => done(false))
    socket.once("connect", () => done(true))
    socket.once("error", () => done(false))
  })
}

function readStat(pid: number): { state: string; ppid: number } | null {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    // The command name (field 2) is in parentheses and may hold spaces.
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ")
    return { state: fields[0], ppid: Number(fields[1]) }
  } catch {
    return null
  }
}

/** The environment of a shell, not of the npm that runs jest. */
export function shellEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key)) env[key] = value
  }
  env.npm_config_update_notifier = "false"
  env.npm_config_fund = "false"
  env.npm_config_audit = "false"
  return env
}
