import { spawn } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { shellEnv } from "./process-tree"

const ROOT = path.resolve(__dirname, "../..")

/**
 * Folders the copy to pack leaves out: installed and built things and this
 * machine's state. The `files` list in package.json decides what of the rest
 * ends up in the tarball.
 */
const NOT_COPIED = new Set([
  "node_modules",
  ".medusa",
  ".git",
  ".demo-data",
  ".cache",
  "test-results",
  "coverage",
  ".next",
])

export type PackedFile = { path: string; size: number }

export type PackedPackage = {
  /** Whether the repository's own, fresh build was packed (packFreshCopy). */
  reused: boolean
  /** The copy of the repository that was packed (its node_modules is the repository's). */
  dir: string
  tarball: string
  files: PackedFile[]
  /** Bytes of the .tgz. */
  size: number
  /** Bytes of the files in it. */
  unpackedSize: number
  /** Removes the copy and the tarball. */
  cleanup: () => void
}

/**
 * Packs the package as a release would: `npm pack` in a copy of the
 * repository, whose `prepack` script (`medusa plugin:build`, the same as
 * `npm run build`) builds it afresh. A copy, because `medusa plugin:build`
 * empties .medusa/server, which tests running at the same time load the
 * sandbox from.
 *
 * Where the repository's own build is newer than everything it is built from
 * (CI runs `npm run build` before `npm test`), the copy takes that build and
 * packs it with --ignore-scripts: the same files, without a second build of
 * the plugin and its admin extensions (about a minute of CPU on 2 cores, in
 * the middle of the test run). `reused` says which.
 */
export async function packFreshCopy(): Promise<PackedPackage> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "card-service-pack-"))
  const dir = path.join(work, "medusa-payment-card-service")
  const reused = buildIsFresh()
  fs.cpSync(ROOT, dir, {
    recursive: true,
    filter: (source) => {
      const relative = path.relative(ROOT, source)
      const parts = relative.split(path.sep)
      if (reused && parts[0] === ".medusa") {
        // The build itself, not the dev server's state beside it.
        return parts.length === 1 || parts[1] === "server"
      }
      // Any folder of these names (a nested example app's node_modules too).
      return (
        !parts.some((part) => NOT_COPIED.has(part)) &&
        !relative.endsWith(".tgz")
      )
    },
  })
  fs.symlinkSync(
    fs.realpathSync(path.join(ROOT, "node_modules")),
    path.join(dir, "node_modules")
  )
  const cleanup = () => fs.rmSync(work, { recursive: true, force: true })
  try {
    const stdout = await run(
      "npm",
      ["pack", "--json", ...(reused ? ["--ignore-scripts"] : []), "--pack-destination", work],
      dir
    )
    // The prepack build may print first; the JSON answer is the last thing.
    const [result] = JSON.parse(stdout.slice(stdout.lastIndexOf("[\n  {")))
    return {
      reused,
      dir,
      tarball: path.join(work, result.filename),
      files: result.files.map((file: PackedFile) => ({
        path: file.path,
        size: file.size,
      })),
      size: result.size,
      unpackedSize: result.unpackedSize,
      cleanup,
    }
  } catch (error) {
    cleanup()
    throw error
  }
}

/**
 * The repository's .medusa/server is newer than every file it is built from:
 * src/, package.json, tsconfig.json and medusa-config.ts.
 */
export function buildIsFresh(root = ROOT): boolean {
  const built = path.join(root, ".medusa", "server")
  if (!fs.existsSync(path.join(built, "src"))) return false
  const sources = [
    newest(path.join(root, "src")),
    ...["package.json", "tsconfig.json", "medusa-config.ts"].map((file) => fs.statSync(path.join(root, file)).mtimeMs),
  ]
  return oldest(built) >= Math.max(...sources)
}

function newest(dir: string): number {
  return walkTimes(dir).reduce((latest, t) => Math.max(latest, t), 0)
}

function oldest(dir: string): number {
  return walkTimes(dir).reduce((first, t) => Math.min(first, t), Infinity)
}

function walkTimes(dir: string): number[] {
  const times: number[] = []
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) times.push(fs.statSync(path.join(entry.parentPath ?? entry.path, entry.name)).mtimeMs)
  }
  return times
}

function run(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: shellEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("error", reject)
    child.on("exit", (code) => {
      if (code === 0) resolve(stdout)
      else
        reject(
          new Error(
            `${command} ${args.join(" ")} failed (${code}):\n${stdout}\n${stderr}`
          )
        )
    })
  })
}
