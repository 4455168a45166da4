/**
 * `npm run release:check`: a release rehearsal (issue 44). Packs the package
 * as `npm publish` would (`npm pack`, whose prepack script builds it), checks
 * the tarball (scripts/lib/release-check.ts: publint, @arethetypeswrong/cli
 * for every export, the size budget, the shipped docs' links, the CHANGELOG's
 * entry for the version), then runs `npm publish --dry-run` on it. Exits 1 on
 * any problem, naming each.
 *
 *   npm run release:check                       # build, pack, check, publish --dry-run
 *   npm run release:check -- --tarball <file>   # check a tarball packed already
 */
import { execFile } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { promisify } from "node:util"
import { checkPackedPackage } from "./lib/release-check"

const run = promisify(execFile)
const ROOT = path.resolve(__dirname, "..")

function say(line: string) {
  console.log(`[release:check] ${line}`)
}

async function pack(into: string): Promise<string> {
  say("npm pack (the prepack script builds the plugin first)")
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", into], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  })
  const [result] = JSON.parse(stdout.slice(stdout.lastIndexOf("[\n  {")))
  return path.join(into, result.filename)
}

async function main() {
  const args = process.argv.slice(2)
  const given = args.indexOf("--tarball")
  if (args.length > 0 && (given === -1 || !args[given + 1])) {
    console.error("usage: npm run release:check [-- --tarball <file.tgz>]")
    process.exit(2)
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "release-check-"))
  try {
    const tarball = given === -1 ? await pack(work) : path.resolve(args[given + 1])
    say(`checking ${tarball}`)
    const report = await checkPackedPackage(tarball, path.join(work, "unpacked"))
    say("npm publish --dry-run")
    try {
      await run("npm", ["publish", "--dry-run", tarball], { cwd: work, maxBuffer: 64 * 1024 * 1024 })
    } catch (error) {
      const { stderr } = error as { stderr?: string }
      report.problems.push(`npm publish --dry-run failed: ${(stderr ?? String(error)).trim().split("\n").slice(-3).join(" ")}`)
    }
    for (const note of report.notes) say(`note: ${note}`)
    for (const problem of report.problems) say(`PROBLEM: ${problem}`)
    const size = fs.statSync(tarball).size
    if (report.problems.length > 0) {
      say(`failed: ${report.problems.length} problem(s)`)
      process.exitCode = 1
    } else {
      say(`passed: ${path.basename(tarball)}, ${(size / 1000).toFixed(0)} kB packed`)
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
