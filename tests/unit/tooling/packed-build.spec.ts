import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { buildIsFresh } from "../../helpers/packed-package"

// The packed-install and package-contents tests pack the repository's own
// build instead of building again when buildIsFresh says it is current.

const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, "../../../package.json"), "utf8"))

it("packs what a release packs: the prepack script is the build script", () => {
  expect(pkg.scripts.prepack).toBe(pkg.scripts.build)
})

it("runs the medusa CLI with Medusa's usage telemetry off: no network beyond the registries", () => {
  // @medusajs/telemetry reads MEDUSA_DISABLE_TELEMETRY; without it
  // `medusa plugin:build` posts usage data to Medusa's servers.
  const medusaScripts = Object.entries<string>(pkg.scripts).filter(([, command]) => /(^|\s)medusa\s/.test(command))
  expect(medusaScripts.map(([name]) => name)).toEqual(expect.arrayContaining(["build", "prepack"]))
  for (const [, command] of medusaScripts) expect(command).toMatch(/^MEDUSA_DISABLE_TELEMETRY=true medusa /)
})

describe("buildIsFresh", () => {
  let root: string
  const at = (relative: string, seconds: number) => {
    const file = path.join(root, relative)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    if (!fs.existsSync(file)) fs.writeFileSync(file, "x")
    fs.utimesSync(file, seconds, seconds)
  }
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "packed-build-"))
    for (const file of ["src/a.ts", "src/deep/b.ts", "package.json", "tsconfig.json", "medusa-config.ts"]) at(file, 1000)
  })
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }))

  it("is fresh when every built file is at least as new as every source", () => {
    at(".medusa/server/medusa-config.js", 2000)
    at(".medusa/server/src/a.js", 2000)
    expect(buildIsFresh(root)).toBe(true)
  })

  it.each(["src/deep/b.ts", "package.json", "tsconfig.json", "medusa-config.ts"])(
    "is stale when %s changed after the build",
    (source) => {
      at(".medusa/server/medusa-config.js", 2000)
      at(".medusa/server/src/a.js", 2000)
      at(source, 3000)
      expect(buildIsFresh(root)).toBe(false)
    }
  )

  it("is stale when one built file is older than a source, and when there is no build", () => {
    expect(buildIsFresh(root)).toBe(false)
    at(".medusa/server/medusa-config.js", 2000)
    expect(buildIsFresh(root)).toBe(false)
    at(".medusa/server/src/a.js", 2000)
    expect(buildIsFresh(root)).toBe(true)
    at(".medusa/server/src/old.js", 500)
    expect(buildIsFresh(root)).toBe(false)
  })
})
