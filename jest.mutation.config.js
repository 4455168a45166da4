// The fast rings only (unit + contract), for StrykerJS (npm run test:mutation).
// One flat config rather than `projects`: Stryker's jest runner puts its
// per-test coverage environment on the top-level config, which projects
// would not inherit. scripts/mutation.js may narrow the specs to a group's
// own (MUTATION_TESTS, a JSON array of paths from the repository root).
const full = require("./jest.config.js")

const rings = full.projects.filter((p) =>
  ["unit", "contract"].includes(p.displayName)
)
const { displayName, testMatch, ...common } = rings[0]
const narrowed = process.env.MUTATION_TESTS
  ? JSON.parse(process.env.MUTATION_TESTS).map((file) => `<rootDir>/${file}`)
  : null

module.exports = {
  ...common,
  rootDir: __dirname,
  testMatch: narrowed ?? rings.flatMap((p) => p.testMatch),
}
