import fs from "node:fs"
import path from "node:path"
import { PackedPackage, packFreshCopy } from "../helpers/packed-package"
import { PACKAGE_BUDGET, deadLinks } from "../../scripts/lib/release-check"

// npm pack runs the prepack build (medusa plugin:build) in a fresh copy,
// unless the repository's own build is current (packFreshCopy).
jest.setTimeout(240_000)

/**
 * What a store owner downloads. Measured when this budget was first set:
 * about 250 kB packed and 0.95 MB unpacked, all runtime code, types and
 * docs; the compiled tests, scripts and benchmarks that shipped before nearly
 * doubled it. Raised once, to about 360 kB / 1.31 MB, by runtime code and its
 * docs: the shopper strings in four languages, the reconciliation sweep, the
 * hosted-page and reconciliation guides. Raised again, from 450 to 460 kB
 * packed, when finishing the payment of an order whose completion died
 * (order-payment.ts) took it 0.6 kB over. Raised to 490 kB / 1.8 MB when
 * the storefront's own pieces moved into the package (the kit-based card
 * form, the hosted-page button and the Next.js return route, which replaced
 * 289 lines an owner wrote) and 238/243 got their Needs-attention note: 478 kB
 * packed then. Raised to 540 kB / 1.95 MB for orders on hold (issue 31:
 * review-verdict, the split settlement and sweep files, each with its inline
 * source map, the order notice, the review panel, and their docs): 509 kB
 * packed, 1.84 MB unpacked then. Raised to 580 kB / 2.1 MB for telemetry
 * and Payments at a glance (issue 32: the observability module, the
 * activity module and its migration, the figures route, docs/observability.md):
 * 557 kB packed then. Raised to 600 kB / 2.15 MB for issue 39 (the
 * session's notes in a room of their own, the held orders' look schedule,
 * the figures' per-minute tallies and their migration, the not-released
 * review path, and their docs): 586 kB packed, 2.11 MB unpacked then. Raised
 * to 625 kB / 2.25 MB for issue 40 (the capture of what Medusa books and its
 * limits, the owner's answer about an unknown refund, the comparison, the
 * payment of what an edited order owes with its route and panel, and the
 * after-the-checkout docs): 614 kB packed, 2.23 MB unpacked then. Raised
 * to 640 kB / 2.3 MB for issue 41 (the trace processor, ./telemetry, and
 * its docs: 9 kB packed, 27 kB unpacked, of which its inline source map
 * is most): the package measured 622 kB / 2.255 MB before it, already
 * over the unpacked budget, and 631 kB / 2.28 MB with it. Issue
 * 44 asks for 2 MB unpacked: what a store does not need (inline source maps
 * are about half of the code's bytes) is trimmed there. The ALLOWED and
 * FORBIDDEN lists are the guard against shipping another test folder; the
 * margin is for growth. Raised to 660 kB, then 665 kB, for issue 42 (the
 * crash recovery: the provider's record, the sweep's unlogged, orphaned
 * and interrupted-cancel steps, and their docs): 661 kB packed then, and
 * 2.40 MB unpacked, 187 bytes over. Lowered for issue 44 to 500 kB / 1.8 MB
 * (the issue asked for 2 MB unpacked) by leaving out the inline source maps
 * Medusa's compiler writes into every file (scripts/strip-source-maps.js):
 * 730 kB of 211 files, which took the package to 471 kB packed, 1.65 MB
 * unpacked; then the nine screenshots the shipped docs show went in,
 * compressed from 656 kB to 188 kB (pngquant): 652 kB packed, 1.84 MB
 * unpacked. Budget 680 kB / 1.95 MB, under the issue's 2 MB. Raised to
 * 690 kB packed for issue 42's order records (the sweep recording on the
 * order what Medusa booked on the payment, a refund's dead credit-line
 * change, the refusal of a refund beside an unrecorded one, and their docs):
 * 680 kB packed then.
 */
const BUDGET = PACKAGE_BUDGET

/** Everything a shipped path may be, and nothing else. */
const ALLOWED = [
  /^package\.json$/,
  /^README\.md$/,
  /^LICENSE$/,
  /^CHANGELOG\.md$/,
  /^bin\/card-service-sandbox\.js$/,
  /^docs\/[a-z-]+\.md$/,
  /^docs\/images\/[a-z0-9-]+\.png$/,
  /^\.medusa\/server\/src\/.+\.(js|mjs|d\.ts)$/,
]

/** What must never ship, named so a failure says what slipped in. */
const FORBIDDEN = [
  /\.spec\./,
  /\.test\./,
  /\.bench\./,
  /(^|\/)__tests__\//,
  /(^|\/)tests?\//,
  /(^|\/)integration-tests\//,
  /(^|\/)scripts\//,
  /(^|\/)bench\//,
  /(^|\/)demo\//,
  /medusa-config\./,
  /medusa-plugin-options\.json$/,
  /(^|\/)\.env/,
]

describe("the packed package", () => {
  let pack: PackedPackage
  let paths: string[]

  beforeAll(async () => {
    pack = await packFreshCopy()
    paths = pack.files.map((file) => file.path)
  })

  afterAll(() => pack?.cleanup())

  it("ships only runtime code, types, the bin, README, docs, LICENSE and CHANGELOG", () => {
    expect(
      paths.filter((p) => !ALLOWED.some((pattern) => pattern.test(p)))
    ).toEqual([])
    expect(
      paths.filter((p) => FORBIDDEN.some((pattern) => pattern.test(p)))
    ).toEqual([])
    for (const required of [
      "package.json",
      "README.md",
      "LICENSE",
      "CHANGELOG.md",
      "bin/card-service-sandbox.js",
    ]) {
      expect(paths).toContain(required)
    }
  })

  it("ships its compiled code without the inline source maps Medusa's compiler writes", () => {
    // A third of the bytes, and nothing a store reads (scripts/strip-source-maps.js).
    const code = paths.filter((p) => /\.(c|m)?js$/.test(p))
    expect(code.length).toBeGreaterThan(100)
    const withMaps = code.filter((p) =>
      fs.readFileSync(path.join(pack.dir, p), "utf8").includes("sourceMappingURL=")
    )
    expect(withMaps).toEqual([])
  })

  it("stays within its size budget", () => {
    expect(pack.size).toBeLessThanOrEqual(BUDGET.packedBytes)
    expect(pack.unpackedSize).toBeLessThanOrEqual(BUDGET.unpackedBytes)
  })

  it("holds every file its exports and bin point to, with type declarations", () => {
    const manifest = JSON.parse(
      fs.readFileSync(path.join(pack.dir, "package.json"), "utf8")
    )
    const targets: string[] = []
    const collect = (value: unknown) => {
      if (typeof value === "string") targets.push(value)
      else if (value && typeof value === "object")
        Object.values(value).forEach(collect)
    }
    collect(manifest.exports)
    collect(manifest.bin)
    // The starter's wildcard exports ("./*", modules/*) are conventions for
    // what a plugin may add later; the concrete entries are what stores use.
    const concrete = targets
      .filter((target) => !target.includes("*"))
      .map((t) => path.posix.normalize(t))
    expect(concrete.length).toBeGreaterThan(5)
    for (const target of concrete) {
      expect(paths).toContain(target)
    }
    // Types for what stores import from code; the admin bundle is loaded by
    // Medusa's dashboard build, not imported.
    const typed = concrete.filter(
      (t) =>
        t.startsWith(".medusa/server/src/") &&
        t.endsWith(".js") &&
        !t.includes("/src/admin/")
    )
    expect(typed.length).toBeGreaterThanOrEqual(4)
    for (const entry of typed) {
      expect(paths).toContain(entry.replace(/\.js$/, ".d.ts"))
    }
    // The same types for a store whose TypeScript reads typesVersions
    // (moduleResolution "node"), not exports.
    const declared = Object.values(
      manifest.typesVersions["*"] as Record<string, string[]>
    ).flat()
    expect(declared).toContain(
      ".medusa/server/src/observability/trace-redaction.d.ts"
    )
    for (const file of declared) {
      expect(paths).toContain(file)
    }
    // The provider, the way medusa-config resolves it (./providers/*).
    expect(paths).toContain(
      ".medusa/server/src/providers/card-service/index.js"
    )
    expect(paths).toContain(
      ".medusa/server/src/providers/card-service/index.d.ts"
    )
  })

  it("every relative link and image in the shipped Markdown resolves inside the package, and none names ../shared/", () => {
    // Links, images and <img src> (scripts/lib/release-check.ts): the
    // screenshots ship (#44: they were left out, and the installed docs
    // showed broken images), and the docs once sent owners to
    // ../shared/card-service-interface.md, as code, not as a link.
    expect(deadLinks(pack.dir, paths)).toEqual([])
  })

  it("ships its screenshots compressed (pngquant --quality 60-85: a tenth of the budget for nine)", () => {
    const images = pack.files.filter((file) => file.path.endsWith(".png"))
    expect(images.length).toBeGreaterThan(0)
    expect(images.filter((file) => file.size > 40_000).map((file) => `${file.path}: ${file.size}`)).toEqual([])
  })

  it("carries the MIT licence its package.json names", () => {
    const manifest = JSON.parse(
      fs.readFileSync(path.join(pack.dir, "package.json"), "utf8")
    )
    expect(manifest.license).toBe("MIT")
    const licence = fs.readFileSync(path.join(pack.dir, "LICENSE"), "utf8")
    expect(licence).toMatch(/^MIT License/)
    expect(licence).toContain(
      "Copyright (c) 2026 the medusa-payment-card-service authors"
    )
  })

  it("ships no development fallback secret in its code", () => {
    const code = paths.filter((p) => /\.(js|mjs)$/.test(p))
    const withSecret = code.filter((p) =>
      fs.readFileSync(path.join(pack.dir, p), "utf8").includes("supersecret")
    )
    expect(withSecret).toEqual([])
  })
})
