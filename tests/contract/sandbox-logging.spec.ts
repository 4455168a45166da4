import { startSandbox, TEST_CARDS } from "../../src/sandbox"
import {
  answerChallenge,
  authorize,
  callJson,
  orderForm,
  redirectParams,
  startMerchantStub,
  submitOrder,
} from "../helpers/sandbox-http"

describe("sandbox logs", () => {
  it("never contain a card number, the client secret or a verification code", async () => {
    const lines: string[] = []
    const log = (line: string) => lines.push(line)
    const sandbox = await startSandbox({
      logger: { debug: log, info: log, warn: log, error: log },
    })
    const merchant = await startMerchantStub()
    try {
      const code = await authorize(sandbox)
      const challenge = TEST_CARDS.find((c) => c.threeDs === "challenge")!
      const started = await submitOrder(
        sandbox,
        orderForm(sandbox, code, merchant, {
          cardAccountNumber: challenge.number,
        })
      )
      const done = await answerChallenge(
        sandbox,
        String(started.headers.location),
        "pass"
      )
      const auth = redirectParams(done).get("transactionId")!
      await submitOrder(
        sandbox,
        orderForm(sandbox, code, merchant, {
          cardAccountNumber: "4111111111111111",
        })
      )
      await submitOrder(
        sandbox,
        orderForm(sandbox, code, merchant, { authorization: "bad" })
      )
      await callJson(sandbox, code, "POST", "/capture", {
        merchantId: sandbox.credentials.merchantId,
        merchantReferenceCode: "log-1",
        currency: "978",
        amount: 1,
        email: "a@example.com",
        originalTransactionId: auth,
      })
      await callJson(
        sandbox,
        "wrong",
        "GET",
        `/payment/retrieve/sandbox-merchant/${auth}`
      )
      await merchant.waitForCallbacks(2)
      const all = lines.join("\n")
      expect(lines.length).toBeGreaterThan(5)
      for (const secret of [
        challenge.number,
        "4111111111111111",
        sandbox.credentials.clientSecret,
        code,
      ]) {
        expect(all).not.toContain(secret)
      }
    } finally {
      await sandbox.close()
      await merchant.close()
    }
  })
})
