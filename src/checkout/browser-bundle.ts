import { createHash } from "node:crypto"
import fs from "node:fs"
import path from "node:path"
import { encode, type Encoding } from "../lib/response-compression"

export type BrowserBundle = {
  code: string
  etag: string
  /** The script in an encoding, compressed once at top quality and kept. */
  encoded(encoding: Encoding): { bytes: Buffer; etag: string }
}

let bundle: Promise<BrowserBundle> | null = null

/**
 * The payment page's script, bundled for the browser on first use with
 * esbuild (which every Medusa app has, through its admin bundler) and kept
 * in memory. Bundling at run time keeps card-validator's code out of this
 * repository and works both from `src` (TypeScript) and from the build.
 */
export function payPageScript(): Promise<BrowserBundle> {
  bundle ??= build().catch((error) => {
    bundle = null
    throw error
  })
  return bundle
}

async function build(): Promise<BrowserBundle> {
  const dir = path.join(__dirname, "..", "lib", "browser")
  const entry = ["pay-page-script.ts", "pay-page-script.js"]
    .map((name) => path.join(dir, name))
    .find((file) => fs.existsSync(file))
  if (!entry) {
    throw new Error(`card-service: the payment page script is missing from ${dir}`)
  }
  const esbuild = await import("esbuild")
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    minify: true,
    format: "iife",
    platform: "browser",
    target: ["es2019"],
    legalComments: "none",
  })
  const code = result.outputFiles[0].text
  const hash = createHash("sha256").update(code).digest("base64url").slice(0, 16)
  const raw = Buffer.from(code, "utf8")
  const variants = new Map<Encoding, { bytes: Buffer; etag: string }>()
  return {
    code,
    etag: `"${hash}"`,
    encoded(encoding) {
      let variant = variants.get(encoding)
      if (!variant) {
        // Each encoding is its own representation (RFC 9110 8.8.3), so its own tag.
        const tag = encoding === "identity" ? hash : `${hash}-${encoding}`
        variant = { bytes: encode(raw, encoding, "max"), etag: `"${tag}"` }
        variants.set(encoding, variant)
      }
      return variant
    },
  }
}
