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

const SETTLEMENT_MS = 60_000

describe("follow-ons with state: reverse, capture, refund, void, retrieve (4.3-4.5)", () => {
  let sandbox: CardServiceSandbox
  let merchant: MerchantStub
  let code: string

  beforeAll(async () => {
    // A still clock: settlement moves only when a test advances it.
    sandbox = await startSandbox({
      settlementMs: SETTLEMENT_MS,
      now: () => Date.UTC(2026, 2, 1),
    })
    merchant = await startMerchantStub()
    code = await authorize(sandbox)
  })
  afterAll(async () => {
    await sandbox.close()
    await merchant.close()
  })

  async function authorizePayment(
    overrides: Record<string, string> = {}
  ): Promise<string> {
    const answer = await submitOrder(
      sandbox,
      orderForm(sandbox, code, merchant, overrides)
    )
    expect(answer.status).toBe(303)
    return redirectParams(answer).get("transactionId")!
  }

  const followOn = (
    path: string,
    originalTransactionId: string,
    amount: unknown,
    extra: Record<string, unknown> = {}
  ) =>
    callJson(sandbox, code, "POST", path, {
      merchantId: sandbox.credentials.merchantId,
      merchantReferenceCode: "follow-on-1",
      currency: "978",
      amount,
      email: "ada@example.com",
      originalTransactionId,
      ...extra,
    })

  const voidOf = (
    transactionId: string,
    type: string,
    amount: string,
    extra = {}
  ) =>
    callJson(sandbox, code, "POST", "/void", {
      merchantId: sandbox.credentials.merchantId,
      merchantReferenceCode: "void-1",
      currency: "978",
      amount,
      email: "ada@example.com",
      transactionId,
      type,
      ...extra,
    })

  const retrieve = (id: string) =>
    callJson(
      sandbox,
      code,
      "GET",
      `/payment/retrieve/${sandbox.credentials.merchantId}/${id}`
    )

  async function expectResult(
    answer: Promise<{ status: number; json: any }>,
    reasonCode: string,
    originalTransactionId?: string
  ) {
    const { status, json } = await answer
    expect(status).toBe(200)
    expect(Object.keys(json).sort()).toEqual(
      [
        "decision",
        "reasonCode",
        "transactionId",
        "originalTransactionId",
      ].sort()
    )
    expect(json.reasonCode).toBe(reasonCode)
    expect(json.decision).toBe(reasonCode === "100" ? "ACCEPT" : "REJECT")
    expect(json.transactionId).toMatch(/^\d+$/)
    if (originalTransactionId !== undefined) {
      expect(json.originalTransactionId).toBe(originalTransactionId)
    }
    return json
  }

  describe("capture", () => {
    it("captures once, partially if asked; a second capture is 242", async () => {
      const auth = await authorizePayment()
      const capture = await expectResult(
        followOn("/capture", auth, 8),
        "100",
        auth
      )
      expect((await retrieve(capture.transactionId)).json).toMatchObject({
        step: "CAPTURE",
        captureStatus: "PENDING",
        amount: 8,
        originalTransactionId: auth,
      })
      await expectResult(followOn("/capture", auth, 1), "242")
    })

    it("never captures more than authorized (235)", async () => {
      const auth = await authorizePayment()
      await expectResult(followOn("/capture", auth, 10.51), "235")
      await expectResult(followOn("/capture", auth, 10.5), "100")
    })

    it("a partial approval (110) can be captured up to the approved amount", async () => {
      const partial = TEST_CARDS.find(
        (c) => c.reasonCode === "110" && c.cardType === "VISA"
      )!
      const auth = await authorizePayment({
        cardAccountNumber: partial.number,
        amount: "20.00",
      })
      await expectResult(followOn("/capture", auth, 10.01), "235")
      await expectResult(followOn("/capture", auth, 10), "100")
    })

    it("a declined or authentication-only request has no authorization to capture (242)", async () => {
      const declined = TEST_CARDS.find((c) => c.reasonCode === "203")!
      await expectResult(
        followOn(
          "/capture",
          await authorizePayment({ cardAccountNumber: declined.number }),
          1
        ),
        "242"
      )
      await expectResult(
        followOn(
          "/capture",
          await authorizePayment({ isAuthenticate: "N" }),
          1
        ),
        "242"
      )
    })

    it("an unknown originalTransactionId is 241, and so is a capture of a capture", async () => {
      await expectResult(followOn("/capture", "999999", 1), "241", "999999")
      const auth = await authorizePayment()
      const capture = await expectResult(followOn("/capture", auth, 1), "100")
      await expectResult(followOn("/capture", capture.transactionId, 1), "241")
    })

    it("a capture of a reversed authorization is 237", async () => {
      const auth = await authorizePayment()
      await expectResult(followOn("/reverse", auth, 10.5), "100")
      await expectResult(followOn("/capture", auth, 10.5), "237")
    })

    it("records rejected follow-ons with their own transaction id", async () => {
      const auth = await authorizePayment()
      const rejected = await expectResult(followOn("/capture", auth, 99), "235")
      expect((await retrieve(rejected.transactionId)).json).toMatchObject({
        step: "CAPTURE",
        reasonCode: "235",
        status: "declined",
        amount: 99,
      })
      expect((await retrieve(rejected.transactionId)).json).not.toHaveProperty(
        "captureStatus"
      )
    })
  })

  describe("settlement (section 3, wire-choices)", () => {
    it("moves an accepted capture from PENDING to TRANSMITTED after settlementMs", async () => {
      const auth = await authorizePayment()
      const capture = await expectResult(
        followOn("/capture", auth, 10.5),
        "100"
      )
      expect((await retrieve(capture.transactionId)).json.captureStatus).toBe(
        "PENDING"
      )
      sandbox.advanceClock(SETTLEMENT_MS - 1)
      expect((await retrieve(capture.transactionId)).json.captureStatus).toBe(
        "PENDING"
      )
      sandbox.advanceClock(1)
      expect((await retrieve(capture.transactionId)).json.captureStatus).toBe(
        "TRANSMITTED"
      )
      code = await authorize(sandbox)
    })

    it("settlementMs can be changed at runtime", async () => {
      const auth = await authorizePayment()
      const capture = await expectResult(followOn("/capture", auth, 1), "100")
      sandbox.settlementMs = 0
      try {
        expect((await retrieve(capture.transactionId)).json.captureStatus).toBe(
          "TRANSMITTED"
        )
      } finally {
        sandbox.settlementMs = SETTLEMENT_MS
      }
    })
  })

  describe("reverse", () => {
    it("reverses the full authorized amount; a second reverse is 237", async () => {
      const auth = await authorizePayment()
      const reversal = await expectResult(
        followOn("/reverse", auth, 10.5),
        "100",
        auth
      )
      expect((await retrieve(reversal.transactionId)).json).toMatchObject({
        step: "REVERSAL",
        amount: 10.5,
        status: "successful",
      })
      expect((await retrieve(reversal.transactionId)).json).not.toHaveProperty(
        "captureStatus"
      )
      await expectResult(followOn("/reverse", auth, 10.5), "237")
    })

    it("a reverse for another amount is 239", async () => {
      const auth = await authorizePayment()
      await expectResult(followOn("/reverse", auth, 5), "239")
    })

    it("a captured authorization: 243 while the capture is pending, 238 once settled", async () => {
      const auth = await authorizePayment()
      await expectResult(followOn("/capture", auth, 10.5), "100")
      await expectResult(followOn("/reverse", auth, 10.5), "243")
      sandbox.advanceClock(SETTLEMENT_MS)
      code = await authorize(sandbox)
      await expectResult(followOn("/reverse", auth, 10.5), "238")
    })

    it("a reverse of a capture or a declined authorization is 241", async () => {
      const auth = await authorizePayment()
      const capture = await expectResult(followOn("/capture", auth, 1), "100")
      await expectResult(followOn("/reverse", capture.transactionId, 1), "241")
      const declined = TEST_CARDS.find(
        (c) => c.reasonCode === "204" && c.threeDs === "frictionless"
      )!
      await expectResult(
        followOn(
          "/reverse",
          await authorizePayment({ cardAccountNumber: declined.number }),
          10.5
        ),
        "241"
      )
    })
  })

  describe("refund", () => {
    it("refunds partially and repeatedly, never above what was captured (235)", async () => {
      const auth = await authorizePayment({ amount: "100.00" })
      const capture = await expectResult(followOn("/capture", auth, 80), "100")
      const first = await expectResult(
        followOn("/refund", capture.transactionId, 30),
        "100",
        capture.transactionId
      )
      expect((await retrieve(first.transactionId)).json).toMatchObject({
        step: "REFUND",
        captureStatus: "PENDING",
        amount: 30,
      })
      await expectResult(
        followOn("/refund", capture.transactionId, 50.01),
        "235"
      )
      await expectResult(followOn("/refund", capture.transactionId, 50), "100")
      await expectResult(
        followOn("/refund", capture.transactionId, 0.01),
        "235"
      )
    })

    it("accepts the authorization id and refunds its capture", async () => {
      const auth = await authorizePayment()
      await expectResult(followOn("/capture", auth, 10.5), "100")
      await expectResult(followOn("/refund", auth, 10.5), "100", auth)
      await expectResult(followOn("/refund", auth, 0.01), "235")
    })

    it("a refund of an uncaptured authorization or an unknown id is 241", async () => {
      await expectResult(
        followOn("/refund", await authorizePayment(), 1),
        "241"
      )
      await expectResult(followOn("/refund", "123", 1), "241")
    })

    it("a refund of a voided capture is 247", async () => {
      const auth = await authorizePayment()
      const capture = await expectResult(
        followOn("/capture", auth, 10.5),
        "100"
      )
      await expectResult(
        voidOf(capture.transactionId, "CAPTURE", "10.50"),
        "100"
      )
      await expectResult(followOn("/refund", capture.transactionId, 1), "247")
      await expectResult(followOn("/refund", auth, 1), "247")
    })

    it("refunds a settled capture", async () => {
      const auth = await authorizePayment()
      const capture = await expectResult(
        followOn("/capture", auth, 10.5),
        "100"
      )
      sandbox.advanceClock(SETTLEMENT_MS)
      code = await authorize(sandbox)
      await expectResult(
        followOn("/refund", capture.transactionId, 10.5),
        "100"
      )
    })
  })

  describe("void (section 2.4)", () => {
    it("voids a pending capture: VOIDED, and the authorization can be captured again", async () => {
      const auth = await authorizePayment()
      const capture = await expectResult(
        followOn("/capture", auth, 10.5),
        "100"
      )
      const voided = await expectResult(
        voidOf(capture.transactionId, "CAPTURE", "10.50"),
        "100",
        capture.transactionId
      )
      expect((await retrieve(capture.transactionId)).json.captureStatus).toBe(
        "VOIDED"
      )
      expect((await retrieve(voided.transactionId)).json).toMatchObject({
        step: "VOID",
        amount: 10.5,
        status: "successful",
      })
      await expectResult(
        voidOf(capture.transactionId, "CAPTURE", "10.50"),
        "246"
      )
      await expectResult(followOn("/capture", auth, 10.5), "100")
    })

    it("voids a pending refund and makes its amount refundable again", async () => {
      const auth = await authorizePayment()
      const capture = await expectResult(
        followOn("/capture", auth, 10.5),
        "100"
      )
      const refund = await expectResult(
        followOn("/refund", capture.transactionId, 10.5),
        "100"
      )
      await expectResult(voidOf(refund.transactionId, "REFUND", "10.50"), "100")
      expect((await retrieve(refund.transactionId)).json.captureStatus).toBe(
        "VOIDED"
      )
      await expectResult(
        followOn("/refund", capture.transactionId, 10.5),
        "100"
      )
    })

    it("a transmitted capture is not voidable (246)", async () => {
      const auth = await authorizePayment()
      const capture = await expectResult(
        followOn("/capture", auth, 10.5),
        "100"
      )
      sandbox.advanceClock(SETTLEMENT_MS)
      code = await authorize(sandbox)
      await expectResult(
        voidOf(capture.transactionId, "CAPTURE", "10.50"),
        "246"
      )
    })

    it("an authorization is not voidable (246); the type must match the record (102)", async () => {
      const auth = await authorizePayment()
      await expectResult(voidOf(auth, "CAPTURE", "10.50"), "246")
      const capture = await expectResult(
        followOn("/capture", auth, 10.5),
        "100"
      )
      await expectResult(
        voidOf(capture.transactionId, "REFUND", "10.50"),
        "102"
      )
    })

    it("the amount must match (239) and be a string with the currency's digits (102)", async () => {
      const auth = await authorizePayment()
      const capture = await expectResult(
        followOn("/capture", auth, 10.5),
        "100"
      )
      await expectResult(
        voidOf(capture.transactionId, "CAPTURE", "10.00"),
        "239"
      )
      await expectResult(
        voidOf(capture.transactionId, "CAPTURE", "10.5"),
        "102"
      )
      await expectResult(
        voidOf(capture.transactionId, "CAPTURE", 10.5 as any),
        "102"
      )
    })

    it("type other than CAPTURE or REFUND is 102; unknown transactionId is 241", async () => {
      await expectResult(voidOf("1", "AUTHORIZATION", "1.00"), "102")
      await expectResult(voidOf("1", "CAPTURE", "1.00"), "241")
    })
  })

  describe("bad bodies", () => {
    const fields = [
      "merchantId",
      "merchantReferenceCode",
      "currency",
      "amount",
      "email",
      "originalTransactionId",
    ]
    it.each(fields)("a follow-on without %s is 101", async (field) => {
      const auth = await authorizePayment()
      await expectResult(
        followOn("/capture", auth, 1, { [field]: undefined }),
        "101"
      )
    })

    it.each([
      "merchantId",
      "merchantReferenceCode",
      "currency",
      "amount",
      "email",
      "transactionId",
      "type",
    ])("a void without %s is 101", async (field) => {
      await expectResult(
        voidOf("1", "CAPTURE", "1.00", { [field]: undefined }),
        "101"
      )
    })

    it.each([
      ["amount as a string", { amount: "1.00" }],
      ["amount with too many decimals", { amount: 1.001 }],
      ["negative amount", { amount: -1 }],
      ["zero amount", { amount: 0 }],
      ["alphabetic currency", { currency: "EUR" }],
      ["another merchant", { merchantId: "other" }],
      ["an invalid email", { email: "nobody" }],
      ["a non-string reference", { merchantReferenceCode: 12 }],
      ["another currency than the authorization", { currency: "840" }],
    ])("a capture with %s is 102", async (_name, extra) => {
      const auth = await authorizePayment()
      await expectResult(followOn("/capture", auth, 1, extra), "102")
    })

    it("a body that is not JSON is 400 with the 2.5 shape", async () => {
      const answer = await call(sandbox.url, "POST", "/capture", {
        headers: {
          verifyId: sandbox.credentials.verifyId,
          Authorization: code,
          "content-type": "application/json",
        },
        body: "{not json",
      })
      expect(answer.status).toBe(400)
      expect(answer.json).toMatchObject({
        decision: "REJECT",
        reasonCode: "102",
      })
      const array = await callJson(sandbox, code, "POST", "/capture", [1, 2])
      expect(array.status).toBe(400)
    })

    it("a body that is not sent as JSON is 415", async () => {
      const answer = await call(sandbox.url, "POST", "/capture", {
        headers: {
          verifyId: sandbox.credentials.verifyId,
          Authorization: code,
          "content-type": "text/plain",
        },
        body: "{}",
      })
      expect(answer.status).toBe(415)
      expect(answer.json).toMatchObject({
        decision: "REJECT",
        reasonCode: "102",
      })
    })

    it("a wrong method is 405 and an unknown path 404", async () => {
      expect((await callJson(sandbox, code, "GET", "/capture")).status).toBe(
        405
      )
      expect(
        (await callJson(sandbox, code, "POST", "/settle", {})).status
      ).toBe(404)
    })
  })

  describe("retrieve (4.5)", () => {
    it("answers the 2.1 record of an authorization with cardPrefix for VISA", async () => {
      const auth = await authorizePayment({
        merchantReferenceCode: `retrieve-${Date.now()}`,
      })
      const { status, json } = await retrieve(auth)
      expect(status).toBe(200)
      expect(json).toEqual({
        merchantReferenceCode: expect.stringMatching(/^retrieve-/),
        transactionId: auth,
        originalTransactionId: "",
        step: "AUTHORIZATION",
        reasonCode: "100",
        status: "successful",
        message: "Successful transaction",
        approvalCode: expect.stringMatching(/^\d{6}$/),
        cardType: "VISA",
        currencyCode: "978",
        amount: 10.5,
        cardPrefix: "400000",
        cardSuffix: "1000",
      })
    })

    it("omits cardPrefix for MASTERCARD", async () => {
      const master = TEST_CARDS.find(
        (c) => c.cardType === "MASTER" && c.reasonCode === "100"
      )!
      const auth = await authorizePayment({
        cardAccountNumber: master.number,
        cardType: "MASTER",
      })
      const { json } = await retrieve(auth)
      expect(json).not.toHaveProperty("cardPrefix")
      expect(json.cardSuffix).toBe(master.number.slice(-4))
      expect(json.cardType).toBe("MASTER")
    })

    it("answers amounts in major units for JPY", async () => {
      const auth = await authorizePayment({ currency: "392", amount: "1200" })
      expect((await retrieve(auth)).json).toMatchObject({
        currencyCode: "392",
        amount: 1200,
      })
    })

    it("404 for an unknown transaction or another merchant's path", async () => {
      const auth = await authorizePayment()
      expect((await retrieve("nope")).json).toEqual({ error: "not_found" })
      const other = await callJson(
        sandbox,
        code,
        "GET",
        `/payment/retrieve/other-merchant/${auth}`
      )
      expect(other.status).toBe(404)
    })
  })

  describe("each field rule decides on its own (docs/sandbox.md, body rules)", () => {
    // Against an id the sandbox never issued, a body that passes every field
    // rule is refused with 241; breaking one rule must turn that into 101 or
    // 102, so each row shows that its rule, and only it, is applied.
    const NEVER_ISSUED = "1"
    // ISO 4217 numeric codes of funds, precious metals, testing and "no
    // currency": section 8 asks for a currency, so these are invalid.
    // (XBA..XUA are 955 to 965, XSU 994, XXX 999).
    const NOT_A_CURRENCY = [
      ...Array.from({ length: 11 }, (_, i) => String(955 + i)),
      "994",
      "999",
    ]
    it.each<[string, "capture" | "void", string, Record<string, unknown>]>([
      [
        "a reference of 50 characters is valid",
        "capture",
        "241",
        { merchantReferenceCode: "r".repeat(50) },
      ],
      [
        "a reference of 51 characters",
        "capture",
        "102",
        { merchantReferenceCode: "r".repeat(51) },
      ],
      [
        "a null reference counts as missing",
        "capture",
        "101",
        { merchantReferenceCode: null },
      ],
      [
        "an empty reference counts as missing",
        "capture",
        "101",
        { merchantReferenceCode: "" },
      ],
      [
        "text before the e-mail address",
        "capture",
        "102",
        { email: "not ada@example.com" },
      ],
      [
        "text after the e-mail address",
        "capture",
        "102",
        { email: "ada@example.com x" },
      ],
      ["the currency as a JSON number", "capture", "102", { currency: 978 }],
      [
        "an amount written with an exponent (1e21)",
        "capture",
        "102",
        { amount: 1e21 },
      ],
      [
        "the largest amount, 999999999, is valid",
        "capture",
        "241",
        { amount: 999_999_999 },
      ],
      [
        "one cent above the largest amount",
        "capture",
        "102",
        { amount: 999_999_999.01 },
      ],
      [
        "a JPY void amount without decimals is valid",
        "void",
        "241",
        { currency: "392", amount: "1200" },
      ],
      ["a void amount as a JSON number", "void", "102", { amount: 10.25 }],
      ...NOT_A_CURRENCY.map(
        (currency): [string, "void", string, Record<string, unknown>] => [
          `currency ${currency}, which names no spendable currency`,
          "void",
          "102",
          { currency, amount: "1" },
        ]
      ),
    ])("%s: %s gets %s", async (_rule, kind, reasonCode, extra) => {
      await expectResult(
        kind === "void"
          ? voidOf(NEVER_ISSUED, "CAPTURE", "1.00", extra)
          : followOn("/capture", NEVER_ISSUED, 1, extra),
        reasonCode,
        NEVER_ISSUED
      )
    })
  })

  describe("what retrieve shows of a follow-on (2.1)", () => {
    const recordOf = async (answer: ReturnType<typeof followOn>) =>
      (await retrieve((await answer).json.transactionId)).json

    it("an accepted capture carries the authorization's card and its own reference, currency and amount", async () => {
      const auth = await authorizePayment()
      expect(await recordOf(followOn("/capture", auth, 8))).toMatchObject({
        merchantReferenceCode: "follow-on-1",
        originalTransactionId: auth,
        step: "CAPTURE",
        reasonCode: "100",
        status: "successful",
        approvalCode: "",
        cardType: "VISA",
        currencyCode: "978",
        amount: 8,
        cardPrefix: "400000",
        cardSuffix: "1000",
      })
    })

    it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
      [
        "names no transaction (241)",
        {},
        { reasonCode: "241", merchantReferenceCode: "follow-on-1" },
      ],
      [
        "has no reference (101)",
        { merchantReferenceCode: undefined },
        { reasonCode: "101", merchantReferenceCode: "" },
      ],
      [
        "has a null reference (101)",
        { merchantReferenceCode: null },
        { reasonCode: "101", merchantReferenceCode: "" },
      ],
      [
        "has a number as reference (102)",
        { merchantReferenceCode: 12 },
        { reasonCode: "102", merchantReferenceCode: "12" },
      ],
    ])(
      "a refused capture that %s is recorded with String fields, no card and its amount",
      async (_case, extra, expected) => {
        expect(
          await recordOf(followOn("/capture", "999", 1, extra))
        ).toMatchObject({
          ...expected,
          originalTransactionId: "999",
          step: "CAPTURE",
          status: "declined",
          cardType: "",
          currencyCode: "978",
          amount: 1,
          cardPrefix: "",
          cardSuffix: "",
        })
      }
    )
  })

  describe("state rules, one story each (docs/sandbox.md, state rules)", () => {
    /**
     * A follow-on on the story's authorization ("auth") or on the
     * transaction an earlier step created (its index), and the code it gets.
     * Void steps say the type they send: "void CAPTURE", "void REFUND".
     */
    type Step = [
      op: string,
      of: "auth" | number,
      amount: number | string,
      reasonCode: string,
      extra?: Record<string, unknown>,
    ]
    const USD = { currency: "840" }

    it.each<[string, Step[]]>([
      [
        "a refund of a reversed authorization is 237",
        [
          ["reverse", "auth", 10.5, "100"],
          ["refund", "auth", 10.5, "237"],
        ],
      ],
      [
        "a refund that names a refund is 241",
        [
          ["capture", "auth", 10.5, "100"],
          ["refund", 0, 5, "100"],
          ["refund", 1, 1, "241"],
        ],
      ],
      [
        "a refund that names a declined capture is 241",
        [
          ["capture", "auth", 99, "235"],
          ["refund", 0, 1, "241"],
        ],
      ],
      [
        "a refund that names a reversal is 241",
        [
          ["reverse", "auth", 10.5, "100"],
          ["refund", 0, 1, "241"],
        ],
      ],
      [
        "a reverse in another currency than the authorization's is 102",
        [
          ["reverse", "auth", 10.5, "102", USD],
          ["reverse", "auth", 10.5, "100"],
        ],
      ],
      [
        "a refund in another currency than the capture's is 102",
        [
          ["capture", "auth", 10.5, "100"],
          ["refund", 0, 10.5, "102", USD],
          ["refund", 0, 10.5, "100"],
        ],
      ],
      [
        "a void in another currency than the capture's is 102",
        [
          ["capture", "auth", 10.5, "100"],
          ["void CAPTURE", 0, "10.50", "102", USD],
          ["void CAPTURE", 0, "10.50", "100"],
        ],
      ],
      [
        "a capture with refunds not voided is not voidable (246) until they are",
        [
          ["capture", "auth", 10.5, "100"],
          ["refund", 0, 4, "100"],
          ["void CAPTURE", 0, "10.50", "246"],
          ["void REFUND", 1, "4.00", "100"],
          ["void CAPTURE", 0, "10.50", "100"],
        ],
      ],
      [
        "a voided refund that named the authorization can be refunded again",
        [
          ["capture", "auth", 10.5, "100"],
          ["refund", "auth", 10.5, "100"],
          ["void REFUND", 1, "10.50", "100"],
          ["refund", "auth", 10.5, "100"],
        ],
      ],
      [
        "voiding one of two refunds makes only its amount refundable again",
        [
          ["capture", "auth", 10.5, "100"],
          ["refund", 0, 5, "100"],
          ["refund", 0, 5.5, "100"],
          ["void REFUND", 2, "5.50", "100"],
          ["refund", 0, 5.51, "235"],
          ["refund", 0, 5.5, "100"],
        ],
      ],
    ])("%s", async (_story, steps) => {
      const auth = await authorizePayment()
      const created: string[] = []
      for (const [n, [op, of, amount, reasonCode, extra]] of steps.entries()) {
        const target = of === "auth" ? auth : created[of]
        const [kind, type] = op.split(" ")
        const { status, json } = await (kind === "void"
          ? voidOf(target, type, amount as string, extra)
          : followOn(`/${kind}`, target, amount, extra))
        // The step number and operation travel with the verdict, so a
        // failure names the step that went wrong.
        expect({ n, op, status, reasonCode: json.reasonCode }).toEqual({
          n,
          op,
          status: 200,
          reasonCode,
        })
        expect(json.decision).toBe(reasonCode === "100" ? "ACCEPT" : "REJECT")
        expect(json.originalTransactionId).toBe(target)
        created.push(json.transactionId)
      }
    })
  })
})
