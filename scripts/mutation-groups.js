// The mutation-testing groups (issue #20): one StrykerJS run per group over
// the money- and security-critical modules, each measured with the fast rings
// (unit + contract) only. `npm run test:mutation -- <group>` runs one.
module.exports = {
  // Approval and session sealing: the MACs, the merchant reference, the
  // approval check, the Medusa terms the seal is bound to, the return URL.
  sealing: [
    "src/providers/card-service/session-seal.ts",
    "src/providers/card-service/merchant-reference.ts",
    "src/providers/card-service/approval-check.ts",
    "src/providers/card-service/medusa-session-terms.ts",
    "src/providers/card-service/return-url.ts",
  ],
  // Money and status mapping: minor units, card number check, the service's
  // answers mapped to Medusa statuses.
  money: [
    "src/lib/money.ts",
    "src/lib/luhn.ts",
    "src/lib/response-mapping.ts",
    "src/providers/card-service/status-mapping.ts",
  ],
  // Settlement and the callback and return routes.
  settlement: [
    "src/checkout/settle-payment.ts",
    "src/checkout/callback-settlement.ts",
    "src/checkout/settled-check.ts",
    "src/checkout/hint-admission.ts",
    "src/api/card-service/callback/[session_id]/route.ts",
    "src/api/card-service/return/[session_id]/route.ts",
  ],
  // The client's retry and credential rules.
  client: [
    "src/lib/request-sender.ts",
    "src/lib/card-service-client.ts",
    "src/lib/verification-code-cache.ts",
    "src/lib/transport-errors.ts",
  ],
  // The sandbox's follow-on rules.
  sandbox: [
    "src/sandbox/follow-on-rules.ts",
    "src/sandbox/amount-rules.ts",
  ],
}
