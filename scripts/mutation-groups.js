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
// `timeoutMS` (optional, 60000 by default): Stryker's base time per mutant.
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
    // Not tests/unit/lib/card-service-client.spec.ts (the client group's):
    // response-mapping.spec.ts drives the same mapping as pure inputs, and a
    // smaller list keeps each mutant's run short.
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
  // After the checkout (issue 40): the capture of exactly what Medusa books,
  // one per approval, refunds within the capture and never twice, the
  // owner's answer about an unknown refund, the admin's comparison.
  "after-checkout": {
    mutate: [
      "src/providers/card-service/follow-ons.ts",
      "src/providers/card-service/follow-on-limits.ts",
      "src/providers/card-service/medusa-captures.ts",
      "src/api/admin/card-service/money-comparison.ts",
    ],
    tests: [
      "tests/contract/provider-follow-ons.spec.ts",
      "tests/unit/providers/follow-on-limits.spec.ts",
      "tests/unit/providers/medusa-captures.spec.ts",
      "tests/unit/api/money-comparison.spec.ts",
    ],
  },
  // Orders on hold for a review (issue 39): each verdict, the cancel of the
  // order and the reversal of an approval no order takes, the sweep's
  // backoff, a dead cancel's credit-line change. On the sandbox and the fake
  // Medusa container; orders-on-hold.spec.ts (integration) tells the same
  // stories too slowly for a mutant each.
  review: {
    mutate: ["src/checkout/review-verdict.ts"],
    tests: ["tests/contract/review-verdict.spec.ts"],
  },
  // "Payments at a glance" (issue 39): the sessions started and abandoned
  // per window are SQL, so the spec runs it on an embedded PostgreSQL; each
  // mutant's run starts one (seconds).
  glance: {
    mutate: ["src/api/admin/card-service/glance-figures.ts", "src/modules/card-service-activity/service.ts"],
    tests: ["tests/contract/glance-figures.spec.ts"],
  },
  // The owner's words (issue 41): Needs attention's count and who acted, the
  // status words both panels share, the settle span's outcome for reviews,
  // and what a call's report says of its verdict.
  "owner-words": {
    mutate: [
      "src/admin/lib/attention-summary.ts",
      "src/admin/lib/status-label.ts",
      "src/observability/settlement-telemetry.ts",
      "src/lib/call-report.ts",
    ],
    tests: [
      "tests/unit/admin/setting-labels.spec.ts",
      "tests/unit/observability/settle-outcome.spec.ts",
      "tests/unit/lib/call-observer.spec.ts",
    ],
  },
  // The trace processor a store's instrumentation.ts wraps its exporter's
  // processor in (issue 41): what a mutant lets through is a leak.
  "trace-redaction": {
    mutate: ["src/observability/trace-redaction.ts"],
    tests: ["tests/unit/observability/trace-redaction.spec.ts"],
  },
  // The page's two windows assembled from those counts: pure, so unit specs
  // only (the glance group's spec, which starts a database, is left out).
  "glance-windows": {
    mutate: ["src/api/admin/card-service/glance-windows.ts"],
    tests: ["tests/unit/observability/payment-results.spec.ts", "tests/unit/api/glance-windows.spec.ts"],
  },
  // The client's retry and credential rules.
  client: {
    mutate: [
      "src/lib/request-sender.ts",
      "src/lib/card-service-client.ts",
      "src/lib/verification-code-cache.ts",
      "src/lib/transport-errors.ts",
    ],
    tests: [
      "tests/unit/lib/card-service-client.spec.ts",
      "tests/unit/lib/client-transport-rules.spec.ts",
      "tests/contract/client-sandbox.spec.ts",
    ],
    // Mutants that retry without end (a backoff or attempt count removed)
    // end as timeouts, which count as detected; 5 s per mutant instead of
    // 60 keeps a run of the group near 12 minutes instead of 30.
    timeoutMS: 5000,
  },
  // The routes' guards (issue 30): the cross-site and JSON-only rule of the
  // admin routes, the identifier limits, and the path and field checks that
  // apply them. Specs that load nothing of Medusa at run time: every mutant
  // of a constant table reloads each of them.
  guards: {
    mutate: [
      "src/api/admin/card-service/request-guard.ts",
      "src/lib/identifier-limits.ts",
      "src/api/card-service/input-limits.ts",
    ],
    tests: [
      "tests/unit/api/request-guard.spec.ts",
      "tests/unit/lib/identifier-limits.spec.ts",
      "tests/unit/api/input-limits.spec.ts",
    ],
  },
  // Which middlewares run in front of each route (issue 30), and the 400
  // for a path express could not decode. Its own group: its specs load
  // Medusa's http layer, seconds per reload.
  routes: {
    mutate: ["src/api/middlewares.ts", "src/api/card-service/undecodable-path.ts"],
    tests: [
      "tests/unit/api/middlewares.spec.ts",
      "tests/unit/api/undecodable-path.spec.ts",
    ],
  },
  // The sandbox's follow-on rules.
  sandbox: {
    mutate: ["src/sandbox/follow-on-rules.ts", "src/sandbox/amount-rules.ts"],
    // The sandbox's index imports every handler, so without a list all 17
    // sandbox contract specs count as related and a run takes about two
    // hours here; these reach every follow-on and amount rule.
    tests: [
      "tests/contract/sandbox-follow-ons.spec.ts",
      "tests/contract/sandbox-order-start.spec.ts",
      "tests/unit/sandbox/amount-rules.spec.ts",
    ],
  },
  // The sweep (src/reconciliation, issue 39): one group per module, kept in
  // a file of their own.
  ...require("./mutation-groups-reconciliation"),
}
