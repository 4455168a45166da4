/**
 * Test cards: the card number chooses the 3DS flow and the outcome, as magic
 * values do in stripe-mock (house style). One table, exported as data, so the
 * contract tests and docs/sandbox.md read the same source.
 *
 * Pattern: `BBBBBB F 00000 RRR C` where BBBBBB is the company range (400000
 * VISA, 520000 MASTER, 353000 JCB), F is 1 for a 3DS challenge and 0 for a
 * frictionless authentication, RRR is the reason code of section 7 the
 * authorization answers, and C is the Luhn check digit.
 */
export type TestCard = {
  number: string
  cardType: "VISA" | "MASTER" | "JCB"
  /** "challenge" serves the Pass/Fail page; "frictionless" decides at once. */
  threeDs: "frictionless" | "challenge"
  /**
   * The reason code of the payment result when authentication succeeds and
   * isAuthenticate is Y. 475 and 476 are authentication outcomes, so they
   * apply whatever isAuthenticate says.
   */
  reasonCode: string
  /** For a 480 card: how its review ends (review-desk.ts). */
  reviewVerdict?: "approve" | "reject"
  description: string
}

export const TEST_CARDS: readonly TestCard[] = [
  {
    number: "4000000000001000",
    cardType: "VISA",
    threeDs: "frictionless",
    reasonCode: "100",
    description: "Approved",
  },
  {
    number: "4000001000001008",
    cardType: "VISA",
    threeDs: "challenge",
    reasonCode: "100",
    description: "Approved after a 3DS challenge",
  },
  {
    number: "5200000000001005",
    cardType: "MASTER",
    threeDs: "frictionless",
    reasonCode: "100",
    description: "Approved",
  },
  {
    number: "5200001000001003",
    cardType: "MASTER",
    threeDs: "challenge",
    reasonCode: "100",
    description: "Approved after a 3DS challenge",
  },
  {
    number: "3530000000001001",
    cardType: "JCB",
    threeDs: "frictionless",
    reasonCode: "100",
    description: "Approved",
  },
  {
    number: "3530001000001009",
    cardType: "JCB",
    threeDs: "challenge",
    reasonCode: "100",
    description: "Approved after a 3DS challenge",
  },
  {
    number: "4000000000001109",
    cardType: "VISA",
    threeDs: "frictionless",
    reasonCode: "110",
    description:
      "Partial approval: half the amount, rounded down to the minor unit",
  },
  {
    number: "5200000000001104",
    cardType: "MASTER",
    threeDs: "frictionless",
    reasonCode: "110",
    description:
      "Partial approval: half the amount, rounded down to the minor unit",
  },
  {
    number: "4000000000001505",
    cardType: "VISA",
    threeDs: "frictionless",
    reasonCode: "150",
    description: "General system failure",
  },
  {
    number: "4000000000001513",
    cardType: "VISA",
    threeDs: "frictionless",
    reasonCode: "151",
    description: "Server timeout",
  },
  {
    number: "4000000000001521",
    cardType: "VISA",
    threeDs: "frictionless",
    reasonCode: "152",
    description: "A service did not finish in time",
  },
  {
    number: "4000000000002024",
    cardType: "VISA",
    threeDs: "frictionless",
    reasonCode: "202",
    description: "Expired card (issuer's record)",
  },
  {
    number: "4000000000002032",
    cardType: "VISA",
    threeDs: "frictionless",
    reasonCode: "203",
    description: "General card decline",
  },
  {
    number: "4000001000002030",
    cardType: "VISA",
    threeDs: "challenge",
    reasonCode: "203",
    description: "General card decline after a 3DS challenge",
  },
  {
    number: "5200000000002037",
    cardType: "MASTER",
    threeDs: "frictionless",
    reasonCode: "203",
    description: "General card decline",
  },
  {
    number: "3530000000002033",
    cardType: "JCB",
    threeDs: "frictionless",
    reasonCode: "203",
    description: "General card decline",
  },
  {
    number: "4000000000002040",
    cardType: "VISA",
    threeDs: "frictionless",
    reasonCode: "204",
    description: "Insufficient funds",
  },
  {
    number: "5200001000002043",
    cardType: "MASTER",
    threeDs: "challenge",
    reasonCode: "204",
    description: "Insufficient funds after a 3DS challenge",
  },
  {
    number: "4000000000002057",
    cardType: "VISA",
    threeDs: "frictionless",
    reasonCode: "205",
    description: "Stolen or lost card",
  },
  {
    number: "4000000000002115",
    cardType: "VISA",
    threeDs: "frictionless",
    reasonCode: "211",
    description: "Invalid card verification number",
  },
  {
    number: "4000000000002503",
    cardType: "VISA",
    threeDs: "frictionless",
    reasonCode: "250",
    description: "Timeout at the payment processor",
  },
  {
    number: "4000000000004004",
    cardType: "VISA",
    threeDs: "frictionless",
    reasonCode: "400",
    description: "Fraud score exceeds threshold",
  },
  {
    number: "4000000000004756",
    cardType: "VISA",
    threeDs: "frictionless",
    reasonCode: "475",
    description: "Enrolled, but the issuer's 3DS could not be completed",
  },
  {
    number: "4000000000004764",
    cardType: "VISA",
    threeDs: "frictionless",
    reasonCode: "476",
    description: "3DS fails without a challenge",
  },
  {
    number: "5200000000004769",
    cardType: "MASTER",
    threeDs: "frictionless",
    reasonCode: "476",
    description: "3DS fails without a challenge",
  },
  {
    number: "4000000000004806",
    cardType: "VISA",
    threeDs: "frictionless",
    reasonCode: "480",
    reviewVerdict: "approve",
    description: "Order marked for review; the review approves it",
  },
  {
    // Outside the pattern (RRR would read 483): the second review card.
    number: "4000000000004830",
    cardType: "VISA",
    threeDs: "frictionless",
    reasonCode: "480",
    reviewVerdict: "reject",
    description: "Order marked for review; the review rejects it (481)",
  },
  {
    number: "4000000000004814",
    cardType: "VISA",
    threeDs: "frictionless",
    reasonCode: "481",
    description: "Order rejected by the decision manager",
  },
  {
    number: "4000000000005209",
    cardType: "VISA",
    threeDs: "frictionless",
    reasonCode: "520",
    description: "Declined under smart authorization settings",
  },
]

/**
 * Inputs that produce the validation outcomes of section 7 rather than a card
 * behaviour: these are not cards, so they live beside the table.
 */
export const TEST_INPUTS = {
  /** Fails the Luhn check: reason 231. */
  invalidAccountNumber: "4000000000001001",
  /** A VISA number sent with cardType MASTER: reason 240. */
  inconsistentCardType: { number: "4000000000001000", cardType: "MASTER" },
  /** Expiry month before the current month (by the sandbox clock): reason 202. */
  expiredCard: "any card with an expiry before the current month",
} as const

/** Outcome of a Luhn-valid number that is not in TEST_CARDS. */
export const DEFAULT_CARD_BEHAVIOUR = {
  threeDs: "frictionless",
  reasonCode: "100",
} as const

const BY_NUMBER = new Map(TEST_CARDS.map((card) => [card.number, card]))

export function findTestCard(number: string): TestCard | undefined {
  return BY_NUMBER.get(number)
}
