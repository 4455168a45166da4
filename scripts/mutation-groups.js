// The mutation-testing groups (issue #20): one StrykerJS run per group over
// the money- and security-critical modules, each measured with the fast rings
// (unit + contract) only. `npm run test:mutation -- <group>` runs one.
//
// `mutate`: the modules mutated. `tests` (optional): the spec files run
// against them. Without it every fast-ring spec related to the module runs;
// with it only those, which is faster (each mutant reloads every spec file
// that runs) and can only lower the score, never raise it: a mutant is killed
// by these specs or counted as surviving. `coverageAnalysis` (optional,
// "perTest" by default): "all" runs every test of the related specs per mutant.
module.exports = {
  // Approval and session sealing: the MACs, the merchant reference, the
  // approval check, the Medusa terms the seal is bound to, the return URL.
  sealing: {
    mutate: [
      "src/providers/card-service/session-seal.ts",
      "src/providers/card-service/merchant-reference.ts",
      "src/providers/card-service/approval-check.ts",
      "src/providers/card-service/medusa-session-terms.ts",
      "src/providers/card-service/return-url.ts",
    ],
    tests: [
      "tests/unit/providers/session-seal.spec.ts",
      "tests/unit/providers/merchant-reference.spec.ts",
      "tests/unit/providers/approval-check.spec.ts",
      "tests/unit/providers/medusa-session-terms.spec.ts",
      "tests/unit/providers/return-url.spec.ts",
      "tests/unit/providers/return-url-schemes.spec.ts",
      "tests/unit/providers/session-seal-vectors.spec.ts",
    ],
  },
  // Money and status mapping: minor units, card number check, the service's
  // answers mapped to results and errors, reason codes to Medusa statuses.
  money: {
    mutate: [
      "src/lib/money.ts",
      "src/lib/luhn.ts",
      "src/lib/response-mapping.ts",
      "src/providers/card-service/status-mapping.ts",
    ],
    tests: [
      "tests/unit/lib/money.spec.ts",
      "tests/unit/lib/money-inputs.spec.ts",
      "tests/unit/lib/response-mapping.spec.ts",
      "tests/unit/lib/luhn.spec.ts",
      "tests/unit/lib/log-redaction.spec.ts",
      "tests/unit/lib/http-exchange.spec.ts",
      "tests/unit/providers/status-mapping.spec.ts",
    ],
    // Not tests/unit/lib/card-service-client.spec.ts: its afterAll checks
    // that over 50 of its tests saw an error, which fails whenever Stryker
    // runs only a mutant's own tests (per-test coverage), and every such
    // mutant is then counted as a runtime error, unscored. Running it whole
    // per mutant is too slow on a shared machine; response-mapping.spec.ts
    // drives the same mapping as pure inputs.
  },
  // Settlement and the callback and return routes, on the in-process sandbox
  // and the fake Medusa container (tests/helpers/fake-medusa.ts).
  settlement: {
    mutate: [
      "src/checkout/settle-payment.ts",
      "src/checkout/callback-settlement.ts",
      "src/checkout/settled-check.ts",
      "src/checkout/hint-admission.ts",
      "src/api/card-service/callback/[session_id]/route.ts",
      "src/api/card-service/return/[session_id]/route.ts",
    ],
    tests: [
      "tests/contract/settlement.spec.ts",
      "tests/unit/checkout/duplicate-callbacks.spec.ts",
      "tests/unit/checkout/call-budget.spec.ts",
    ],
  },
  // The client's retry and credential rules.
  client: {
    mutate: [
      "src/lib/request-sender.ts",
      "src/lib/card-service-client.ts",
      "src/lib/verification-code-cache.ts",
      "src/lib/transport-errors.ts",
    ],
  },
  // The sandbox's follow-on rules.
  sandbox: {
    mutate: ["src/sandbox/follow-on-rules.ts", "src/sandbox/amount-rules.ts"],
  },
}
