#!/usr/bin/env node
// Runs after `medusa plugin:build` (npm run build, prepack). Medusa's plugin
// compiler always writes an inline source map into every compiled file (it
// sets inlineSourceMap unless tsconfig asks for map files). Those maps were a
// third of the package (about 750 kB of 2.3 MB) and a store never reads them:
// the compiled code is the TypeScript with its types removed, so a stack
// trace from it is readable as it is. Removing the trailing comment, not
// switching to map files, leaves no dangling `sourceMappingURL` for a
// storefront bundler to warn about.
"use strict"

const fs = require("node:fs")
const path = require("node:path")

const BUILT = path.resolve(__dirname, "..", ".medusa", "server", "src")
const INLINE_MAP = /\n\/\/# sourceMappingURL=data:application\/json;[^\n]*\n?$/

function stripSourceMaps(dir = BUILT) {
  let files = 0
  let bytes = 0
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.(c|m)?js$/.test(entry.name)) continue
    const file = path.join(entry.parentPath ?? entry.path, entry.name)
    const text = fs.readFileSync(file, "utf8")
    const stripped = text.replace(INLINE_MAP, "\n")
    if (stripped === text) continue
    fs.writeFileSync(file, stripped)
    files += 1
    bytes += text.length - stripped.length
  }
  return { files, bytes }
}

module.exports = { stripSourceMaps }

if (require.main === module) {
  if (!fs.existsSync(BUILT)) {
    console.error(`strip-source-maps: ${BUILT} is missing; run medusa plugin:build first`)
    process.exit(1)
  }
  const { files, bytes } = stripSourceMaps()
  console.log(`strip-source-maps: ${files} files, ${Math.round(bytes / 1024)} kB of inline source maps removed`)
}
