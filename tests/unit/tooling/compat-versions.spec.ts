import fs from "node:fs"
import path from "node:path"
import semver from "semver"
import {
  chooseVersions,
  compatPlan,
  newestPatchPerMinor,
} from "../../../scripts/lib/compat-versions"

// A slice of the registry's list as `npm view @medusajs/medusa versions` gives it.
const REGISTRY = [
  "1.20.11",
  "2.0.0-rc.1",
  "2.12.6",
  "2.13.0",
  "2.13.6",
  "2.17.0",
  "2.17.2",
  "2.17.1",
  "2.18.0",
  "2.20.0",
  "2.20.1",
  "2.21.0",
  "2.21.2",
  "2.22.0-preview-20261001",
]

const ROOT = path.resolve(__dirname, "../../..")
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"))
const MEDUSA_PEERS = [
  "@medusajs/framework",
  "@medusajs/medusa",
  "@medusajs/admin-sdk",
]

describe("the Medusa versions test:compat builds stores on", () => {
  it("takes the newest release of each 2.x minor, oldest first, without pre-releases or 1.x", () => {
    expect(newestPatchPerMinor(REGISTRY)).toEqual([
      "2.12.6",
      "2.13.6",
      "2.17.2",
      "2.18.0",
      "2.20.1",
      "2.21.2",
    ])
  })

  it.each([
    [">=2.17.0 <3.0.0", ["2.17.2", "2.18.0", "2.20.1", "2.21.2"]],
    ["^2.13.0", ["2.13.6", "2.17.2", "2.18.0", "2.20.1", "2.21.2"]],
    [">=2.20.0 <2.21.0", ["2.20.1"]],
  ])("keeps the minors the peer range %s accepts", (range, supported) => {
    expect(compatPlan(REGISTRY, range)).toEqual({ supported, newest: "2.21.2" })
  })

  it("refuses a peer range that no release satisfies", () => {
    expect(() => compatPlan(REGISTRY, ">=2.30.0 <3")).toThrow(
      /no 2.x release .* satisfies/
    )
  })

  const plan = compatPlan(REGISTRY, ">=2.17.0 <3.0.0")

  it.each<[string, { medusa?: string; all?: boolean }, string[]]>([
    [
      "the default: the oldest supported and the newest 2.x",
      {},
      ["2.17.2", "2.21.2"],
    ],
    [
      "--all: every supported minor once",
      { all: true },
      ["2.17.2", "2.18.0", "2.20.1", "2.21.2"],
    ],
    [
      "--medusa with versions",
      { medusa: "2.20.1,2.21.2" },
      ["2.20.1", "2.21.2"],
    ],
    [
      "--medusa with a minor: its newest patch",
      { medusa: "2.17, 2.20" },
      ["2.17.2", "2.20.1"],
    ],
    ["--medusa naming one twice", { medusa: "2.21.2,2.21" }, ["2.21.2"]],
  ])("%s", (_, flags, expected) => {
    expect(chooseVersions(plan, REGISTRY, flags)).toEqual(expected)
  })

  it.each([
    ["2.99.0", /no @medusajs\/medusa@2.99.0/],
    ["2.30", /no release of Medusa 2.30/],
    ["latest", /takes versions such as 2.20.1/],
    ["", /names no version/],
  ])("refuses --medusa %j", (given, message) => {
    expect(() => chooseVersions(plan, REGISTRY, { medusa: given })).toThrow(
      message
    )
  })

  it("the package's Medusa peers share one range, which npm accepts on every minor the matrix runs", () => {
    const ranges = MEDUSA_PEERS.map((name) => pkg.peerDependencies[name])
    expect(new Set(ranges).size).toBe(1)
    const [range] = ranges
    // Exact pins (the issue) would accept one version only.
    expect(semver.validRange(range)).toBeTruthy()
    expect(compatPlan(REGISTRY, range).supported.length).toBeGreaterThan(1)
    // Every patch and minor after the oldest supported one, up to Medusa 3.
    const oldest = semver.minVersion(range)!.version
    for (const later of ["2.21.3", "2.22.0", "2.40.1"]) {
      expect(semver.satisfies(later, range)).toBe(semver.gte(later, oldest))
    }
    expect(semver.satisfies("3.0.0", range)).toBe(false)
  })

  it("names no peer whose own peers disagree with the dashboard's on a supported minor", () => {
    // @medusajs/icons 2.14.x asks for react ^19.2.5 beside Medusa 2.14's
    // react ^18.3.1 dashboard: npm only warns in a bare store, but refuses
    // (ERESOLVE) once a direct dependency names icons as a peer. The admin
    // bundle takes icons from the dashboard the store has.
    expect(Object.keys(pkg.peerDependencies)).not.toContain("@medusajs/icons")
  })
})
