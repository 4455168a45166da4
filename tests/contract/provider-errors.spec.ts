import { MedusaError } from "@medusajs/framework/utils"
import { CardServiceError } from "../../src/lib/card-service-error"
import type { CardServiceSessionData } from "../../src/providers/card-service/session-data"
import {
  authorize,
  CARDS,
  errorOf,
  paidSession,
  providerOnSandbox,
  startSession,
  type ProviderEnv,
} from "../helpers/provider-sandbox"

jest.setTimeout(30_000)

let env: ProviderEnv

beforeAll(async () => {
  env = await providerOnSandbox()
})

afterEach(() => {
  env.sandbox.clearFaults()
})

afterAll(async () => {
  await env.close()
})

type Data = CardServiceSessionData

/** Everything a test saw: thrown messages and returned data, checked for secrets at the end. */
const seen: string[] = []
function remember<T>(value: T): T {
  seen.push(
    value instanceof Error
      ? `${value.message} ${value.stack ?? ""}`
      : JSON.stringify(value)
  )
  return value
}

const capture = (provider: any, data: Data) =>
  provider.capturePayment({ data, context: { idempotency_key: "capt_1" } })

async function authorizedPayment(provider = env.provider()) {
  const { session, transactionId } = await paidSession(env, provider)
  return {
    data: remember((await authorize(provider, session)).data),
    transactionId,
  }
}

describe("each reason-code category reaches Medusa as a MedusaError with a fitting type", () => {
  it("declined: a decline of the card is a status with its reason, not an exception", async () => {
    const provider = env.provider()
    const { session } = await paidSession(env, provider, CARDS.declined)
    const { status, data } = remember(await authorize(provider, session))
    expect(status).toBe("pending")
    expect(data.state).toBe("failed")
    expect(data.failure?.code).toBe("203")
  })

  it("declined: a follow-on the service declines is not allowed (400), with its code", async () => {
    const provider = env.provider()
    const { data } = await authorizedPayment(provider)
    // The sandbox's follow-ons only refuse for state; a decline of the
    // capture itself is played by the client.
    jest.spyOn(provider.client, "capture").mockRejectedValueOnce(
      new CardServiceError({
        category: "declined",
        operation: "capture",
        retrySafe: true,
        detail: "rejected by the service",
        decision: "REJECT",
        reasonCode: "233",
      })
    )
    const error = remember(await errorOf(capture(provider, data)))
    expect(error).toBeInstanceOf(MedusaError)
    expect(error.type).toBe(MedusaError.Types.NOT_ALLOWED)
    expect(error.message).toContain("233")
  })

  it("invalid_request: a follow-on naming a transaction the service does not know (241) is invalid data", async () => {
    const provider = env.provider()
    const { data } = await authorizedPayment(provider)
    const error = remember(
      await errorOf(
        capture(provider, { ...data, transaction_id: "999999999999999999999" })
      )
    )
    expect(error).toBeInstanceOf(MedusaError)
    expect(error.type).toBe(MedusaError.Types.INVALID_DATA)
    expect(error.message).toContain("241")
  })

  it("not_allowed_in_state: capturing a reversed approval (237) is not allowed", async () => {
    const provider = env.provider()
    const { data } = await authorizedPayment(provider)
    await provider.cancelPayment({ data } as any)
    const error = remember(await errorOf(capture(provider, data)))
    expect(error.type).toBe(MedusaError.Types.NOT_ALLOWED)
    expect(error.message).toContain("237")
  })

  it.each([500, 503])(
    "service_error: the service answering %s on a capture, and again when it is sent once more, is an unexpected state",
    async (status) => {
      const provider = env.provider()
      const { data } = await authorizedPayment(provider)
      env.sandbox.injectFault({
        type: "status",
        status: status as 500 | 503,
        count: 2,
        path: "/capture",
      })
      const error = remember(await errorOf(capture(provider, data)))
      expect(error).toBeInstanceOf(MedusaError)
      expect(error.type).toBe(MedusaError.Types.UNEXPECTED_STATE)
      expect(error.message).toContain("150")
    }
  )

  it("service_error: authorize while retrieve keeps failing throws, it does not decide", async () => {
    const provider = env.provider()
    const { session } = await paidSession(env, provider)
    env.sandbox.injectFault({ type: "status", status: 503, count: 10 })
    const error = remember(await errorOf(authorize(provider, session)))
    expect(error).toBeInstanceOf(MedusaError)
    expect(error.type).toBe(MedusaError.Types.UNEXPECTED_STATE)
  })

  it("credentials: a wrong clientSecret is an unexpected state naming the problem, not the secret", async () => {
    // The same sessionSecret, so the seal still holds and the service is asked.
    const sessionSecret = "a-session-secret-of-at-least-32-chars"
    const good = env.provider({ sessionSecret })
    const { session } = await paidSession(env, good)
    const wrongSecret = "wrong-secret-do-not-print-me"
    const provider = env.provider({ clientSecret: wrongSecret, sessionSecret })
    const error = remember(await errorOf(authorize(provider, session)))
    expect(error).toBeInstanceOf(MedusaError)
    expect(error.type).toBe(MedusaError.Types.UNEXPECTED_STATE)
    expect(error.message).toMatch(/clientCode|clientSecret|credential/i)
    expect(error.message).not.toContain(wrongSecret)
    expect(env.logger.lines.join("\n")).not.toContain(wrongSecret)
  })

  it("indeterminate: a refund whose answer was lost is booked as unknown and never sent again", async () => {
    const provider = env.provider()
    const { data } = await authorizedPayment(provider)
    const captured = (await capture(provider, data)).data
    env.sandbox.injectFault({ type: "destroy", path: "/refund" })
    const refund = () =>
      provider.refundPayment({
        data: captured,
        amount: 10,
        context: { idempotency_key: "ref_1" },
      } as any)
    const booked = (await refund()).data as CardServiceSessionData
    remember(booked)
    expect(booked.refunded_amount).toBe(10)
    expect(booked.transactions.at(-1)).toMatchObject({
      operation: "refund",
      decision: "UNKNOWN",
      key: "ref_1",
    })
    // Medusa asking again with the same key sends nothing.
    expect(
      (
        await provider.refundPayment({
          data: booked,
          amount: 10,
          context: { idempotency_key: "ref_1" },
        } as any)
      ).data
    ).toEqual(booked)
    expect(
      env.sandbox.transactions().filter((r) => r.step === "REFUND")
    ).toHaveLength(1)
    expect(env.logger.lines.join("\n")).toMatch(/not sent again/)
  })
})

describe("public session data cannot change the payment form", () => {
  it("verifySession rebuilds the form's fixed fields from the sealed terms", async () => {
    const provider = env.provider()
    const session = await startSession(provider)
    const edited = {
      ...session,
      form: {
        ...session.form,
        action: "https://evil.example/order/start",
        fields: {
          ...session.form.fields,
          amount: "0.01",
          callbackLocation: "https://evil.example/callback/",
          isAuthenticate: "N",
        },
      },
    }
    const verified = provider.verifySession(edited, session.session_id)
    expect(verified?.form).toEqual(session.form)
  })
})

describe("no secret, verification code or card number leaves the provider", () => {
  it("in anything the tests above saw, or in the log", async () => {
    const provider = env.provider()
    const code = await provider.client.getVerificationCode()
    const text = [...seen, ...env.logger.lines].join("\n")
    expect(seen.length).toBeGreaterThan(8)
    expect(text).not.toContain(env.sandbox.credentials.clientSecret)
    expect(text).not.toContain(code)
    for (const card of Object.values(CARDS)) {
      expect(text).not.toContain(card.number)
    }
  })
})
