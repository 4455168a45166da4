// Test rings (house style point 10): pure functions and the client on MockAgent
// ("unit"), real HTTP against the in-process sandbox ("contract"), a real
// browser ("browser"), then Medusa over HTTP ("integration"). scripts/test.js
// runs them in that order and owns the database the last ring needs.
const swc = [
  "@swc/jest",
  {
    jsc: {
      parser: { syntax: "typescript", decorators: true, tsx: true },
      target: "es2022",
      transform: { react: { runtime: "automatic" } },
    },
  },
]

const common = {
  transform: { "^.+\\.[jt]sx?$": swc },
  testEnvironment: "node",
  moduleFileExtensions: ["js", "ts", "tsx", "json"],
  // storefront-example/ is a Next.js app with its own node_modules (React 19).
  modulePathIgnorePatterns: [
    "<rootDir>/.medusa/",
    "<rootDir>/.demo-data/",
    "<rootDir>/storefront-example/",
    // StrykerJS's sandboxes (npm run test:mutation) are copies of this repository.
    "<rootDir>/.stryker-tmp/",
  ],
}

module.exports = {
  projects: [
    {
      ...common,
      displayName: "unit",
      testMatch: ["<rootDir>/tests/unit/**/*.spec.ts?(x)"],
    },
    {
      ...common,
      displayName: "contract",
      testMatch: ["<rootDir>/tests/contract/**/*.spec.ts"],
    },
    {
      ...common,
      displayName: "browser",
      testMatch: ["<rootDir>/tests/browser/**/*.spec.ts"],
    },
    {
      ...common,
      displayName: "integration",
      testMatch: ["<rootDir>/integration-tests/http/**/*.spec.ts"],
      setupFiles: ["<rootDir>/integration-tests/setup.js"],
    },
    // Benchmarks run only when asked for (npm run bench:checkout).
    ...(process.env.BENCH
      ? [
          {
            ...common,
            displayName: "bench",
            testMatch: ["<rootDir>/bench/**/*.bench.ts"],
            setupFiles: ["<rootDir>/integration-tests/setup.js"],
          },
        ]
      : []),
  ],
}
