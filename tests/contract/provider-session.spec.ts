import { MedusaError } from "@medusajs/framework/utils"
import {
  attachTransaction,
  authorize,
  CARDS,
  errorOf,
  followOns,
  newSessionId,
  paidSession,
  payInBrowser,
  providerOnSandbox,
  startSession,
  type ProviderEnv,
} from "../helpers/provider-sandbox"

jest.setTimeout(30_000)

let env: ProviderEnv

beforeAll(async () => {
  env = await providerOnSandbox()
})

afterAll(async () => {
  await env.close()
})

describe("initiatePayment", () => {
  it("prepares the browser step: terms, sealed, per-session URLs ending with /", async () => {
    const provider = env.provider()
    const sessionId = newSessionId()
    const result = await provider.initiatePayment({
      amount: 30,
      currency_code: "EUR",
      data: { session_id: sessionId },
      context: { idempotency_key: sessionId },
    } as any)

    expect(result.status).toBe("pending")
    const data = result.data as any
    expect(data).toMatchObject({
      version: 1,
      session_id: sessionId,
      currency_code: "eur",
      currency: "978",
      amount: 30,
      amount_minor: "3000",
      state: "pending",
      transaction_id: null,
      card: null,
      failure: null,
      capture: null,
      refunded_amount: 0,
      transactions: [],
      callback_url: `http://127.0.0.1:9/card-service/callback/${sessionId}/`,
      return_url: `http://127.0.0.1:9/card-service/return/${sessionId}/`,
      pay_url: `http://127.0.0.1:9/card-service/pay/${sessionId}`,
      form: {
        action: `${env.sandbox.url}/order/start`,
        method: "POST",
        enctype: "application/x-www-form-urlencoded",
        fields: {
          merchantId: env.sandbox.credentials.merchantId,
          verifyId: env.sandbox.credentials.verifyId,
          currency: "978",
          amount: "30.00",
          callbackLocation: data.callback_url,
          redirectUrl: data.return_url,
          isWindowed: "N",
          isRedirect: "Y",
          isAuthenticate: "Y",
        },
      },
    })
    expect(data.form.fields.callbackLocation.endsWith("/")).toBe(true)
    expect(data.form.fields.redirectUrl.endsWith("/")).toBe(true)
    expect(provider.verifySession(data, sessionId)).not.toBeNull()
  })

  it.each([
    ["eur", 10.5, "978", 10.5, "1050", "10.50"],
    ["usd", { value: "19.99", precision: 20 }, "840", 19.99, "1999", "19.99"],
    ["jpy", 1000, "392", 1000, "1000", "1000"],
    ["jpy", 1000.5, "392", 1001, "1001", "1001"],
    ["kwd", 1.234, "414", 1.234, "1234", "1.234"],
    ["kwd", 2, "414", 2, "2000", "2.000"],
  ])(
    "converts %s %j to currency %s, amount %s",
    async (
      currency_code,
      amount,
      currency,
      serviceAmount,
      minor,
      formAmount
    ) => {
      const data = await startSession(env.provider(), {
        amount: amount as any,
        currency_code,
      })
      expect(data).toMatchObject({
        currency,
        amount: serviceAmount,
        amount_minor: minor,
      })
      expect(data.form.fields).toMatchObject({ currency, amount: formAmount })
    }
  )

  it("keeps no secret and no verification code in the public data", async () => {
    const provider = env.provider()
    const code = await provider.client.getVerificationCode()
    const text = JSON.stringify(await startSession(provider))
    expect(text).not.toContain(env.sandbox.credentials.clientSecret)
    expect(text).not.toContain(code)
    expect(text).not.toMatch(/authorization/i)
  })

  it.each([
    ["a zero amount", { amount: 0, currency_code: "eur" }],
    ["an amount that rounds to zero", { amount: 0.001, currency_code: "eur" }],
    ["an unknown currency", { amount: 10, currency_code: "xyz" }],
  ])("refuses %s as invalid data", async (_, terms) => {
    const error = await errorOf(startSession(env.provider(), terms))
    expect(error).toBeInstanceOf(MedusaError)
    expect(error.type).toBe(MedusaError.Types.INVALID_DATA)
  })

  it("needs a session id", async () => {
    const error = await errorOf(
      env
        .provider()
        .initiatePayment({ amount: 10, currency_code: "eur", data: {} } as any)
    )
    expect(error.type).toBe(MedusaError.Types.INVALID_DATA)
  })
})

describe("where the shopper is sent back to (data.return_to)", () => {
  const STOREFRONT_PAGE = "http://localhost:8000/checkout/card-service"

  /** The return route's target for a session started with this return_to. */
  async function targetFor(returnTo: string): Promise<string> {
    const provider = env.provider({
      storefrontUrl: "http://localhost:8000",
      allowedReturnOrigins: ["https://pay.shop.example"],
    })
    const sessionId = newSessionId()
    const { data } = await provider.initiatePayment({
      amount: 30,
      currency_code: "eur",
      data: { session_id: sessionId, return_to: returnTo },
      context: { idempotency_key: sessionId },
    } as any)
    return provider
      .returnTarget(provider.verifySession(data, sessionId))
      .toString()
  }

  it.each([
    [
      "a host that starts like the storefront's",
      "http://localhost:8000.evil.com/checkout",
    ],
    [
      "the storefront's address as user info",
      "http://localhost:8000@evil.com/checkout",
    ],
    ["another port", "http://localhost:8001/checkout"],
    ["another scheme", "https://localhost:8000/checkout"],
    [
      "a host that starts like an allowed origin",
      "https://pay.shop.example.evil.com/done",
    ],
    ["a script URL", "javascript:alert(document.domain)"],
  ])(
    "sends the shopper to the storefront's page, not to %s",
    async (_, returnTo) => {
      expect(await targetFor(returnTo)).toBe(STOREFRONT_PAGE)
    }
  )

  it.each([
    ["the storefront's origin", "http://localhost:8000/thanks?step=2"],
    ["an allowed origin", "https://pay.shop.example/done"],
  ])("keeps a return_to on %s", async (_, returnTo) => {
    expect(await targetFor(returnTo)).toBe(returnTo)
  })
})

describe("updatePayment", () => {
  it("keeps the transaction when amount and currency are unchanged", async () => {
    const provider = env.provider()
    const session = await startSession(provider)
    const transactionId = await payInBrowser(env.sandbox, provider, session)
    const updated = await attachTransaction(provider, session, transactionId)
    expect(updated).toMatchObject({
      transaction_id: transactionId,
      state: "pending",
      seal: session.seal,
    })
  })

  it.each([
    ["another amount", { amount: 31, currency_code: "eur" }],
    ["another currency", { amount: 30, currency_code: "usd" }],
  ])("starts a fresh unpaid session for %s", async (_, terms) => {
    const provider = env.provider()
    const session = await startSession(provider)
    const transactionId = await payInBrowser(env.sandbox, provider, session)
    const result = await provider.updatePayment({
      ...terms,
      data: { ...session, transaction_id: transactionId },
      context: { idempotency_key: session.session_id },
    } as any)
    const data = result.data as any
    expect(result.status).toBe("pending")
    expect(data.transaction_id).toBeNull()
    expect(data.seal).not.toBe(session.seal)
    expect(data.session_id).toBe(session.session_id)
    expect(provider.verifySession(data, session.session_id)).toMatchObject({
      amount: terms.amount,
    })
  })
})

describe("authorizePayment", () => {
  it("is pending while no transaction is known", async () => {
    const provider = env.provider()
    const { status, data } = await authorize(
      provider,
      await startSession(provider)
    )
    expect(status).toBe("pending")
    expect(data.state).toBe("pending")
  })

  it("authorizes an approved payment of this session, and again on repeat without side effects", async () => {
    const provider = env.provider()
    const { session, transactionId } = await paidSession(env, provider)
    const before = env.sandbox.transactions().length

    const first = await authorize(provider, session)
    const second = await authorize(provider, first.data)

    expect(first.status).toBe("authorized")
    expect(first.data).toMatchObject({
      state: "authorized",
      transaction_id: transactionId,
      failure: null,
      card: { type: "VISA", suffix: "1000" },
    })
    expect(first.data.transactions).toEqual([
      expect.objectContaining({
        transaction_id: transactionId,
        operation: "authorization",
        decision: "ACCEPT",
        reason_code: "100",
        amount: 30,
      }),
    ])
    expect(second.status).toBe("authorized")
    expect(second.data.transactions).toHaveLength(1)
    expect(env.sandbox.transactions().length).toBe(before)
  })

  it.each([
    ["declined (203)", CARDS.declined, "203"],
    ["insufficient funds (204)", CARDS.insufficientFunds, "204"],
    ["a system error (150)", CARDS.systemError, "150"],
  ])(
    "keeps the session pending for another attempt after %s, with the reason in data",
    async (_, card, code) => {
      const provider = env.provider()
      const { session, transactionId } = await paidSession(env, provider, card)
      const { status, data } = await authorize(provider, session)
      expect(status).toBe("pending")
      expect(data.state).toBe("failed")
      expect(data.failure).toEqual({
        code,
        message: expect.stringContaining(
          code === "150" ? "failed" : "declined"
        ),
      })
      expect(data.transaction_id).toBe(transactionId)
      expect(followOns(env.sandbox, "REVERSAL", transactionId)).toHaveLength(0)
    }
  )

  it("answers requires_more for 475 (the shopper must authenticate)", async () => {
    const provider = env.provider()
    const { session } = await paidSession(env, provider, CARDS.enrolled)
    const { status, data } = await authorize(provider, session)
    expect(status).toBe("requires_more")
    expect(data.failure?.code).toBe("475")
  })

  it("answers pending_authorization for 480 (under review): Medusa places the order on hold", async () => {
    const provider = env.provider()
    const { session } = await paidSession(env, provider, CARDS.review)
    const { status, data } = await authorize(provider, session)
    expect(status).toBe("pending_authorization")
    expect(data.state).toBe("pending")
    expect(data.failure?.code).toBe("480")
  })

  it("reverses a 110 partial approval at the service and fails", async () => {
    const provider = env.provider()
    const { session, transactionId } = await paidSession(
      env,
      provider,
      CARDS.partial
    )
    const { status, data } = await authorize(provider, session)
    expect(status).toBe("error")
    expect(data.failure).toMatchObject({
      code: "mismatch",
      message: expect.stringContaining("110"),
    })
    expect(data.state).toBe("canceled")
    const reversals = followOns(env.sandbox, "REVERSAL", transactionId)
    expect(reversals).toEqual([
      expect.objectContaining({ status: "successful", amount: 15 }),
    ])
  })

  it.each([
    ["another amount", { amount: "1.00" }, "amount"],
    ["another currency", { currency: "840" }, "currency"],
  ])(
    "reverses an approval for %s than the session's and fails",
    async (_, formChanges, word) => {
      const provider = env.provider()
      const session = await startSession(provider)
      // The shopper edits the hidden fields before posting the form.
      const transactionId = await payInBrowser(
        env.sandbox,
        provider,
        session,
        CARDS.approved,
        formChanges
      )
      const { status, data } = await authorize(
        provider,
        await attachTransaction(provider, session, transactionId)
      )
      expect(status).toBe("error")
      expect(data.failure).toMatchObject({
        code: "mismatch",
        message: expect.stringContaining(word),
      })
      expect(followOns(env.sandbox, "REVERSAL", transactionId)).toEqual([
        expect.objectContaining({ status: "successful" }),
      ])
    }
  )

  it.each([
    ["another session's approval", "session"],
    ["an approval made outside the plugin", "seed"],
    ["a transaction the service does not know", "unknown"],
  ])("fails on %s and does not reverse it", async (_, kind) => {
    const provider = env.provider()
    const session = await startSession(provider)
    let foreignId: string
    if (kind === "session") {
      const other = await startSession(provider)
      foreignId = await payInBrowser(env.sandbox, provider, other)
    } else if (kind === "seed") {
      foreignId = env.sandbox.seedAuthorization({
        amount: "30.00",
        currency: "978",
      }).transactionId
    } else {
      foreignId = "999999999999999999999"
    }
    const { status, data } = await authorize(
      provider,
      await attachTransaction(provider, session, foreignId)
    )
    expect(status).toBe("error")
    expect(data.failure?.code).toBe("foreign_transaction")
    expect(data.transaction_id).toBeNull()
    expect(followOns(env.sandbox, "REVERSAL", foreignId)).toHaveLength(0)
  })

  it.each([
    ["the seal", (d: any) => ({ ...d, seal: "A".repeat(22) })],
    [
      "the amount behind the seal",
      (d: any) => ({ ...d, amount_minor: "100", amount: 1 }),
    ],
    [
      "the currency behind the seal",
      (d: any) => ({ ...d, currency_code: "usd", currency: "840" }),
    ],
    ["the session id", (d: any) => ({ ...d, session_id: newSessionId() })],
    ["the shape", (d: any) => ({ ...d, version: 2 })],
  ])("refuses session data whose %s was edited", async (_, edit) => {
    const provider = env.provider()
    const { session, transactionId } = await paidSession(env, provider)
    const { status, data } = await authorize(provider, edit(session))
    expect(status).toBe("error")
    expect(data.failure?.code).toBe("tampered")
    expect(followOns(env.sandbox, "CAPTURE", transactionId)).toHaveLength(0)
  })

  it("does not trust a state or capture the data claims", async () => {
    const provider = env.provider()
    const session = await startSession(provider)
    const { status, data } = await authorize(provider, {
      ...session,
      state: "captured",
      capture: { transaction_id: "1", amount: 30 },
    })
    expect(status).toBe("pending")
    expect(data.capture).toBeNull()
  })

  describe("with automatic capture", () => {
    it("captures once, even when authorize is called twice", async () => {
      const provider = env.provider({ autoCapture: true })
      const { session, transactionId } = await paidSession(env, provider)

      const first = await authorize(provider, session)
      const second = await authorize(provider, first.data)

      expect(first.status).toBe("captured")
      expect(second.status).toBe("captured")
      expect(first.data.state).toBe("captured")
      expect(second.data.state).toBe("captured")
      const captures = followOns(env.sandbox, "CAPTURE", transactionId).filter(
        (r) => r.status === "successful"
      )
      expect(captures).toEqual([
        expect.objectContaining({ amount: 30, captureStatus: "PENDING" }),
      ])
      expect(first.data.capture).toEqual({
        transaction_id: captures[0].transactionId,
        amount: 30,
      })
      // The repeat must still know which capture it is (a later void needs it).
      expect(second.data.capture).toEqual({
        transaction_id: captures[0].transactionId,
        amount: 30,
      })
    })

    it("on repeat keeps only a capture the service confirms is this approval's", async () => {
      const provider = env.provider({ autoCapture: true })
      const other = await paidSession(env, provider)
      const otherCapture = (await authorize(provider, other.session)).data
        .capture
      const { session, transactionId } = await paidSession(env, provider)
      const first = await authorize(provider, session)

      const second = await authorize(provider, {
        ...first.data,
        capture: otherCapture,
      })

      expect(second.status).toBe("captured")
      expect(second.data.capture).toEqual({ transaction_id: null, amount: 30 })
      expect(
        followOns(env.sandbox, "CAPTURE", transactionId).filter(
          (r) => r.status === "successful"
        )
      ).toHaveLength(1)
    })

    it("does not count a payment whose reference carries another session's nonce and MAC", async () => {
      // The shopper's own form for another session gives a valid nonce and
      // MAC; moved under this session's id they must not make it paid.
      const provider = env.provider({ autoCapture: true })
      const session = await startSession(provider)
      const [, nonce, mac] = provider.newReference(newSessionId()).split(".")
      const moved = `${session.session_id.replace(/^payses_/, "")}.${nonce}.${mac}`
      const transactionId = await payInBrowser(
        env.sandbox,
        provider,
        session,
        CARDS.approved,
        { merchantReferenceCode: moved }
      )
      expect(env.sandbox.transaction(transactionId)).toMatchObject({
        merchantReferenceCode: moved,
        status: "successful",
        amount: 30,
      })

      const { status, data } = await authorize(
        provider,
        await attachTransaction(provider, session, transactionId)
      )

      // Not authorized, so Medusa places no order; nothing captured.
      expect(status).toBe("error")
      expect(data.transaction_id).toBeNull()
      expect(followOns(env.sandbox, "CAPTURE", transactionId)).toHaveLength(0)
      // The same session paid under its own reference is captured.
      const ownId = await payInBrowser(env.sandbox, provider, session)
      const own = await authorize(
        provider,
        await attachTransaction(provider, session, ownId)
      )
      expect(own.status).toBe("captured")
      expect(followOns(env.sandbox, "CAPTURE", ownId)).toHaveLength(1)
    })

    it("does not capture a declined payment", async () => {
      const provider = env.provider({ autoCapture: true })
      const { session, transactionId } = await paidSession(
        env,
        provider,
        CARDS.declined
      )
      const { status } = await authorize(provider, session)
      expect(status).toBe("pending")
      expect(followOns(env.sandbox, "CAPTURE", transactionId)).toHaveLength(0)
    })
  })
})
