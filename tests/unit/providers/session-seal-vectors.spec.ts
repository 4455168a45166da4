import { createHmac } from "node:crypto"
import { SessionSealer } from "../../../src/providers/card-service/session-seal"

// Seals stored in sessions must keep verifying across restarts and releases:
// the key derivation and the sealed message are fixed. The expected values
// are computed here from the documented construction, not taken from the code.
const secret = "a-session-secret-of-at-least-32-chars"
const key = createHmac("sha256", "medusa-payment-card-service/seal/v1").update(secret).digest()
const mac = (message: string, length: number) =>
  createHmac("sha256", key).update(message).digest("base64url").slice(0, length)

describe("a session seal made by an earlier instance", () => {
  const sealer = new SessionSealer(secret)
  const terms = { sessionId: "payses_01JZ8Q3V6X7Y8Z9A0B1C2D3E4F", currencyCode: "EUR", amountMinor: "1050" }

  it("verifies: key from the secret under the v1 label, the currency in lower case", () => {
    const stored = mac("terms|payses_01JZ8Q3V6X7Y8Z9A0B1C2D3E4F|eur|1050", 22)
    expect(sealer.seal(terms)).toBe(stored)
    expect(sealer.verifySeal(terms, stored)).toBe(true)
  })

  it("verifies an attempt reference handed out before", () => {
    const reference = `01JZ8Q3V6X7Y8Z9A0B1C2D3E4F.AbCd12.${mac("reference|payses_01JZ8Q3V6X7Y8Z9A0B1C2D3E4F|AbCd12", 12)}`
    expect(sealer.referenceBelongsTo(reference, terms.sessionId)).toBe(true)
  })
})
