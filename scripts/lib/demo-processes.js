// Process and port helpers for the demo launcher (scripts/demo.js).
"use strict"

const { spawn } = require("node:child_process")
const fs = require("node:fs")
const net = require("node:net")
const path = require("node:path")

const PARENT_WATCH = path.join(__dirname, "demo-parent-watch.js")

/** An error whose message is meant for the person running the demo, shown without a stack. */
class DemoError extends Error {}

/**
 * Throws a DemoError when `port` is taken: something answers on localhost,
 * or it cannot be bound on all interfaces (which is how Medusa listens).
 */
async function assertPortFree(port, { label, envName }) {
  const answering =
    (await canConnect("127.0.0.1", port)) || (await canConnect("::1", port))
  const bindError = answering ? null : await bindError_(port)
  if (!answering && !bindError) return
  if (bindError && bindError.code !== "EADDRINUSE") {
    throw new DemoError(
      `Cannot listen on port ${port} (${label}): ${bindError.code}. ` +
        `Choose another port: ${envName}=<port> npm run demo`
    )
  }
  throw new DemoError(
    `Port ${port} (${label}) is already in use. Stop what is using it ` +
      `(\`lsof -i :${port}\` or \`ss -ltnp 'sport = :${port}'\` shows it; ` +
      `is another \`npm run demo\` still running?), or choose another port: ` +
      `${envName}=<port> npm run demo`
  )
}

function canConnect(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port })
    const done = (result) => {
      socket.destroy()
      resolve(result)
    }
    socket.setTimeout(500, () => done(false))
    socket.once("connect", () => done(true))
    socket.once("error", () => done(false))
  })
}

function bindError_(port) {
  return new Promise((resolve) => {
    const server = net.createServer()
    server.once("error", (error) => resolve(error))
    server.listen(port, () => server.close(() => resolve(null)))
  })
}

/**
 * Starts `node <args>` in its own process group with output appended to
 * `logFile`. Its own group: a Ctrl-C in the terminal reaches only the
 * launcher, which then stops everything in order (Medusa before its
 * database). The preloaded parent watch stops the child if the launcher dies.
 */
function spawnNode(args, { env, logFile, cwd }) {
  const fd = fs.openSync(logFile, "a")
  const child = spawn(process.execPath, ["--require", PARENT_WATCH, ...args], {
    cwd,
    env,
    detached: true,
    stdio: ["ignore", fd, fd],
  })
  fs.closeSync(fd)
  child.exited = new Promise((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }))
  })
  return child
}

function groupAlive(pid) {
  try {
    process.kill(-pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * Stops a child started by spawnNode and everything in its process group
 * (Medusa's admin dev server starts esbuild): `signal` first, SIGKILL after
 * `graceMs`.
 */
async function stopGroup(child, { signal = "SIGTERM", graceMs = 15_000 } = {}) {
  if (!child || !child.pid) return
  const send = (sig) => {
    try {
      process.kill(-child.pid, sig)
    } catch {
      // The group is already gone.
    }
  }
  if (child.exitCode === null && child.signalCode === null) {
    send(signal)
    const timer = new Promise((resolve) => setTimeout(resolve, graceMs).unref())
    await Promise.race([child.exited, timer])
  }
  // Leftovers (or a leader that ignored the signal): no mercy.
  if (groupAlive(child.pid)) {
    send("SIGKILL")
    for (let i = 0; i < 20 && groupAlive(child.pid); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
}

/** Resolves when `url` answers 2xx; rejects when `child` exits first or after `timeoutMs`. */
async function waitForHttp(url, { child, timeoutMs, headers } = {}) {
  const deadline = Date.now() + timeoutMs
  let exited = null
  child?.exited.then((result) => (exited = result))
  for (;;) {
    if (exited) {
      throw new DemoError(
        `the process stopped (${describeExit(exited)}) before ${url} answered`
      )
    }
    try {
      const response = await fetch(url, {
        headers,
        signal: AbortSignal.timeout(10_000),
      })
      await response.arrayBuffer()
      if (response.ok) return response
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      throw new DemoError(
        `${url} did not answer within ${Math.round(timeoutMs / 1000)} s`
      )
    }
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
}

function describeExit({ code, signal }) {
  return signal ? `signal ${signal}` : `exit code ${code}`
}

/** The last `lines` lines of a log file, for an error message. */
function tail(file, lines = 30) {
  try {
    const text = fs.readFileSync(file, "utf8")
    return text
      .split("\n")
      .slice(-lines - 1)
      .join("\n")
  } catch {
    return "(no log)"
  }
}

module.exports = {
  DemoError,
  assertPortFree,
  spawnNode,
  stopGroup,
  waitForHttp,
  describeExit,
  tail,
}
