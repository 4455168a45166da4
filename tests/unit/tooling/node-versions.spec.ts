import fs from "node:fs"
import path from "node:path"
import semver from "semver"

// `engines` says what was tested (#44): the Node versions scripts/node-version.js
// pins, which CI and `npm run node` run on, and nothing else.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { PINNED } = require("../../../scripts/node-version") as { PINNED: Record<string, string> }
const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, "../../../package.json"), "utf8"))

describe("the Node versions", () => {
  it("engines admits every pinned version", () => {
    for (const version of Object.values(PINNED)) expect(semver.satisfies(version, pkg.engines.node)).toBe(true)
  })

  it("engines admits no major that was not tested", () => {
    const tested = Object.keys(PINNED).map(Number)
    for (let major = 18; major <= 30; major++) {
      const admitted = semver.intersects(`^${major}.0.0`, pkg.engines.node)
      expect([major, admitted]).toEqual([major, tested.includes(major)])
    }
  })

  it("the pinned versions are those the README's table names", () => {
    const readme = fs.readFileSync(path.join(__dirname, "../../../README.md"), "utf8")
    for (const version of Object.values(PINNED)) expect(readme).toContain(`| ${version} `)
  })
})

describe("the plugin's own dependencies", () => {
  /** Every package a store installs for this plugin (its dependencies, transitively), as installed here. */
  function runtimeTree(): Map<string, { version: string; node?: string }> {
    const found = new Map<string, { version: string; node?: string }>()
    const visit = (name: string, from: string) => {
      let dir = from
      let manifestPath: string | undefined
      // Node's lookup: node_modules of each folder upwards.
      for (;;) {
        const candidate = path.join(dir, "node_modules", name, "package.json")
        if (fs.existsSync(candidate)) {
          manifestPath = candidate
          break
        }
        const parent = path.dirname(dir)
        if (parent === dir) break
        dir = parent
      }
      if (!manifestPath) return
      const key = `${name}@${manifestPath}`
      if (found.has(key)) return
      const manifest = JSON.parse(fs.readFileSync(manifestPath, "utf8"))
      found.set(key, { version: manifest.version, node: manifest.engines?.node })
      for (const dep of Object.keys(manifest.dependencies ?? {})) visit(dep, path.dirname(manifestPath))
    }
    const root = path.join(__dirname, "../../..")
    for (const dep of Object.keys(pkg.dependencies)) visit(dep, root)
    return found
  }

  it("ask for no Node the engines field does not promise (no EBADENGINE of ours on 20.19, 22.12 or 24)", () => {
    const tree = runtimeTree()
    expect(tree.size).toBeGreaterThanOrEqual(Object.keys(pkg.dependencies).length)
    const refusing = [...tree.entries()]
      .filter(([, { node }]) => node && ["20.19.0", "22.12.0", "24.0.0"].some((v) => !semver.satisfies(v, node)))
      .map(([key, { version, node }]) => `${key.split("@/")[0]}@${version}: ${node}`)
    expect(refusing).toEqual([])
  })
})
