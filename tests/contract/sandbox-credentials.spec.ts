import { CardServiceSandbox, startSandbox } from "../../src/sandbox"
import {
  authorize,
  call,
  callJson,
  MerchantStub,
  orderForm,
  startMerchantStub,
  submitOrder,
} from "../helpers/sandbox-http"

describe("sandbox credentials (section 5, wire-choices Credentials)", () => {
  let sandbox: CardServiceSandbox
  let merchant: MerchantStub
  let clock = Date.UTC(2026, 0, 15, 12)

  beforeAll(async () => {
    sandbox = await startSandbox({
      now: () => clock,
      verificationTtlMs: 60_000,
    })
    merchant = await startMerchantStub()
  })
  afterAll(async () => {
    await sandbox.close()
    await merchant.close()
  })

  it("issues a verification code for the right clientCode and clientSecret", async () => {
    const answer = await call(sandbox.url, "GET", "/authorize", {
      headers: { clientCode: "sandbox-client", clientSecret: "sandbox-secret" },
    })
    expect(answer.status).toBe(200)
    expect(Object.keys(answer.json)).toEqual(["Authorization"])
    expect(answer.json.Authorization).toMatch(/^[A-Za-z0-9_-]{20,}$/)
  })

  it.each([
    ["missing headers", {}],
    ["a wrong secret", { clientCode: "sandbox-client", clientSecret: "nope" }],
    [
      "a wrong client code",
      { clientCode: "someone", clientSecret: "sandbox-secret" },
    ],
  ])("answers 401 invalid_client for %s", async (_name, headers) => {
    const answer = await call(sandbox.url, "GET", "/authorize", { headers })
    expect(answer.status).toBe(401)
    expect(answer.json.error).toBe("invalid_client")
    expect(answer.json.message).toEqual(expect.any(String))
  })

  it("answers 401 invalid_authorization on JSON endpoints without valid verification", async () => {
    const code = await authorize(sandbox)
    const cases: Record<string, string>[] = [
      {},
      { verifyId: "sandbox-verify" },
      { verifyId: "sandbox-verify", Authorization: "not-a-code" },
      { verifyId: "someone-else", Authorization: code },
      { Authorization: code },
    ]
    for (const headers of cases) {
      for (const [method, path] of [
        ["POST", "/capture"],
        ["POST", "/reverse"],
        ["POST", "/refund"],
        ["POST", "/void"],
        ["GET", "/payment/retrieve/sandbox-merchant/1"],
      ] as const) {
        const answer = await call(sandbox.url, method, path, {
          headers: { "content-type": "application/json", ...headers },
          body: method === "POST" ? "{}" : undefined,
        })
        expect([path, answer.status, answer.json.error]).toEqual([
          path,
          401,
          "invalid_authorization",
        ])
      }
    }
  })

  it("expires a verification code after its lifetime (sandbox clock)", async () => {
    const code = await authorize(sandbox)
    const path = "/payment/retrieve/sandbox-merchant/unknown"
    expect((await callJson(sandbox, code, "GET", path)).status).toBe(404)
    clock += 59_999
    expect((await callJson(sandbox, code, "GET", path)).status).toBe(404)
    clock += 1
    const expired = await callJson(sandbox, code, "GET", path)
    expect(expired.status).toBe(401)
    expect(expired.json.error).toBe("invalid_authorization")
    const fresh = await authorize(sandbox)
    expect((await callJson(sandbox, fresh, "GET", path)).status).toBe(404)
  })

  it("defaults the lifetime to 30 minutes", async () => {
    const other = await startSandbox()
    try {
      const code = await authorize(other)
      other.advanceClock(29 * 60 * 1000)
      const path = "/payment/retrieve/sandbox-merchant/x"
      expect((await callJson(other, code, "GET", path)).status).toBe(404)
      other.advanceClock(60 * 1000)
      expect((await callJson(other, code, "GET", path)).status).toBe(401)
    } finally {
      await other.close()
    }
  })

  it("uses configured credentials", async () => {
    const other = await startSandbox({
      credentials: {
        clientCode: "c",
        clientSecret: "s",
        verifyId: "v",
        merchantId: "m",
      },
    })
    try {
      expect(other.credentials).toEqual({
        clientCode: "c",
        clientSecret: "s",
        verifyId: "v",
        merchantId: "m",
      })
      const ok = await call(other.url, "GET", "/authorize", {
        headers: { clientCode: "c", clientSecret: "s" },
      })
      expect(ok.status).toBe(200)
      const old = await call(other.url, "GET", "/authorize", {
        headers: {
          clientCode: "sandbox-client",
          clientSecret: "sandbox-secret",
        },
      })
      expect(old.status).toBe(401)
    } finally {
      await other.close()
    }
  })

  it.each([
    ["a wrong verifyId", { verifyId: "someone" }],
    ["an unknown authorization", { authorization: "forged" }],
    ["no authorization", { authorization: undefined }],
  ])(
    "answers /order/start with %s by a 401 HTML page and no callback",
    async (_name, overrides) => {
      const code = await authorize(sandbox)
      const before = sandbox.callbacks().length
      const answer = await submitOrder(
        sandbox,
        orderForm(sandbox, code, merchant, overrides)
      )
      expect(answer.status).toBe(401)
      expect(answer.headers["content-type"]).toMatch(/^text\/html/)
      expect(answer.text).toContain("Merchant not verified")
      expect(answer.headers.location).toBeUndefined()
      expect(sandbox.callbacks().length).toBe(before)
    }
  )

  it("refuses /order/start with an expired verification code", async () => {
    const code = await authorize(sandbox)
    clock += 60_000
    const answer = await submitOrder(
      sandbox,
      orderForm(sandbox, code, merchant)
    )
    expect(answer.status).toBe(401)
  })
})
