// The mutation-testing groups of the sweep (src/reconciliation, issue 39),
// in the shape of scripts/mutation-groups.js (mutate + tests). The passes
// choose what they settle with SQL over Medusa's payment_session and
// payment_collection rows, so the specs that pin those choices run them on
// an embedded PostgreSQL (tests/helpers/pg-container.ts), one per spec file:
// a mutant whose tests read the database pays a server's start (seconds);
// one whose tests do not (the decisions around settlePayment) does not,
// since jest runs no beforeAll of a describe with nothing to run.
module.exports = {
  // Orders on hold (held-orders.ts): the batch (due next look, least
  // recently changed first, the review's time and a week back) and what
  // each verdict tells the store owner.
  "held-orders": {
    mutate: ["src/reconciliation/held-orders.ts"],
    tests: ["tests/contract/reconciliation-held-orders.spec.ts"],
  },
  // The hint copies on payment collections (gone-sessions.ts): which
  // collections a pass reads, which copies are dropped as answered (the
  // session no longer holds the hint, and the copy is a minute old), which
  // are settled, and a refused reversal noted once, never asked again.
  "gone-sessions": {
    mutate: ["src/reconciliation/gone-sessions.ts"],
    tests: ["tests/contract/reconciliation-gone-sessions.spec.ts"],
  },
  // The open sessions the session pass reads (sweep-candidates.ts): a hint
  // for another transaction, an approval with no order, a result under
  // review whose order was never placed on hold, attempts past the grace
  // period; oldest first, at most the batch.
  "sweep-candidates": {
    mutate: ["src/reconciliation/sweep-candidates.ts"],
    tests: ["tests/contract/reconciliation-sweep-candidates.spec.ts"],
  },
  // When a pass stops and backs off: the service unreachable or failing.
  "service-down": {
    mutate: ["src/reconciliation/service-down.ts"],
    tests: ["tests/contract/reconciliation-service-down.spec.ts"],
  },
  // A canceled order's card payments on a Medusa that drops the provider's
  // answer (canceled-payments.ts): asked again only when still
  // "authorized", and the answer written only when it says "canceled".
  "canceled-payments": {
    mutate: ["src/reconciliation/canceled-payments.ts"],
    tests: ["tests/contract/reconciliation-canceled-payments.spec.ts"],
  },
  // One sweep pass (sweep.ts): the providers and batches it goes through,
  // when it stops for an outage, and each open session's decision: which
  // transaction is settled, what is noted, which hint is dropped as
  // answered, when a refused reversal is noted instead of tried again. No
  // database: the batches are the groups above.
  sweep: {
    mutate: ["src/reconciliation/sweep.ts"],
    tests: ["tests/contract/reconciliation-sweep.spec.ts"],
  },
  // Captured payments the sweep follows (payment-followups.ts): which it
  // reads, what a capture's record tells the store owner, a lost capture
  // asked once more, refunds of unknown outcome shown and never resent.
  "payment-followups": {
    mutate: ["src/reconciliation/payment-followups.ts"],
    tests: ["tests/contract/reconciliation-payment-followups.spec.ts"],
  },
}
