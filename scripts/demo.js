#!/usr/bin/env node
// `npm run demo` starts the sandbox, an embedded PostgreSQL and a Medusa store
// with this plugin. It lands with the demo issue; until then it says so.
console.error(
  "npm run demo: not yet. The demo (Medusa + this plugin + the card-service sandbox on an embedded PostgreSQL) is still being built; `npm test` runs everything that exists."
)
process.exit(1)
