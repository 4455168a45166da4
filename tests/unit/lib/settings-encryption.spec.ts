import { randomBytes } from "node:crypto"
import {
  openSecret,
  sealSecret,
  settingsKeyFromEnv,
} from "../../../src/lib/settings-encryption"

describe("settings encryption (AES-256-GCM)", () => {
  const key = randomBytes(32)

  it("opens what it sealed, and the sealed form holds no clear text", () => {
    const sealed = sealSecret(key, "clientSecret", "very-secret-value")
    expect(JSON.stringify(sealed)).not.toContain("very-secret-value")
    expect(Buffer.from(sealed.iv, "base64")).toHaveLength(12)
    expect(Buffer.from(sealed.tag, "base64")).toHaveLength(16)
    expect(openSecret(key, "clientSecret", sealed)).toBe("very-secret-value")
  })

  it("uses a fresh IV for every write", () => {
    const ivs = new Set(
      Array.from({ length: 20 }, () => sealSecret(key, "clientSecret", "same").iv)
    )
    expect(ivs.size).toBe(20)
  })

  it.each([
    ["another key", (s: any) => s, randomBytes(32), "clientSecret"],
    ["another field", (s: any) => s, key, "clientCode"],
    [
      "a changed byte",
      (s: any) => ({ ...s, data: Buffer.from([Buffer.from(s.data, "base64")[0] ^ 1, ...Buffer.from(s.data, "base64").subarray(1)]).toString("base64") }),
      key,
      "clientSecret",
    ],
  ])("refuses to open under %s, without saying what it holds", (_, alter, openKey, label) => {
    const sealed = alter(sealSecret(key, "clientSecret", "very-secret-value"))
    expect(() => openSecret(openKey as Buffer, label as string, sealed)).toThrow(
      /does not open with CARD_SERVICE_SETTINGS_KEY/
    )
  })

  it.each([
    ["hex", randomBytes(32).toString("hex")],
    ["base64", randomBytes(32).toString("base64")],
  ])("reads a 32-byte key given as %s", (_, value) => {
    expect(settingsKeyFromEnv({ CARD_SERVICE_SETTINGS_KEY: value })).toHaveLength(32)
  })

  it("treats an empty key as unset and refuses a short one, naming the variable", () => {
    expect(settingsKeyFromEnv({ CARD_SERVICE_SETTINGS_KEY: " " })).toBeNull()
    expect(() =>
      settingsKeyFromEnv({ CARD_SERVICE_SETTINGS_KEY: randomBytes(16).toString("base64") })
    ).toThrow(/CARD_SERVICE_SETTINGS_KEY must be 32 random bytes/)
  })
})
