import { preparePaymentAttempt } from "../../src/checkout/payment-attempt"
import { settlePayment, type SettleHint } from "../../src/checkout/settle-payment"
import { fakeMedusa, type FakeMedusa } from "../helpers/fake-medusa"
import { CARDS, startSession } from "../helpers/provider-sandbox"
import { sandboxForFile, type SandboxSession } from "../helpers/sandbox-sessions"

jest.mock("@medusajs/medusa/core-flows", () => require("../helpers/fake-medusa").fakeCoreFlows)

/**
 * What an order edit left owing (checkout/order-balance.ts): a session on the
 * order's own payment collection, with no cart, settled on the real
 * in-process sandbox and the fake Medusa. The integration spec
 * (integration-tests/http/order-edit-payment.spec.ts) runs the same through
 * Medusa's order edits and admin API.
 */

const file = sandboxForFile()

type Balance = SandboxSession & {
  medusa: FakeMedusa
  orderId: string
  collectionId: string
}

/** An order owing 12.50 EUR after an edit, with a card-service session on its collection. */
async function balance(options: { status?: string } = {}): Promise<Balance> {
  const medusa = fakeMedusa()
  const opened = await file.session(medusa, { amount: 12.5, currency_code: "eur" })
  const { orderId, collectionId } = medusa.addOrderBalance({
    providerId: opened.providerId,
    sessionId: opened.sessionId,
    data: opened.data as unknown as Record<string, unknown>,
    amount: 12.5,
    status: options.status,
    email: "ada@example.com",
  })
  return { ...opened, medusa, orderId, collectionId }
}

const hint = (transactionId?: string): SettleHint => ({ transactionId, source: "callback" })
/** A callback as the service sends it: with the reference of the session it paid. */
const result = (b: Balance, transactionId: string): SettleHint => ({
  transactionId,
  merchantReferenceCode: file.provider.newReference(b.sessionId),
  source: "callback",
})
const settle = (b: Balance, h: SettleHint) => settlePayment(b.medusa.container as never, b.sessionId, h)
const session = (b: Balance) => b.medusa.payments.session(b.sessionId)
const collection = (b: Balance) => b.medusa.payments.collections.get(b.collectionId)!
const serviceCalls = file.serviceCalls

/**
 * Paid, then `change`d before the service's result is settled: the result
 * fails with `code`, its approval is reversed and nothing is authorized.
 */
async function refusedOnceChanged(change: (b: Balance) => unknown, code: string) {
  const b = await balance()
  const tx = await b.pay()
  change(b)

  expect(await settle(b, result(b, tx))).toMatchObject({ kind: "failed", cartId: null, failure: { code } })
  expect(b.reversals(tx)).toHaveLength(1)
  expect(session(b).authorized_at).toBeFalsy()
  expect(b.medusa.payments.authorizations).toBe(0)
  return { b, tx }
}

describe("settling what an order edit left owing", () => {
  it("authorizes the session for the order, completes no cart and reverses nothing", async () => {
    const b = await balance()
    const tx = await b.pay()

    expect(await settle(b, hint(tx))).toEqual({ kind: "order", orderId: b.orderId, cartId: null, balance: true })
    expect(session(b)).toMatchObject({ status: "authorized" })
    expect(session(b).authorized_at).toBeTruthy()
    expect(session(b).data.transaction_id).toBe(tx)
    expect(collection(b).status).toBe("authorized")
    expect(b.medusa.carts.completions).toEqual([])
    expect(b.medusa.payments.authorizations).toBe(1)
    expect(b.reversals(tx)).toHaveLength(0)
  })

  it("answers a second copy of the result with the same order, authorizing once and asking the service nothing", async () => {
    const b = await balance()
    const tx = await b.pay()
    await settle(b, hint(tx))
    const before = serviceCalls()

    expect(await settle(b, hint(tx))).toEqual({ kind: "order", orderId: b.orderId, cartId: null, balance: true })
    expect(b.medusa.payments.authorizations).toBe(1)
    expect(serviceCalls()).toBe(before)
  })

  it("reverses a second tab's approval once the amount is paid", async () => {
    const b = await balance()
    const first = await b.pay()
    await settle(b, hint(first))
    const second = await b.pay()

    expect(await settle(b, hint(second))).toEqual({
      kind: "order",
      orderId: b.orderId,
      cartId: null,
      balance: true,
      secondPaymentReleased: true,
    })
    expect(b.reversals(second)).toHaveLength(1)
    expect(b.reversals(first)).toHaveLength(0)
    expect(session(b).data.transaction_id).toBe(first)
  })

  it.each([
    ["amount", { amount: 12 }],
    ["currency", { currency_code: "usd" }],
  ])("refuses sealed terms Medusa's record of the session no longer has (another %s): reversed, not authorized", async (_, change) => {
    await refusedOnceChanged((b) => Object.assign(session(b), change), "tampered")
  })

  it("reverses an approval of an amount the order no longer owes (edited again); a copy without the session's reference costs the service nothing", async () => {
    const { b, tx } = await refusedOnceChanged((b) => (collection(b).amount = 20), "balance_changed")
    const before = serviceCalls()
    expect(await settle(b, hint(tx))).toMatchObject({ kind: "failed", failure: { code: "balance_changed" } })
    expect(serviceCalls()).toBe(before)
  })

  it("has the sweep reverse an approval attached before the order was edited again, and fail the session", async () => {
    const b = await balance()
    const tx = await b.pay()
    await b.medusa.payments.updatePaymentSession({
      id: b.sessionId,
      amount: 12.5,
      currency_code: "eur",
      data: { ...b.data, transaction_id: tx },
    })
    collection(b).amount = 20

    expect(await settle(b, { source: "sweep" })).toMatchObject({ kind: "failed", failure: { code: "balance_changed" } })
    expect(b.reversals(tx)).toHaveLength(1)
    expect(session(b).data).toMatchObject({ transaction_id: tx, state: "failed", failure: { code: "balance_changed" } })
    expect(b.medusa.payments.authorizations).toBe(0)
  })

  it.each([
    ["the order was canceled", (b: Balance) => (b.medusa.orders.orders.get(b.orderId)!.status = "canceled")],
    ["the collection was canceled", (b: Balance) => (collection(b).status = "canceled")],
  ])("reverses an approval when %s", async (_, close) => {
    await refusedOnceChanged(close, "balance_closed")
  })

  it("fails a declined payment without authorizing; the link may be paid again", async () => {
    const b = await balance()
    const declined = await b.pay(CARDS.declined)

    expect(await settle(b, hint(declined))).toMatchObject({ kind: "failed", cartId: null })
    expect(session(b).authorized_at).toBeFalsy()
    const approved = await b.pay()
    expect(await settle(b, hint(approved))).toEqual({ kind: "order", orderId: b.orderId, cartId: null, balance: true })
  })

  it("keeps a payment marked for review (480) waiting, with no order placed on hold and nothing authorized", async () => {
    const b = await balance()
    const tx = await b.pay(CARDS.review)

    expect(await settle(b, hint(tx))).toEqual({ kind: "pending", cartId: null })
    expect(session(b).status).toBe("pending")
    expect(b.medusa.payments.authorizations).toBe(0)
  })

  it("authorizes a payment the review approved when the sweep asks for the verdict", async () => {
    const b = await balance()
    const tx = await b.pay(CARDS.review)
    expect(await settle(b, hint(tx))).toEqual({ kind: "pending", cartId: null })
    await file.env.sandbox.concludeReview(tx, "approve")

    expect(await settle(b, { source: "sweep" })).toEqual({ kind: "order", orderId: b.orderId, cartId: null, balance: true })
    expect(session(b).status).toBe("authorized")
    expect(b.reversals(tx)).toHaveLength(0)
  })

  it("still fails a session of a collection that belongs to neither a cart nor an order", async () => {
    const b = await balance()
    const tx = await b.pay()
    b.medusa.carts.orderCollections.delete(b.collectionId)

    expect(await settle(b, hint(tx))).toMatchObject({ kind: "failed", failure: { code: "no_cart" } })
    expect(b.medusa.payments.authorizations).toBe(0)
  })
})

describe("the hosted page of what an order edit left owing", () => {
  const attempt = (b: Balance) => preparePaymentAttempt(b.medusa.container as never, b.sessionId)

  it("is ready, with the order's e-mail in the form", async () => {
    const b = await balance()
    const ready = await attempt(b)
    expect(ready).toMatchObject({ kind: "ready", sessionId: b.sessionId })
    expect(ready.kind === "ready" && ready.fields.email).toBe("ada@example.com")
    expect(ready.kind === "ready" && ready.data.amount).toBe(12.5)
  })

  it.each([
    ["Medusa records another amount for the session", (b: Balance) => (session(b).amount = 12), "tampered"],
    ["Medusa records another currency for the session", (b: Balance) => (session(b).currency_code = "usd"), "tampered"],
    ["the order owes another amount now", (b: Balance) => (collection(b).amount = 20), "tampered"],
    ["the collection was canceled", (b: Balance) => (collection(b).status = "canceled"), "unknown"],
    ["the order was canceled", (b: Balance) => (b.medusa.orders.orders.get(b.orderId)!.status = "canceled"), "unknown"],
  ])("refuses when %s, before asking the service anything", async (_, change, kind) => {
    const b = await balance()
    change(b)
    const before = serviceCalls()
    expect(await attempt(b)).toMatchObject({ kind })
    expect(serviceCalls()).toBe(before)
  })

  it("refuses data sealed for other terms than Medusa records for the session, though the order owes those", async () => {
    const b = await balance()
    // Validly sealed for this very session, at 12.00: Medusa's record (and
    // the collection) say 12.50.
    session(b).data = (await startSession(file.provider, { amount: 12, currency_code: "eur" }, b.sessionId)) as never
    expect(await attempt(b)).toMatchObject({ kind: "tampered" })
  })

  it("says paid once the session is authorized, naming the order", async () => {
    const b = await balance()
    await settle(b, hint(await b.pay()))
    expect(await attempt(b)).toMatchObject({ kind: "finished", orderId: b.orderId })
  })

  it("refuses a cart's session whose sealed terms Medusa's record no longer has, too", async () => {
    const medusa = fakeMedusa()
    const { providerId, sessionId, data } = await file.session(medusa)
    medusa.addCart({ providerId, sessionId, data: data as unknown as Record<string, unknown>, amount: 25 })
    expect(await preparePaymentAttempt(medusa.container as never, sessionId)).toMatchObject({ kind: "tampered" })
  })
})
