import {
  attemptReferenceParts,
  followOnReference,
} from "../../../src/providers/card-service/merchant-reference"

const SESSION = "payses_01JABCDEFGHJKMNPQRSTVWXYZ0"

describe("followOnReference", () => {
  it.each([
    ["Medusa's capture id wins over the session", "capt_01J0", "capt_01J0"],
    ["the session id stands in without a key", undefined, SESSION],
    [
      "a long key is cut to the sandbox's 50 characters",
      "k".repeat(80),
      "k".repeat(50),
    ],
  ])("%s", (_, key, expected) => {
    expect(followOnReference(SESSION, key)).toBe(expected)
  })
})

describe("attemptReferenceParts", () => {
  it("splits a reference that names the session (by its ULID) into nonce and MAC", () => {
    expect(
      attemptReferenceParts(
        "01JABCDEFGHJKMNPQRSTVWXYZ0.n0nce1.mac123456789",
        SESSION
      )
    ).toEqual({ nonce: "n0nce1", mac: "mac123456789" })
  })

  it.each([
    ["not a string", 7],
    ["another session", "01JZZZZZZZZZZZZZZZZZZZZZZZ.n0nce1.mac123456789"],
    ["the full session id", `${SESSION}.n0nce1.mac123456789`],
    ["no MAC", "01JABCDEFGHJKMNPQRSTVWXYZ0.n0nce1."],
  ])("has no parts for %s", (_, reference) => {
    expect(attemptReferenceParts(reference, SESSION)).toBeNull()
  })
})
