import fs from "node:fs"
import path from "node:path"
import semver from "semver"

// `npm ci` refuses a lockfile in which a package names an optional
// dependency (another platform's prebuilt binary: @swc/core-darwin-arm64,
// @rollup/rollup-win32-x64-msvc, ...) that has no entry of its own: "Missing:
// ... from lock file". Such a lockfile still installs on the machine that
// wrote it, so only a fresh clone elsewhere found the drift. This reads the
// lockfiles as npm ci does and fails here first.

type LockEntry = {
  version?: string
  link?: boolean
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
}

const ROOT = path.resolve(__dirname, "../../..")

/** The entry npm would use for `name` required from the package at `from`. */
function resolveFrom(
  packages: Record<string, LockEntry>,
  from: string,
  name: string
) {
  let dir = from
  for (;;) {
    const candidate = dir
      ? `${dir}/node_modules/${name}`
      : `node_modules/${name}`
    if (packages[candidate]) return candidate
    if (!dir) return null
    const cut = dir.lastIndexOf("/node_modules/")
    dir = cut === -1 ? "" : dir.slice(0, cut)
  }
}

/** Every dependency a lockfile names without an entry that resolves it. */
export function missingFromLockfile(lock: {
  packages: Record<string, LockEntry>
}) {
  const missing: string[] = []
  for (const [at, entry] of Object.entries(lock.packages)) {
    if (entry.link) continue
    const names = {
      ...entry.dependencies,
      ...entry.optionalDependencies,
    }
    for (const [name, range] of Object.entries(names)) {
      if (!resolveFrom(lock.packages, at, name))
        missing.push(`${name}@${range} (for ${at || "the root"})`)
    }
  }
  return missing
}

describe("lockfiles that npm ci takes as they are", () => {
  it.each(["package-lock.json", "storefront-example/package-lock.json"])(
    "%s has an entry for every dependency it names, other platforms' optional binaries included",
    (file) => {
      const lock = JSON.parse(fs.readFileSync(path.join(ROOT, file), "utf8"))
      expect(missingFromLockfile(lock)).toEqual([])
    }
  )

  it("finds another platform's binary that a package names but the lockfile lacks", () => {
    const lock = {
      packages: {
        "": { dependencies: { "@swc/core": "^1.7.28" } },
        "node_modules/@swc/core": {
          version: "1.16.22",
          optionalDependencies: {
            "@swc/core-linux-x64-gnu": "1.16.22",
            "@swc/core-darwin-arm64": "1.16.22",
          },
        },
        "node_modules/@swc/core-linux-x64-gnu": { version: "1.16.22" },
      },
    }
    expect(missingFromLockfile(lock)).toEqual([
      "@swc/core-darwin-arm64@1.16.22 (for node_modules/@swc/core)",
    ])
  })

  it("resolves a nested copy before the hoisted one, as Node does", () => {
    const lock = {
      packages: {
        "": { dependencies: { a: "1" } },
        "node_modules/a": { version: "1.0.0", dependencies: { b: "2" } },
        "node_modules/a/node_modules/b": {
          version: "2.0.0",
          dependencies: { c: "1" },
        },
        "node_modules/c": { version: "1.0.0" },
      },
    }
    expect(missingFromLockfile(lock)).toEqual([])
  })
})

describe("the package's own runtime dependencies", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"))
  const lock = JSON.parse(fs.readFileSync(path.join(ROOT, "package-lock.json"), "utf8"))

  // A store gets the plugin's dependencies resolved against its own tree: an
  // exact pin keeps every patch release from it and a second copy beside
  // the store's (Medusa's own zod, an undici a store already has).
  it.each(Object.keys(pkg.dependencies))("%s is a range a library gives, and the lockfile's copy is in it", (name) => {
    const range: string = pkg.dependencies[name]
    expect(semver.valid(range)).toBeNull()
    expect(range).toMatch(/^\^/)
    expect(semver.satisfies(lock.packages[`node_modules/${name}`].version, range)).toBe(true)
  })
})
