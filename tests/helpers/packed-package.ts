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
 * repository without any earlier build, so its `prepack` script builds it
 * afresh. A copy, because `medusa plugin:build` empties .medusa/server, which
 * tests running at the same time load the sandbox from.
 */
export async function packFreshCopy(): Promise<PackedPackage> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "card-service-pack-"))
  const dir = path.join(work, "medusa-payment-card-service")
  fs.cpSync(ROOT, dir, {
    recursive: true,
    filter: (source) => {
      const relative = path.relative(ROOT, source)
      // Any folder of these names (a nested example app's node_modules too).
      return (
        !relative.split(path.sep).some((part) => NOT_COPIED.has(part)) &&
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
      ["pack", "--json", "--pack-destination", work],
      dir
    )
    // The prepack build may print first; the JSON answer is the last thing.
    const [result] = JSON.parse(stdout.slice(stdout.lastIndexOf("[\n  {")))
    return {
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
