import {
  CardServiceSandbox,
  startSandbox,
  TEST_CARDS,
  TEST_INPUTS,
} from "../../src/sandbox"
import {
  answerChallenge,
  authorize,
  call,
  MerchantStub,
  orderForm,
  redirectParams,
  startMerchantStub,
  submitOrder,
} from "../helpers/sandbox-http"

const card = (reasonCode: string, cardType: string, threeDs: string) =>
  TEST_CARDS.find(
    (c) =>
      c.reasonCode === reasonCode &&
      c.cardType === cardType &&
      c.threeDs === threeDs
  )!

describe("POST /order/start (section 4.2)", () => {
  let sandbox: CardServiceSandbox
  let merchant: MerchantStub
  let code: string
  let clock = Date.UTC(2026, 5, 15, 12)

  beforeAll(async () => {
    sandbox = await startSandbox({ now: () => clock })
    merchant = await startMerchantStub()
    code = await authorize(sandbox)
  })
  afterAll(async () => {
    await sandbox.close()
    await merchant.close()
  })

  /** Submits and returns the redirect parameters plus the callback the merchant got. */
  async function pay(overrides: Record<string, string | undefined> = {}) {
    const before = merchant.received.length
    const answer = await submitOrder(
      sandbox,
      orderForm(sandbox, code, merchant, overrides)
    )
    expect(answer.status).toBe(303)
    const params = redirectParams(answer)
    const [callback] = (await merchant.waitForCallbacks(before + 1)).slice(
      before
    )
    return { answer, params, callback: callback.fields }
  }

  describe("accepts only a browser form submission", () => {
    it("refuses a server-side POST without Fetch Metadata (403, HTML)", async () => {
      const answer = await submitOrder(
        sandbox,
        orderForm(sandbox, code, merchant),
        {}
      )
      expect(answer.status).toBe(403)
      expect(answer.headers["content-type"]).toMatch(/^text\/html/)
      expect(answer.text).toContain("must be a form submitted by a web browser")
    })

    it("refuses a fetch() from a page (Sec-Fetch-Mode cors, dest empty)", async () => {
      const answer = await submitOrder(
        sandbox,
        orderForm(sandbox, code, merchant),
        {
          "sec-fetch-mode": "cors",
          "sec-fetch-dest": "empty",
        }
      )
      expect(answer.status).toBe(403)
    })

    it("refuses a form submitted into a frame (dest iframe)", async () => {
      const answer = await submitOrder(
        sandbox,
        orderForm(sandbox, code, merchant),
        {
          "sec-fetch-mode": "navigate",
          "sec-fetch-dest": "iframe",
        }
      )
      expect(answer.status).toBe(403)
    })

    it("refuses JSON (415, HTML)", async () => {
      const answer = await call(sandbox.url, "POST", "/order/start", {
        headers: {
          "content-type": "application/json",
          "sec-fetch-mode": "navigate",
          "sec-fetch-dest": "document",
        },
        body: JSON.stringify(orderForm(sandbox, code, merchant)),
      })
      expect(answer.status).toBe(415)
      expect(answer.text).toContain("application/x-www-form-urlencoded")
    })

    it("refuses GET (405)", async () => {
      const answer = await call(sandbox.url, "GET", "/order/start")
      expect(answer.status).toBe(405)
    })

    it("sends no callback for any refused request", async () => {
      const before = sandbox.callbacks().length
      await submitOrder(sandbox, orderForm(sandbox, code, merchant), {})
      expect(sandbox.callbacks().length).toBe(before)
    })
  })

  describe("delivery URLs (section 8 trailing slash)", () => {
    it.each([
      ["callbackLocation", "101", undefined],
      ["redirectUrl", "101", undefined],
      ["callbackLocation", "102", "http://127.0.0.1:1/callback"],
      ["redirectUrl", "102", "http://127.0.0.1:1/return"],
      ["redirectUrl", "102", "not a url/"],
      ["callbackLocation", "102", "ftp://127.0.0.1/cb/"],
      ["redirectUrl", "102", "http://127.0.0.1:1/return/?x=1"],
    ])(
      "answers an HTML page (400) when %s gives %s (%s)",
      async (field, reason, value) => {
        const before = sandbox.callbacks().length
        const answer = await submitOrder(
          sandbox,
          orderForm(sandbox, code, merchant, { [field]: value })
        )
        expect(answer.status).toBe(400)
        expect(answer.headers["content-type"]).toMatch(/^text\/html/)
        expect(answer.text).toContain(`<dd>${reason}</dd>`)
        expect(answer.text).toContain(field)
        expect(sandbox.callbacks().length).toBe(before)
      }
    )
  })

  describe("field validation: result delivered as REJECT (callback + 303)", () => {
    const required = [
      "merchantId",
      "merchantReferenceCode",
      "currency",
      "cardAccountNumber",
      "cardType",
      "cardExpirationMonth",
      "cardExpirationYear",
      "firstName",
      "lastName",
      "country",
      "city",
      "address",
      "postalCode",
      "phone",
      "email",
      "amount",
    ]
    it.each(required)("missing %s gives 101", async (field) => {
      const { params, callback } = await pay({ [field]: undefined })
      expect(params.get("reasonCode")).toBe("101")
      expect(params.get("decision")).toBe("REJECT")
      expect(params.target).toBe(merchant.redirectUrl)
      expect(callback).toMatchObject({ decision: "REJECT", reasonCode: "101" })
      expect(callback.transactionId).toBe(params.get("transactionId"))
    })

    it("an empty value counts as missing", async () => {
      expect((await pay({ email: "" })).params.get("reasonCode")).toBe("101")
    })

    it("state is required for US and CA", async () => {
      expect((await pay({ country: "US" })).params.get("reasonCode")).toBe(
        "101"
      )
      expect((await pay({ country: "CA" })).params.get("reasonCode")).toBe(
        "101"
      )
      expect(
        (await pay({ country: "US", state: "CA" })).params.get("reasonCode")
      ).toBe("100")
      expect(
        (await pay({ country: "CA", state: "QC" })).params.get("reasonCode")
      ).toBe("100")
    })

    it.each([
      ["merchantId", "another-merchant"],
      ["currency", "EUR"],
      ["currency", "97"],
      ["currency", "000"],
      ["currency", "999"],
      ["amount", "10.505"],
      ["amount", "0"],
      ["amount", "-1"],
      ["amount", "ten"],
      ["cardAccountNumber", "4000 0000 0000 1000"],
      ["cardAccountNumber", "40000"],
      ["cardExpirationMonth", "13"],
      ["cardExpirationMonth", "1"],
      ["cardExpirationMonth", "00"],
      ["cardExpirationYear", "29"],
      ["cardExpirationYear", "2x29"],
      ["country", "DEU"],
      ["country", "de"],
      ["country", "XX"],
      ["state", "BY"],
      ["email", "not-an-email"],
      ["phone", "call me"],
      ["postalCode", "!!!"],
      ["merchantReferenceCode", "x".repeat(51)],
      ["isWindowed", "yes"],
      ["isRedirect", "1"],
      ["isAuthenticate", "true"],
    ])("invalid %s (%s) gives 102", async (field, value) => {
      const { params } = await pay({ [field]: value })
      expect(params.get("reasonCode")).toBe("102")
    })

    it("state for a US state that does not exist gives 102", async () => {
      expect(
        (await pay({ country: "US", state: "ZZ" })).params.get("reasonCode")
      ).toBe("102")
    })

    it("amount digits follow the currency (JPY 0, KWD 3)", async () => {
      expect(
        (await pay({ currency: "392", amount: "1000" })).params.get(
          "reasonCode"
        )
      ).toBe("100")
      expect(
        (await pay({ currency: "392", amount: "1000.5" })).params.get(
          "reasonCode"
        )
      ).toBe("102")
      expect(
        (await pay({ currency: "414", amount: "1.234" })).params.get(
          "reasonCode"
        )
      ).toBe("100")
      expect(
        (await pay({ currency: "414", amount: "1.2345" })).params.get(
          "reasonCode"
        )
      ).toBe("102")
    })

    it("records rejected requests with their own transaction id", async () => {
      const { params } = await pay({ email: undefined })
      const record = sandbox.transaction(params.get("transactionId")!)
      expect(record).toMatchObject({
        step: "AUTHORIZATION",
        reasonCode: "101",
        status: "declined",
        cardPrefix: "400000",
        cardSuffix: "1000",
      })
    })
  })

  describe("card checks", () => {
    it("a number failing Luhn gives 231", async () => {
      const { params } = await pay({
        cardAccountNumber: TEST_INPUTS.invalidAccountNumber,
      })
      expect(params.get("reasonCode")).toBe("231")
    })

    it("a card type inconsistent with the number gives 240", async () => {
      const { params } = await pay({
        cardAccountNumber: TEST_INPUTS.inconsistentCardType.number,
        cardType: TEST_INPUTS.inconsistentCardType.cardType,
      })
      expect(params.get("reasonCode")).toBe("240")
      expect((await pay({ cardType: "AMEX" })).params.get("reasonCode")).toBe(
        "240"
      )
      expect(
        (
          await pay({ cardAccountNumber: "3530000000001001", cardType: "VISA" })
        ).params.get("reasonCode")
      ).toBe("240")
    })

    it("an expiry before the current month gives 202; the current month is still valid", async () => {
      expect(
        (
          await pay({ cardExpirationYear: "2026", cardExpirationMonth: "05" })
        ).params.get("reasonCode")
      ).toBe("202")
      expect(
        (
          await pay({ cardExpirationYear: "2026", cardExpirationMonth: "06" })
        ).params.get("reasonCode")
      ).toBe("100")
    })

    it("accepts MASTERCARD as a spelling of MASTER", async () => {
      const { params } = await pay({
        cardAccountNumber: card("100", "MASTER", "frictionless").number,
        cardType: "MASTERCARD",
      })
      expect(params.get("reasonCode")).toBe("100")
    })
  })

  describe("duplicate merchantReferenceCode (section 8, 104)", () => {
    it("declines a reference seen in the last 15 minutes, using the sandbox clock", async () => {
      const reference = `dup-${Date.now()}`
      expect(
        (await pay({ merchantReferenceCode: reference })).params.get(
          "reasonCode"
        )
      ).toBe("100")
      clock += 14 * 60 * 1000
      const second = await pay({ merchantReferenceCode: reference })
      expect(second.params.get("reasonCode")).toBe("104")
      expect(second.callback).toMatchObject({
        reasonCode: "104",
        merchantReferenceCode: reference,
      })
      clock += 60 * 1000
      expect(
        (await pay({ merchantReferenceCode: reference })).params.get(
          "reasonCode"
        )
      ).toBe("100")
    })

    it("counts a request that was declined for another reason", async () => {
      const reference = `dup-declined-${Date.now()}`
      await pay({
        merchantReferenceCode: reference,
        cardAccountNumber: card("203", "VISA", "frictionless").number,
      })
      expect(
        (await pay({ merchantReferenceCode: reference })).params.get(
          "reasonCode"
        )
      ).toBe("104")
    })
  })

  describe("outcomes of the test cards (isAuthenticate Y, frictionless)", () => {
    const frictionless = TEST_CARDS.filter((c) => c.threeDs === "frictionless")
    it.each(
      frictionless.map((c) => [c.number, c.cardType, c.reasonCode] as const)
    )("%s (%s) answers %s", async (number, cardType, reasonCode) => {
      const isRedirect = "Y"
      const { params, callback } = await pay({
        cardAccountNumber: number,
        cardType,
        isRedirect,
      })
      expect(params.get("reasonCode")).toBe(reasonCode)
      expect(callback.reasonCode).toBe(reasonCode)
      const accepted = reasonCode === "100" || reasonCode === "110"
      expect(callback.decision).toBe(accepted ? "ACCEPT" : "REJECT")
      expect(callback.originalTransactionId).toBe("")
      const record = sandbox.transaction(callback.transactionId)!
      expect(record.step).toBe("AUTHORIZATION")
      expect(record.approvalCode).toMatch(accepted ? /^\d{6}$/ : /^$/)
    })

    it("records the half amount for a partial approval (110)", async () => {
      const { callback } = await pay({
        cardAccountNumber: card("110", "VISA", "frictionless").number,
        amount: "10.01",
      })
      expect(sandbox.transaction(callback.transactionId)).toMatchObject({
        reasonCode: "110",
        status: "successful",
        amount: 5,
      })
    })

    it("maps statuses from the flags: 150 error, 203 declined", async () => {
      const failed = await pay({
        cardAccountNumber: card("150", "VISA", "frictionless").number,
      })
      expect(sandbox.transaction(failed.callback.transactionId)!.status).toBe(
        "error"
      )
      const declined = await pay({
        cardAccountNumber: card("203", "VISA", "frictionless").number,
      })
      expect(sandbox.transaction(declined.callback.transactionId)!.status).toBe(
        "declined"
      )
    })

    it("treats an unknown Luhn-valid number as approved", async () => {
      expect(
        (await pay({ cardAccountNumber: "4111111111111111" })).params.get(
          "reasonCode"
        )
      ).toBe("100")
    })
  })

  describe("defaults of the field table (section 2.2)", () => {
    it("isAuthenticate defaults to N: authentication only, with 3DS fields", async () => {
      const { callback } = await pay({ isAuthenticate: undefined })
      expect(callback).toMatchObject({ decision: "ACCEPT", reasonCode: "100" })
      expect(callback.eci).toBe("05")
      expect(sandbox.transaction(callback.transactionId)!.step).toBe(
        "AUTHENTICATION"
      )
    })

    it("isWindowed defaults to Y: a challenge opens a window (wait page, no redirect)", async () => {
      const answer = await submitOrder(
        sandbox,
        orderForm(sandbox, code, merchant, {
          isWindowed: undefined,
          cardAccountNumber: card("100", "VISA", "challenge").number,
        })
      )
      expect(answer.status).toBe(200)
      expect(answer.text).toContain('target="card-service-3ds-')
      expect(answer.text).toContain("window.open(")
    })

    it("isRedirect defaults to N: a failed authentication stays on the sandbox page", async () => {
      const answer = await submitOrder(
        sandbox,
        orderForm(sandbox, code, merchant, {
          isRedirect: undefined,
          cardAccountNumber: card("476", "VISA", "frictionless").number,
        })
      )
      expect(answer.status).toBe(200)
      expect(answer.text).toContain("3-D Secure authentication failed")
    })
  })

  describe("3DS", () => {
    async function startChallenge(
      overrides: Record<string, string | undefined>
    ) {
      const answer = await submitOrder(
        sandbox,
        orderForm(sandbox, code, merchant, {
          cardAccountNumber: card("100", "VISA", "challenge").number,
          ...overrides,
        })
      )
      expect(answer.status).toBe(303)
      const location = String(answer.headers.location)
      expect(location).toMatch(/^\/3ds\/challenge\/[A-Za-z0-9_-]+$/)
      return location
    }

    it("isWindowed N: moves the page to the challenge; Pass approves and redirects", async () => {
      const before = merchant.received.length
      const recorded = sandbox.transactions().length
      const challenge = await startChallenge({})
      // wire-choices: no record and no callback until the result is decided.
      expect(merchant.received.length).toBe(before)
      expect(sandbox.transactions().length).toBe(recorded)
      const done = await answerChallenge(sandbox, challenge, "pass")
      expect(done.status).toBe(303)
      const params = redirectParams(done)
      expect(params.target).toBe(merchant.redirectUrl)
      expect(params.get("reasonCode")).toBe("100")
      const [callback] = (await merchant.waitForCallbacks(before + 1)).slice(
        before
      )
      expect(callback.fields.transactionId).toBe(params.get("transactionId"))
    })

    it("the challenge cannot be answered twice", async () => {
      const challenge = await startChallenge({})
      await answerChallenge(sandbox, challenge, "pass")
      const again = await call(sandbox.url, "POST", challenge, {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "result=pass",
      })
      expect(again.status).toBe(409)
    })

    it("a declining card still declines after a passed challenge", async () => {
      const challenge = await startChallenge({
        cardAccountNumber: card("203", "VISA", "challenge").number,
      })
      const done = await answerChallenge(sandbox, challenge, "pass")
      expect(redirectParams(done).get("reasonCode")).toBe("203")
    })

    it("Fail with isRedirect Y gives 476 and still redirects", async () => {
      const challenge = await startChallenge({ isRedirect: "Y" })
      const done = await answerChallenge(sandbox, challenge, "fail")
      expect(done.status).toBe(303)
      expect(redirectParams(done).get("reasonCode")).toBe("476")
      expect(redirectParams(done).get("decision")).toBe("REJECT")
    })

    it("Fail with isRedirect N gives 476, stays on the sandbox page, and the callback is sent", async () => {
      const before = merchant.received.length
      const challenge = await startChallenge({ isRedirect: "N" })
      const done = await answerChallenge(sandbox, challenge, "fail")
      expect(done.status).toBe(200)
      expect(done.headers.location).toBeUndefined()
      expect(done.text).toContain("3-D Secure authentication failed")
      const [callback] = (await merchant.waitForCallbacks(before + 1)).slice(
        before
      )
      expect(callback.fields).toMatchObject({
        decision: "REJECT",
        reasonCode: "476",
      })
    })

    it("475 behaves as an authentication failure", async () => {
      const { params } = await pay({
        cardAccountNumber: card("475", "VISA", "frictionless").number,
        isRedirect: "Y",
      })
      expect(params.get("reasonCode")).toBe("475")
    })

    it("isAuthenticate N returns the VISA 3DS fields and no approval", async () => {
      const challenge = await startChallenge({ isAuthenticate: "N" })
      const before = merchant.received.length
      const done = await answerChallenge(sandbox, challenge, "pass")
      const [callback] = (await merchant.waitForCallbacks(before + 1)).slice(
        before
      )
      expect(redirectParams(done).get("reasonCode")).toBe("100")
      expect(Object.keys(callback.fields).sort()).toEqual(
        [
          "decision",
          "reasonCode",
          "transactionId",
          "originalTransactionId",
          "merchantReferenceCode",
          "xid",
          "eci",
          "commerceIndicator",
          "cavvAlgorithm",
          "paresStatus",
          "paSpecificationVersion",
          "directoryServerTransactionID",
          "cavv",
        ].sort()
      )
      expect(callback.fields).toMatchObject({
        paresStatus: "Y",
        eci: "05",
        commerceIndicator: "vbv",
      })
      expect(callback.fields.cavv).not.toBe("")
      const record = sandbox.transaction(callback.fields.transactionId)!
      expect(record.step).toBe("AUTHENTICATION")
      expect(record.approvalCode).toBe("")
    })

    it("isAuthenticate N with a MASTER card returns the UCAF fields and no cavv", async () => {
      const { callback } = await pay({
        isAuthenticate: "N",
        cardAccountNumber: card("100", "MASTER", "frictionless").number,
        cardType: "MASTER",
      })
      expect(callback).toMatchObject({
        eci: "02",
        ucafCollectionIndicator: "2",
      })
      expect(callback.ucafAuthenticationData).toEqual(expect.any(String))
      expect(callback).not.toHaveProperty("cavv")
    })

    it("isAuthenticate N ignores the card's authorization outcome", async () => {
      const { callback } = await pay({
        isAuthenticate: "N",
        cardAccountNumber: card("203", "VISA", "frictionless").number,
      })
      expect(callback.reasonCode).toBe("100")
    })

    it("a failed authentication with isAuthenticate N carries failure 3DS values", async () => {
      const challenge = await startChallenge({
        isAuthenticate: "N",
        isRedirect: "Y",
      })
      const before = merchant.received.length
      await answerChallenge(sandbox, challenge, "fail")
      const [callback] = (await merchant.waitForCallbacks(before + 1)).slice(
        before
      )
      expect(callback.fields).toMatchObject({
        reasonCode: "476",
        paresStatus: "N",
        eci: "07",
      })
    })

    it("isWindowed Y: wait page, popup page, done page that hands back to the opener", async () => {
      const answer = await submitOrder(
        sandbox,
        orderForm(sandbox, code, merchant, {
          isWindowed: "Y",
          cardAccountNumber: card("100", "JCB", "challenge").number,
          cardType: "JCB",
        })
      )
      expect(answer.status).toBe(200)
      const id = /\/3ds\/challenge\/([A-Za-z0-9_-]+)/.exec(answer.text)![1]
      const status = () => call(sandbox.url, "GET", `/3ds/session/${id}/status`)
      expect((await status()).json).toEqual({ state: "pending" })
      const waiting = await call(
        sandbox.url,
        "GET",
        `/3ds/session/${id}/continue`
      )
      expect(waiting.status).toBe(200)
      const done = await answerChallenge(
        sandbox,
        `/3ds/challenge/${id}`,
        "pass"
      )
      expect(done.status).toBe(200)
      expect(done.text).toContain("window.close()")
      expect(done.text).toContain(`/3ds/session/${id}/continue`)
      expect((await status()).json).toEqual({ state: "decided" })
      const moved = await call(
        sandbox.url,
        "GET",
        `/3ds/session/${id}/continue`
      )
      expect(moved.status).toBe(303)
      expect(redirectParams(moved).target).toBe(merchant.redirectUrl)
      expect(redirectParams(moved).get("reasonCode")).toBe("100")
    })

    it("an unknown or expired challenge session is a 404 page", async () => {
      expect(
        (await call(sandbox.url, "GET", "/3ds/challenge/nope")).status
      ).toBe(404)
      const challenge = await startChallenge({})
      clock += 31 * 60 * 1000
      expect((await call(sandbox.url, "GET", challenge)).status).toBe(404)
    })
  })

  it("never keeps the card number", async () => {
    code = await authorize(sandbox)
    await pay({ cardAccountNumber: "4111111111111111" })
    const everything = JSON.stringify([
      sandbox.transactions(),
      sandbox.callbacks(),
    ])
    expect(everything).not.toContain("4111111111111111")
    expect(everything).not.toContain(APPROVED_NUMBER_MARKER)
  })
})

// The approved VISA test card, to check that no full number leaks into records.
const APPROVED_NUMBER_MARKER = "4000000000001000"
