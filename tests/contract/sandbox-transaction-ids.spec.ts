import { startSandbox, type CardServiceSandbox } from "../../src/sandbox"
import { newTransactionId } from "../../src/sandbox/transaction-store"
import { TRANSACTION_ID } from "../../src/lib/identifier-limits"

/**
 * Transaction ids carry at least 128 bits of randomness, as a processor's
 * do (issue 13: ids made of a timestamp and a sequence were enumerated).
 */
describe("sandbox transaction ids", () => {
  let sandbox: CardServiceSandbox

  beforeAll(async () => {
    sandbox = await startSandbox()
  })
  afterAll(async () => {
    await sandbox.close()
  })

  it("are numeric, 52 digits, and within the plugin's transactionId limit", () => {
    const { transactionId } = sandbox.seedAuthorization()

    expect(transactionId).toMatch(/^\d{52}$/)
    expect(transactionId).toMatch(TRANSACTION_ID)
  })

  it("start with the creation time in milliseconds, so they still sort by creation", () => {
    expect(newTransactionId(1_764_000_000_123).slice(0, 13)).toBe(
      "1764000000123"
    )
  })

  it("are unique, and the next is not predictable from the one before", () => {
    const ids = Array.from(
      { length: 2000 },
      () => sandbox.seedAuthorization().transactionId
    )
    const randomParts = ids.map((id) => BigInt(id.slice(13)))
    const steps = randomParts.slice(1).map((part, i) => part - randomParts[i])

    expect(new Set(ids).size).toBe(ids.length)
    // A counter steps by a constant; these steps are all different.
    expect(new Set(steps.map(String)).size).toBe(steps.length)
    // Spread over the whole 128-bit range: the top bit is set about half the time.
    const high = randomParts.filter((part) => part >= 1n << 127n).length
    expect(high).toBeGreaterThan(800)
    expect(high).toBeLessThan(1200)
    expect(randomParts.every((part) => part < 1n << 128n)).toBe(true)
  })

  it("of ids made in the same millisecond, differ in their random part", () => {
    const a = newTransactionId(1_764_000_000_000)
    const b = newTransactionId(1_764_000_000_000)

    expect(a.slice(0, 13)).toBe(b.slice(0, 13))
    expect(a).not.toBe(b)
  })
})
