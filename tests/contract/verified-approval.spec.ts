import { attachTransaction as settle } from "../../src/checkout/attach-transaction"
import type { CardServiceSessionData } from "../../src/providers/card-service/session-data"
import { VERIFIED_FRESH_MS } from "../../src/providers/card-service/session-seal"
import {
  authorize,
  type Card,
  CARDS,
  payInBrowser,
  providerOnSandbox,
  startSession,
  type ProviderEnv,
} from "../helpers/provider-sandbox"

/**
 * Issue 43: a checkout asks the service once. The settlement's retrieve
 * (callback, return or sweep: attach-transaction.ts) leaves a sealed copy
 * of what it verified in the session data, and authorizePayment, when
 * Medusa completes the cart, takes it instead of retrieving again. The
 * data is storefront-writable: whatever the copy does not hold for is
 * asked of the service, as before.
 */

jest.setTimeout(30_000)

let env: ProviderEnv

beforeAll(async () => {
  env = await providerOnSandbox()
})
afterAll(async () => {
  await env.close()
})
afterEach(() => jest.restoreAllMocks())

/** A session the browser paid with `card`, settled as the callback route settles it. */
async function settled(card: Card = CARDS.approved) {
  const provider = env.provider()
  const session = await startSession(provider)
  const transactionId = await payInBrowser(env.sandbox, provider, session, card)
  const attached = await settle(provider, session, transactionId, "shopper@example.com")
  if (attached.kind !== "attached") throw new Error(`not attached: ${attached.reason}`)
  return { provider, transactionId, data: attached.data }
}

const retrieves = (transactionId: string) => env.sandbox.retrievesOf(transactionId).length

describe("the settlement's verified approval", () => {
  it("takes the cart to authorized with the settlement's one retrieve: authorizePayment asks nothing", async () => {
    const { provider, transactionId, data } = await settled()
    expect(retrieves(transactionId)).toBe(1)
    expect(data.verified).toEqual(expect.objectContaining({ transaction_id: transactionId, reason_code: "100" }))

    const { status, data: authorized } = await authorize(provider, data)

    expect(status).toBe("authorized")
    expect(retrieves(transactionId)).toBe(1)
    expect(authorized).toMatchObject({
      state: "authorized",
      transaction_id: transactionId,
      card: { type: "VISA", suffix: "1000" },
      verified: null,
    })
    expect(authorized.transactions).toEqual([
      expect.objectContaining({ transaction_id: transactionId, operation: "authorization", reason_code: "100", amount: 30 }),
    ])
    // Spent: Medusa's record of the payment carries none forward, so a later call asks.
    await authorize(provider, authorized)
    expect(retrieves(transactionId)).toBe(2)
  })

  it("is not made for a decline: authorizePayment asks the service, as before", async () => {
    const { provider, transactionId, data } = await settled(CARDS.declined)
    expect(data.verified).toBeNull()
    const { status } = await authorize(provider, data)
    expect(status).toBe("pending")
    expect(retrieves(transactionId)).toBe(2)
  })

  const altered: Array<[string, (data: CardServiceSessionData) => CardServiceSessionData]> = [
    ["its mac forged", (d) => ({ ...d, verified: { ...d.verified!, mac: "A".repeat(d.verified!.mac.length) } })],
    ["a reason code it did not verify", (d) => ({ ...d, verified: { ...d.verified!, reason_code: "101" } })],
    ["another card", (d) => ({ ...d, verified: { ...d.verified!, card_suffix: "4242" } })],
    ["its time moved on (to look fresher)", (d) => ({ ...d, verified: { ...d.verified!, at: d.verified!.at + 1 } })],
  ]

  it.each(altered)("with %s, is set aside and the service asked", async (_, alter) => {
    const { provider, transactionId, data } = await settled()
    const { status, data: authorized } = await authorize(provider, alter(data))
    // The service's own record, asked again, decides: this payment is approved.
    expect(status).toBe("authorized")
    expect(retrieves(transactionId)).toBe(2)
    expect(authorized.card).toEqual({ type: "VISA", suffix: "1000" })
  })

  it("once stale (older than a minute: a completion that waited), is set aside and the service asked", async () => {
    const { provider, transactionId, data } = await settled()
    const now = Date.now()
    jest.spyOn(Date, "now").mockReturnValue(now + VERIFIED_FRESH_MS + 1_000)
    expect((await authorize(provider, data)).status).toBe("authorized")
    expect(retrieves(transactionId)).toBe(2)
  })

  it("carried to another session with its transaction, does not pay that session: the service's record refuses it there", async () => {
    const paid = await settled()
    const provider = env.provider()
    const other = await startSession(provider)
    // A storefront copies the paid session's transaction and verified copy into its own session's data.
    const forged = { ...other, transaction_id: paid.transactionId, verified: paid.data.verified }

    const { status, data } = await authorize(provider, forged)

    expect(status).toBe("error")
    expect(data.failure?.code).toBe("foreign_transaction")
    expect(retrieves(paid.transactionId)).toBe(2)
  })

  it("naming another transaction than the session's, is set aside", async () => {
    const first = await settled()
    const second = await settled()
    // The first session's copy on the second session's data (the same session's terms would be needed too).
    const mixed = { ...second.data, verified: first.data.verified }
    expect((await authorize(second.provider, mixed)).status).toBe("authorized")
    expect(retrieves(second.transactionId)).toBe(2)
  })

  /** updatePayment as Medusa calls it when the cart's total is `amount`. */
  const renewed = async (amount: number) => {
    const { provider, data } = await settled()
    const result = await provider.updatePayment({
      amount,
      currency_code: "eur",
      data: data as any,
      context: { idempotency_key: data.session_id },
    } as any)
    return { before: data, after: result.data as unknown as CardServiceSessionData }
  }

  it("does not survive a change of the cart's amount: the renewed session has none", async () => {
    const { after } = await renewed(31)
    expect(after.verified ?? null).toBeNull()
    expect(after.transaction_id).toBeNull()
  })

  it("survives the same terms' renewal (the settlement's write through updatePayment)", async () => {
    const { before, after } = await renewed(30)
    expect(after.verified).toEqual(before.verified)
  })
})
