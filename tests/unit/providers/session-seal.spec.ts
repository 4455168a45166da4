import {
  SessionSealer,
  VERIFIED_FRESH_MS,
  type SealedTerms,
  type VerifiedApproval,
} from "../../../src/providers/card-service/session-seal"

const SESSION = "payses_01JZ8Q3V6X7Y8Z9A0B1C2D3E4F"
const OTHER_SESSION = "payses_01JZ8Q3V6X7Y8Z9A0B1C2D3E4G"
const terms: SealedTerms = {
  sessionId: SESSION,
  currencyCode: "eur",
  amountMinor: "1050",
}
const sealer = new SessionSealer("a-session-secret-of-at-least-32-chars")

describe("SessionSealer.seal", () => {
  it("round-trips: the seal of the terms verifies", () => {
    expect(sealer.verifySeal(terms, sealer.seal(terms))).toBe(true)
  })

  it("does not depend on the case of the currency code", () => {
    expect(
      sealer.verifySeal({ ...terms, currencyCode: "EUR" }, sealer.seal(terms))
    ).toBe(true)
  })

  it.each<[string, Partial<SealedTerms>]>([
    ["another session", { sessionId: OTHER_SESSION }],
    ["another currency", { currencyCode: "usd" }],
    ["another amount", { amountMinor: "1051" }],
    ["a smaller amount", { amountMinor: "105" }],
    ["an amount in other units", { amountMinor: "10.50" }],
    // The separator must keep fields apart: "|" moved across the boundary.
    [
      "fields shifted across the separator",
      { sessionId: `${SESSION}|eur`, currencyCode: "1050" },
    ],
  ])("breaks for %s", (_, change) => {
    expect(sealer.verifySeal({ ...terms, ...change }, sealer.seal(terms))).toBe(
      false
    )
  })

  it.each([
    ["no seal", undefined],
    ["an empty seal", ""],
    ["a number", 12345],
    ["an object", { seal: "x" }],
    ["a truncated seal", sealer.seal(terms).slice(0, -1)],
    ["a longer seal", `${sealer.seal(terms)}A`],
    ["one character changed", flip(sealer.seal(terms))],
  ])("refuses %s", (_, seal) => {
    expect(sealer.verifySeal(terms, seal)).toBe(false)
  })

  it("depends on the secret", () => {
    const other = new SessionSealer("another-session-secret-of-32-chars!!")
    expect(other.seal(terms)).not.toBe(sealer.seal(terms))
    expect(other.verifySeal(terms, sealer.seal(terms))).toBe(false)
  })
})

describe("SessionSealer.fromOptions", () => {
  const base = { clientSecret: "client-secret", merchantId: "merchant" }

  it("uses sessionSecret when given, whatever the credentials", () => {
    const a = SessionSealer.fromOptions({
      ...base,
      sessionSecret: "x".repeat(32),
    })
    const b = SessionSealer.fromOptions({
      clientSecret: "rotated",
      merchantId: "merchant",
      sessionSecret: "x".repeat(32),
    })
    expect(b.verifySeal(terms, a.seal(terms))).toBe(true)
  })

  it.each([
    ["another client secret", { ...base, clientSecret: "other" }],
    ["another merchant", { ...base, merchantId: "other" }],
    // The derivation must not let the two fields run into each other.
    [
      "the same characters split differently",
      { clientSecret: "t-secret", merchantId: "merchantclien" },
    ],
  ])("derives a different key for %s", (_, options) => {
    const a = SessionSealer.fromOptions(base)
    const b = SessionSealer.fromOptions(options)
    expect(b.verifySeal(terms, a.seal(terms))).toBe(false)
  })
})

describe("SessionSealer.newReference", () => {
  it("is at most 46 characters for a Medusa session id (the sandbox allows 50)", () => {
    const reference = sealer.newReference(SESSION)
    expect(reference.length).toBeLessThanOrEqual(46)
    expect(reference).toMatch(/^[0-9A-Za-z_.-]+$/)
    expect(reference).not.toContain("payses_")
  })

  it("is fresh each time (section 8: a reference seen in 15 minutes is refused with 104)", () => {
    const references = new Set(
      Array.from({ length: 200 }, () => sealer.newReference(SESSION))
    )
    expect(references.size).toBe(200)
  })

  it("belongs to its own session only", () => {
    const reference = sealer.newReference(SESSION)
    expect(sealer.referenceBelongsTo(reference, SESSION)).toBe(true)
    expect(sealer.referenceBelongsTo(reference, OTHER_SESSION)).toBe(false)
    expect(
      sealer.referenceBelongsTo(sealer.newReference(OTHER_SESSION), SESSION)
    ).toBe(false)
  })

  it("belongs to nothing under another secret", () => {
    const other = new SessionSealer("another-session-secret-of-32-chars!!")
    expect(
      other.referenceBelongsTo(sealer.newReference(SESSION), SESSION)
    ).toBe(false)
  })

  const reference = sealer.newReference(SESSION)
  const [sessionPart, nonce, mac] = reference.split(".")
  const [, otherNonce, otherMac] = sealer.newReference(OTHER_SESSION).split(".")

  it.each([
    ["not a string", 42],
    ["empty", ""],
    ["the bare session id", SESSION],
    ["the compact session id", sessionPart],
    ["two parts", `${sessionPart}.${nonce}`],
    ["four parts", `${reference}.x`],
    ["another nonce with the same MAC", `${sessionPart}.${flip(nonce)}.${mac}`],
    ["an altered MAC", `${sessionPart}.${nonce}.${flip(mac)}`],
    ["a truncated MAC", `${sessionPart}.${nonce}.${mac.slice(0, -1)}`],
    ["an empty nonce", `${sessionPart}..${mac}`],
    ["an empty MAC", `${sessionPart}.${nonce}.`],
    [
      "the full session id in place of the compact one",
      `${SESSION}.${nonce}.${mac}`,
    ],
    [
      "another session's part with this MAC",
      `${OTHER_SESSION.slice(7)}.${nonce}.${mac}`,
    ],
    // The MAC covers the session id: made for one session, it is worth
    // nothing moved under another's id.
    [
      "another session's nonce and MAC under this session's id",
      `${sessionPart}.${otherNonce}.${otherMac}`,
    ],
    ["a guessed reference", `${sessionPart}.AAAAAA.AAAAAAAAAAAA`],
  ])("refuses a forged or altered reference: %s", (_, candidate) => {
    expect(sealer.referenceBelongsTo(candidate, SESSION)).toBe(false)
  })

  it("keeps a session id without the payses_ prefix whole", () => {
    const id = "custom_session"
    const own = sealer.newReference(id)
    expect(own.startsWith(`${id}.`)).toBe(true)
    expect(sealer.referenceBelongsTo(own, id)).toBe(true)
  })
})

/** The same string with its last character changed. */
function flip(value: string): string {
  const last = value.at(-1)
  return `${value.slice(0, -1)}${last === "A" ? "B" : "A"}`
}

describe("SessionSealer.verifiedHolds: the settlement's verified approval (#43)", () => {
  const session = { session_id: SESSION, currency_code: "eur", amount_minor: "1050", transaction_id: "7001" }
  const record = { transactionId: "7001", reasonCode: "100", cardType: "VISA", cardSuffix: "1000" }
  const at = 1_800_000_000_000
  const verified = sealer.sealVerified(session, record, at)

  it("holds for the session, terms and transaction it was made for, while fresh", () => {
    expect(verified).toEqual(expect.objectContaining({ transaction_id: "7001", reason_code: "100", at }))
    expect(sealer.verifiedHolds(session, verified, at)).toBe(true)
    expect(sealer.verifiedHolds(session, verified, at + VERIFIED_FRESH_MS)).toBe(true)
    // A few seconds of another instance's clock running behind.
    expect(sealer.verifiedHolds(session, verified, at - 5_000)).toBe(true)
  })

  it("does not hold once stale, or from further in the future than clocks differ", () => {
    expect(sealer.verifiedHolds(session, verified, at + VERIFIED_FRESH_MS + 1)).toBe(false)
    expect(sealer.verifiedHolds(session, verified, at - 5_001)).toBe(false)
  })

  it("does not hold when there is none, or the session has no transaction", () => {
    expect(sealer.verifiedHolds(session, null, at)).toBe(false)
    expect(sealer.verifiedHolds(session, undefined, at)).toBe(false)
    expect(sealer.verifiedHolds({ ...session, transaction_id: null }, verified, at)).toBe(false)
  })

  it.each<[string, Partial<typeof session>]>([
    ["another session", { session_id: OTHER_SESSION }],
    ["another currency", { currency_code: "usd" }],
    ["another amount", { amount_minor: "1051" }],
    ["another transaction", { transaction_id: "7002" }],
  ])("does not hold for %s", (_, change) => {
    expect(sealer.verifiedHolds({ ...session, ...change }, verified, at)).toBe(false)
  })

  it.each<[string, Partial<VerifiedApproval>]>([
    ["another transaction named", { transaction_id: "7002" }],
    ["another reason code", { reason_code: "480" }],
    ["another card type", { card_type: "MASTERCARD" }],
    ["another card", { card_suffix: "0000" }],
    ["another time", { at: at + 1 }],
    ["another mac", { mac: "x".repeat(22) }],
  ])("does not hold with %s than was sealed", (_, change) => {
    const altered = { ...verified, ...change }
    const named = { ...session, transaction_id: altered.transaction_id }
    expect(sealer.verifiedHolds(named, altered, at)).toBe(false)
  })

  it("is not made by another key", () => {
    const other = new SessionSealer("another-session-secret-of-32-chars!!")
    expect(other.verifiedHolds(session, verified, at)).toBe(false)
  })

  it("does not depend on the case of the currency code, as the seal does not", () => {
    expect(sealer.verifiedHolds({ ...session, currency_code: "EUR" }, verified, at)).toBe(true)
  })
})
