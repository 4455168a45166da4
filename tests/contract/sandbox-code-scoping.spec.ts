import { CardServiceSandbox, startSandbox } from "../../src/sandbox"
import {
  authorize,
  callJson,
  MerchantStub,
  orderForm,
  redirectParams,
  startMerchantStub,
  submitOrder,
} from "../helpers/sandbox-http"

/**
 * The two kinds of card service a form's verification code may meet
 * (docs/sandbox.md, "Code scoping"): a permissive one, where the code the
 * browser saw opens every JSON endpoint, and a scoped one, where a code once
 * posted in a form is good for /order/start only.
 */
describe("sandbox code scoping", () => {
  let sandbox: CardServiceSandbox
  let merchant: MerchantStub

  beforeAll(async () => {
    sandbox = await startSandbox({ codeScoping: "scoped" })
    merchant = await startMerchantStub()
  })
  afterAll(async () => {
    await sandbox.close()
    await merchant.close()
  })
  afterEach(() => {
    sandbox.codeScoping = "scoped"
    sandbox.reset()
  })

  /** Pays one form with `formCode`; returns the approval's transactionId. */
  async function payWith(formCode: string): Promise<string> {
    const answer = await submitOrder(
      sandbox,
      orderForm(sandbox, formCode, merchant)
    )
    expect(answer.status).toBe(303)
    return redirectParams(answer).get("transactionId") as string
  }

  const followOnBody = (transactionId: string) => ({
    merchantId: sandbox.credentials.merchantId,
    merchantReferenceCode: `ref-${transactionId.slice(-8)}`,
    currency: "978",
    amount: 10.5,
    email: "ada@example.com",
    originalTransactionId: transactionId,
  })

  it("scoped: a code posted in a form pays further forms but opens no JSON endpoint", async () => {
    const formCode = await authorize(sandbox)
    const approval = await payWith(formCode)
    const second = await payWith(formCode)

    const answers = await Promise.all([
      callJson(
        sandbox,
        formCode,
        "GET",
        `/payment/retrieve/${sandbox.credentials.merchantId}/${approval}`
      ),
      callJson(sandbox, formCode, "POST", "/capture", followOnBody(approval)),
      callJson(sandbox, formCode, "POST", "/reverse", followOnBody(second)),
      callJson(sandbox, formCode, "POST", "/refund", followOnBody(approval)),
      callJson(sandbox, formCode, "POST", "/void", {
        ...followOnBody(approval),
        amount: "10.50",
        transactionId: approval,
        type: "CAPTURE",
      }),
    ])

    expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 401, 401])
    // Refused exactly as a bad credential is (wire-choices Credentials).
    expect(answers[0].json.error).toBe("invalid_authorization")
    expect(
      sandbox.transactions().filter((r) => r.step !== "AUTHORIZATION")
    ).toEqual([])
    expect(sandbox.formCodeUses().map((u) => u.refused)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ])
  })

  it("scoped: a code the merchant keeps to itself still opens every JSON endpoint", async () => {
    const formCode = await authorize(sandbox)
    const ownCode = await authorize(sandbox)
    const approval = await payWith(formCode)

    const captured = await callJson(
      sandbox,
      ownCode,
      "POST",
      "/capture",
      followOnBody(approval)
    )

    expect(captured.status).toBe(200)
    expect(captured.json.decision).toBe("ACCEPT")
    expect(sandbox.formCodeUses()).toEqual([])
  })

  it("permissive: a code posted in a form opens the JSON endpoints, and each use is noted", async () => {
    sandbox.codeScoping = "permissive"
    const formCode = await authorize(sandbox)
    const approval = await payWith(formCode)

    const reversed = await callJson(
      sandbox,
      formCode,
      "POST",
      "/reverse",
      followOnBody(approval)
    )

    expect(reversed.status).toBe(200)
    expect(reversed.json.decision).toBe("ACCEPT")
    expect(sandbox.formCodeUses()).toEqual([
      { path: "/reverse", refused: false },
    ])
  })

  it("counts the requests of each endpoint until reset", async () => {
    const code = await authorize(sandbox)
    const approval = await payWith(code)
    await callJson(
      sandbox,
      await authorize(sandbox),
      "GET",
      `/payment/retrieve/${sandbox.credentials.merchantId}/${approval}`
    )
    await callJson(
      sandbox,
      await authorize(sandbox),
      "GET",
      `/payment/retrieve/${sandbox.credentials.merchantId}/nope`
    )

    expect(sandbox.requestCounts()).toEqual({
      "GET /authorize": 3,
      "POST /order/start": 1,
      "GET /payment/retrieve": 2,
    })
    sandbox.reset()
    expect(sandbox.requestCounts()).toEqual({})
  })

  it("defaults to permissive", async () => {
    const plain = await startSandbox()
    try {
      expect(plain.codeScoping).toBe("permissive")
    } finally {
      await plain.close()
    }
  })
})
