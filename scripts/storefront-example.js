#!/usr/bin/env node
// storefront-example/: a Next.js 15 / React 19 storefront shaped like
// Medusa's starter, with its own package.json and lockfile (the repository
// root stays on React 18 for Medusa's admin). It gets this package the way a
// store owner does: `npm install` of the packed tarball, plain npm, no
// --legacy-peer-deps.
//
//   node scripts/storefront-example.js install   pack, npm ci, install the tarball, check the tree
//   node scripts/storefront-example.js build     next build (needs no backend)
//
// The browser test (integration-tests/http/storefront-example.spec.ts) calls
// the same functions and skips what is already up to date.
"use strict"

const { execFileSync, spawnSync } = require("node:child_process")
const crypto = require("node:crypto")
const fs = require("node:fs")
const path = require("node:path")

const ROOT = path.resolve(__dirname, "..")
const EXAMPLE = path.join(ROOT, "storefront-example")
const TARBALL = path.join(EXAMPLE, "vendor", "medusa-payment-card-service.tgz")
const PACKAGE = "medusa-payment-card-service"
const INSTALLED = path.join(EXAMPLE, "node_modules", PACKAGE)
const BUILT = path.join(ROOT, ".medusa", "server", "src", "storefront")
/** Packages that must never reach a storefront's tree. */
const SERVER_PACKAGES = [
  "@medusajs/medusa",
  "@medusajs/framework",
  "@medusajs/admin-sdk",
  "@medusajs/cli",
]

const env = {
  ...process.env,
  NEXT_TELEMETRY_DISABLED: "1",
  // When the lockfile lacks a platform's SWC binary, next build asks the
  // registry and rewrites the lockfile; a build must not change it.
  NEXT_IGNORE_INCORRECT_LOCKFILE: "1",
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, {
    cwd: EXAMPLE,
    env,
    stdio: options.quiet ? "pipe" : "inherit",
    encoding: "utf8",
  })
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} failed (exit ${result.status})` +
        (options.quiet ? `:\n${result.stdout}\n${result.stderr}` : "")
    )
  }
  return result.stdout
}

/** A hash of every file under `dir` (relative names and contents). */
function treeHash(dir) {
  const hash = crypto.createHash("sha256")
  const walk = (current) => {
    for (const entry of fs
      .readdirSync(current, { withFileTypes: true })
      .sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(current, entry.name)
      if (entry.isDirectory()) walk(full)
      else hash.update(path.relative(dir, full)).update(fs.readFileSync(full))
    }
  }
  if (!fs.existsSync(dir)) return null
  walk(dir)
  return hash.digest("hex")
}

/** Newest modification time of the files under `dir`. */
function newest(dir) {
  let latest = 0
  const walk = (current) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name)
      if (entry.isDirectory()) walk(full)
      else latest = Math.max(latest, fs.statSync(full).mtimeMs)
    }
  }
  walk(dir)
  return latest
}

function assertPluginBuilt() {
  const source = path.join(ROOT, "src", "storefront")
  if (!fs.existsSync(BUILT) || newest(BUILT) < newest(source)) {
    throw new Error(
      "The plugin's build is missing or older than src/storefront: run `npm run build` first."
    )
  }
}

/** The package the storefront has installed is the current build. */
function installedIsCurrent() {
  return (
    fs.existsSync(path.join(EXAMPLE, "node_modules", "next", "package.json")) &&
    treeHash(path.join(INSTALLED, ".medusa", "server", "src", "storefront")) ===
      treeHash(BUILT)
  )
}

/**
 * Packs the plugin, installs the storefront's own dependencies from its
 * lockfile, then the tarball with plain `npm install` (ERESOLVE would fail
 * it), and checks that no Medusa server package came along.
 */
function install({ force = false } = {}) {
  assertPluginBuilt()
  if (!force && installedIsCurrent()) return false
  fs.mkdirSync(path.dirname(TARBALL), { recursive: true })
  const packed = execFileSync(
    "npm",
    // The build is checked above: --ignore-scripts skips the prepack
    // rebuild, whose log lines would otherwise come before the JSON answer.
    [
      "pack",
      "--json",
      "--ignore-scripts",
      "--pack-destination",
      path.dirname(TARBALL),
    ],
    { cwd: ROOT, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }
  )
  const [{ filename }] = JSON.parse(packed)
  fs.renameSync(path.join(path.dirname(TARBALL), filename), TARBALL)
  if (
    !fs.existsSync(path.join(EXAMPLE, "node_modules", "next", "package.json"))
  ) {
    installFromLockfile()
  }
  // --no-save: the lockfile would pin the tarball's integrity, which changes
  // with every build (and npm ci would then install a stale copy from its cache).
  run("npm", [
    "install",
    "--no-audit",
    "--no-fund",
    "--no-save",
    `./vendor/${path.basename(TARBALL)}`,
  ])
  checkTree()
  return true
}

/**
 * npm ci, or, as .ci/run does for the root: when the registry cannot serve
 * other platforms' optional binaries (@next/swc-darwin-*, ...), the lockfile
 * holds no entries for them and npm ci refuses it ("Missing ... from lock
 * file"). npm install then installs the same tree, and the lockfile must come
 * out unchanged.
 */
function installFromLockfile() {
  const lockfile = path.join(EXAMPLE, "package-lock.json")
  const before = fs.readFileSync(lockfile, "utf8")
  try {
    run("npm", ["ci", "--no-audit", "--no-fund"], { quiet: true })
    return
  } catch (error) {
    if (!/from lock file/.test(error.message)) throw error
    console.log(
      "npm ci: the lockfile check tripped over unfetchable optional platform packages; installing with npm install"
    )
  }
  run("npm", ["install", "--no-audit", "--no-fund"])
  if (fs.readFileSync(lockfile, "utf8") !== before) {
    fs.writeFileSync(lockfile, before)
    throw new Error(
      "npm install changed storefront-example/package-lock.json: update and commit it"
    )
  }
}

/** Throws if a Medusa server package is anywhere in the storefront's tree. */
function checkTree() {
  const result = spawnSync("npm", ["ls", "--all", "--json"], {
    cwd: EXAMPLE,
    env,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  })
  const tree = JSON.parse(result.stdout)
  const found = new Set()
  const walk = (dependencies = {}) => {
    for (const [name, node] of Object.entries(dependencies)) {
      // An optional peer that is not installed is listed as "missing".
      if (SERVER_PACKAGES.includes(name) && node.version && !node.missing)
        found.add(name)
      walk(node.dependencies)
    }
  }
  walk(tree.dependencies)
  if (!tree.dependencies?.[PACKAGE]) {
    throw new Error(`${PACKAGE} is not installed in storefront-example`)
  }
  if (found.size) {
    throw new Error(
      `storefront-example pulled in Medusa server packages: ${[...found].join(", ")}`
    )
  }
}

/** next build, unless the build is newer than the sources and the installed package. */
function build({ force = false } = {}) {
  const buildId = path.join(EXAMPLE, ".next", "BUILD_ID")
  const inputs = Math.max(
    newest(path.join(EXAMPLE, "src")),
    newest(path.join(INSTALLED, ".medusa", "server", "src", "storefront")),
    ...[
      "package.json",
      "next.config.js",
      "tailwind.config.js",
      "tsconfig.json",
    ].map((file) => fs.statSync(path.join(EXAMPLE, file)).mtimeMs)
  )
  if (!force && fs.existsSync(buildId) && fs.statSync(buildId).mtimeMs > inputs)
    return false
  run("npx", ["next", "build"])
  return true
}

module.exports = { EXAMPLE, install, build, checkTree, env }

if (require.main === module) {
  const command = process.argv[2]
  const started = Date.now()
  try {
    if (command === "install") {
      install({ force: true })
      run("npm", ["run", "typecheck"])
    } else if (command === "build") {
      build({ force: true })
    } else {
      console.error("usage: node scripts/storefront-example.js install|build")
      process.exit(2)
    }
    console.log(
      `storefront-example ${command}: ${((Date.now() - started) / 1000).toFixed(1)} s`
    )
  } catch (error) {
    console.error(error.message)
    process.exit(1)
  }
}
