import { spawn } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { PackedPackage, packFreshCopy } from "../helpers/packed-package"
import { checkChangelog, deadLinks, type Manifest } from "../../scripts/lib/release-check"

// `npm run release:check` (issue 44) on the package as `npm pack` makes it,
// and on copies broken the ways a release breaks: it must pass the first and
// name what is wrong with the others.
jest.setTimeout(240_000)

const ROOT = path.resolve(__dirname, "../..")

function releaseCheck(tarball: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(ROOT, "node_modules/.bin/ts-node"), "--swc", "scripts/release-check.ts", "--tarball", tarball],
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] }
    )
    let output = ""
    child.stdout.on("data", (chunk) => (output += chunk))
    child.stderr.on("data", (chunk) => (output += chunk))
    child.on("error", reject)
    child.on("exit", (code) => resolve({ code, output }))
  })
}

function repack(dir: string, into: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", into], {
      cwd: dir,
      stdio: ["ignore", "pipe", "inherit"],
    })
    let out = ""
    child.stdout.on("data", (chunk) => (out += chunk))
    child.on("error", reject)
    child.on("exit", (code) =>
      code === 0 ? resolve(path.join(into, JSON.parse(out)[0].filename)) : reject(new Error(`npm pack exited ${code}`))
    )
  })
}

describe("npm run release:check", () => {
  let pack: PackedPackage
  let manifest: string

  beforeAll(async () => {
    pack = await packFreshCopy()
    manifest = fs.readFileSync(path.join(pack.dir, "package.json"), "utf8")
  })
  afterAll(() => pack?.cleanup())
  afterEach(() => fs.writeFileSync(path.join(pack.dir, "package.json"), manifest))

  it("passes the package as npm pack makes it", async () => {
    const { code, output } = await releaseCheck(pack.tarball)
    expect(output).not.toContain("PROBLEM")
    expect(output).toContain("[release:check] passed")
    expect(code).toBe(0)
  })

  it("fails a package whose export points at a file it does not hold, or whose types a resolver cannot find, naming each", async () => {
    const broken = JSON.parse(manifest)
    broken.exports["./client"] = "./.medusa/server/src/lib/not-there.js"
    // The starter's moduleResolution "node" reads typesVersions, not exports.
    delete broken.typesVersions["*"].storefront
    fs.writeFileSync(path.join(pack.dir, "package.json"), JSON.stringify(broken, null, 2))
    const out = fs.mkdtempSync(path.join(os.tmpdir(), "release-broken-"))
    try {
      const { code, output } = await releaseCheck(await repack(pack.dir, out))
      expect(code).toBe(1)
      expect(output).toMatch(/PROBLEM: publint error FILE_DOES_NOT_EXIST: .*\.\/client/)
      expect(output).toMatch(/PROBLEM: attw no-resolution: \.\/client under node16-cjs/)
      expect(output).toContain("PROBLEM: attw no-resolution: ./storefront under node10")
      expect(output).not.toMatch(/PROBLEM: .*\.\/(sandbox|telemetry|storefront\/react)\b/)
    } finally {
      fs.rmSync(out, { recursive: true, force: true })
    }
  })
})

describe("the release check's document checks", () => {
  let dir: string
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    fs.writeFileSync(path.join(dir, file), text)
  }
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "release-docs-"))))
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

  it("names a doc's link, image or <img> to a file the package does not hold, and a path to ../shared/", () => {
    write("README.md", "[ok](docs/a.md) [gone](docs/gone.md#x) [web](https://example.com) [here](#top)\n")
    write("docs/a.md", '![shot](images/a.png) <img src="images/b.png" width="2"> see `../shared/spec.md`\n')
    write("docs/images/a.png", "png")
    expect(deadLinks(dir, ["README.md", "docs/a.md", "docs/images/a.png"])).toEqual([
      "README.md: links docs/gone.md#x, which the package does not hold",
      "docs/a.md: names ../shared/, which no package holds",
      "docs/a.md: links images/b.png, which the package does not hold",
    ])
  })

  it("wants the CHANGELOG's newest version entry to be the package's version, and counts what is unreleased", () => {
    const manifest: Manifest = { name: "p", version: "0.2.0", exports: {} }
    write("CHANGELOG.md", "# Changelog\n\n## [Unreleased]\n\n- one\n- two\n\n## 0.1.0\n\n- first\n")
    expect(checkChangelog(dir, manifest)).toEqual({
      problems: ["CHANGELOG.md: the newest version entry is 0.1.0, the package is 0.2.0"],
      notes: ["CHANGELOG.md: 2 entries under [Unreleased] go into 0.2.0's entry when it is published"],
    })
    write("CHANGELOG.md", "# Changelog\n\n## [0.2.0] - 2026-12-01\n\n- one\n\n## 0.1.0\n")
    expect(checkChangelog(dir, manifest)).toEqual({ problems: [], notes: [] })
  })
})
