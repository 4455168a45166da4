import { CardServiceSandbox, startSandbox, TEST_CARDS } from "../../src/sandbox"
import {
  authorize,
  call,
  callJson,
  MerchantStub,
  orderForm,
  redirectParams,
  startMerchantStub,
  submitOrder,
} from "../helpers/sandbox-http"

/**
 * How a review ends (issue 31; wire-choices "Reviews"): a 480 result is not a
 * verdict; later the same transaction's record shows 100 or 481 and the
 * result is delivered to the callback location like any other.
 */

const REVIEW_APPROVED = TEST_CARDS.find((card) => card.reviewVerdict === "approve")!.number
const REVIEW_REJECTED = TEST_CARDS.find((card) => card.reviewVerdict === "reject")!.number

describe("sandbox reviews (480 → 100 or 481)", () => {
  let sandbox: CardServiceSandbox
  let merchant: MerchantStub
  let code: string

  beforeAll(async () => {
    sandbox = await startSandbox()
    merchant = await startMerchantStub()
    code = await authorize(sandbox)
  })
  afterEach(() => {
    sandbox.reviewAfterMs = undefined
    sandbox.resetKnobs()
    sandbox.reset()
    merchant.received.length = 0
  })
  afterAll(async () => {
    await sandbox.close()
    await merchant.close()
  })

  const payWith = async (card: string) => {
    const fields = orderForm(sandbox, code, merchant, { cardAccountNumber: card })
    const answer = await submitOrder(sandbox, fields)
    const params = redirectParams(answer)
    return { transactionId: params.get("transactionId")!, reasonCode: params.get("reasonCode"), fields }
  }
  const retrieve = async (transactionId: string) =>
    (await callJson(sandbox, code, "GET", `/payment/retrieve/${sandbox.credentials.merchantId}/${transactionId}`)).json
  const callbacksOf = (transactionId: string) =>
    merchant.received.filter((callback) => callback.fields.transactionId === transactionId)

  it("answers 480 first, and the review stays open until concluded", async () => {
    const { transactionId, reasonCode } = await payWith(REVIEW_APPROVED)
    expect(reasonCode).toBe("480")
    expect(sandbox.openReviews().map((review) => review.transactionId)).toEqual([transactionId])
    expect(await retrieve(transactionId)).toMatchObject({ reasonCode: "480", approvalCode: "" })
    expect(callbacksOf(transactionId).map((c) => c.fields.reasonCode)).toEqual(["480"])
  })

  it("the control approves: the record shows 100 with an approval code and the verdict is called back", async () => {
    const { transactionId, fields } = await payWith(REVIEW_APPROVED)
    const answer = await call(sandbox.url, "POST", `/_sandbox/reviews/${transactionId}`, {
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ verdict: "approve" }),
    })
    expect(answer.status).toBe(200)
    expect(answer.json).toEqual({ review: { transactionId, reasonCode: "100" } })
    const record = await retrieve(transactionId)
    expect(record).toMatchObject({ reasonCode: "100", status: "successful", amount: Number(fields.amount) })
    expect(record.approvalCode).toMatch(/^\d{6}$/)
    expect(callbacksOf(transactionId).map((c) => [c.fields.decision, c.fields.reasonCode])).toEqual([
      ["REJECT", "480"],
      ["ACCEPT", "100"],
    ])
    expect(callbacksOf(transactionId)[1].fields.merchantReferenceCode).toBe(fields.merchantReferenceCode)
    expect(sandbox.openReviews()).toEqual([])
    // Concluded once: a second verdict finds no open review.
    const again = await call(sandbox.url, "POST", `/_sandbox/reviews/${transactionId}`)
    expect(again.status).toBe(404)
  })

  it("the control without a verdict takes the card's: the second review card is rejected (481)", async () => {
    const { transactionId } = await payWith(REVIEW_REJECTED)
    expect(await sandbox.concludeReview(transactionId)).toEqual({ transactionId, reasonCode: "481" })
    expect(await retrieve(transactionId)).toMatchObject({ reasonCode: "481", approvalCode: "" })
    expect(callbacksOf(transactionId).map((c) => c.fields.reasonCode)).toEqual(["480", "481"])
  })

  it("concludes on its own after reviewAfterMs, with the verdict's callback", async () => {
    sandbox.reviewAfterMs = 50
    const { transactionId } = await payWith(REVIEW_APPROVED)
    await sandbox.waitForCallbacks((all) => all.filter((d) => d.transactionId === transactionId).length >= 2, 3000)
    expect((await retrieve(transactionId)).reasonCode).toBe("100")
  })

  it("a dropped verdict callback leaves the verdict on the record for retrieve to find", async () => {
    const { transactionId, fields } = await payWith(REVIEW_APPROVED)
    sandbox.setCallbackKnobs({ drop: true }, fields.merchantReferenceCode)
    await sandbox.concludeReview(transactionId, "approve")
    expect(callbacksOf(transactionId)).toHaveLength(1)
    expect((await retrieve(transactionId)).reasonCode).toBe("100")
  })

  it("refuses a malformed verdict and changes nothing", async () => {
    const { transactionId } = await payWith(REVIEW_APPROVED)
    const answer = await call(sandbox.url, "POST", `/_sandbox/reviews/${transactionId}`, {
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ verdict: "maybe" }),
    })
    expect(answer.status).toBe(400)
    expect(sandbox.openReviews()).toHaveLength(1)
    const unknown = await call(sandbox.url, "POST", "/_sandbox/reviews/123", {
      headers: { "content-type": "application/json" },
      body: "{}",
    })
    expect(unknown.status).toBe(404)
  })
})
