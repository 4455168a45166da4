// The fast rings only (unit + contract), for StrykerJS (npm run test:mutation).
// One flat config rather than `projects`: Stryker's jest runner puts its
// per-test coverage environment on the top-level config, which projects
// would not inherit.
const full = require("./jest.config.js")

const rings = full.projects.filter((p) =>
  ["unit", "contract"].includes(p.displayName)
)
const { displayName, testMatch, ...common } = rings[0]

module.exports = {
  ...common,
  rootDir: __dirname,
  testMatch: rings.flatMap((p) => p.testMatch),
}
