import { randomBytes } from "node:crypto"
import { request } from "undici"
import { paymentFormFields } from "../../src/providers/card-service/form-fields"
import type { CardServiceSessionData } from "../../src/providers/card-service/session-data"
import CardServiceProviderService from "../../src/providers/card-service/service"
import {
  startSandbox,
  type CardServiceSandbox,
  type SandboxOptions,
} from "../../src/sandbox"

/** A logger that keeps every line, so tests can check what reached the log. */
export function recordingLogger() {
  const lines: string[] = []
  const keep = (level: string) => (message: unknown) => {
    lines.push(
      `${level}: ${typeof message === "string" ? message : JSON.stringify(message)}`
    )
  }
  const logger = {
    lines,
    debug: keep("debug"),
    info: keep("info"),
    warn: keep("warn"),
    error: keep("error"),
    log: keep("log"),
    panic: keep("panic"),
    http: keep("http"),
    activity: () => "",
    progress: () => undefined,
    failure: () => undefined,
    success: () => undefined,
    shouldLog: () => true,
    setLogLevel: () => undefined,
    unsetLogLevel: () => undefined,
  }
  return logger
}

export type ProviderEnv = {
  sandbox: CardServiceSandbox
  logger: ReturnType<typeof recordingLogger>
  /** The provider on the sandbox; extra options (autoCapture...) make another one. */
  provider: (
    options?: Record<string, unknown>,
    container?: Record<string, unknown>
  ) => CardServiceProviderService
  close: () => Promise<void>
}

/**
 * The provider against an in-process sandbox over real HTTP. Callback and
 * return URLs point at a port nothing serves: the tests play the routes'
 * part themselves, and callbacks are dropped so none is waited for.
 */
export async function providerOnSandbox(
  sandboxOptions: SandboxOptions = {}
): Promise<ProviderEnv> {
  const sandbox = await startSandbox({ port: 0, ...sandboxOptions })
  sandbox.setCallbackKnobs({ drop: true })
  const logger = recordingLogger()
  const made: CardServiceProviderService[] = []
  const provider = (
    options: Record<string, unknown> = {},
    container: Record<string, unknown> = {}
  ) => {
    const instance = new CardServiceProviderService(
      { logger: logger as any, ...container },
      {
        clientCode: sandbox.credentials.clientCode,
        clientSecret: sandbox.credentials.clientSecret,
        verifyId: sandbox.credentials.verifyId,
        merchantId: sandbox.credentials.merchantId,
        testUrl: sandbox.url,
        backendUrl: "http://127.0.0.1:9",
        storefrontUrl: "http://127.0.0.1:9",
        ...options,
      }
    )
    made.push(instance)
    return instance
  }
  return {
    sandbox,
    logger,
    provider,
    close: async () => {
      await Promise.all(made.map((p) => p.client.close()))
      await sandbox.close()
    },
  }
}

/** A Medusa-shaped payment-session id: payses_ + a ULID. */
export function newSessionId(): string {
  const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
  const bytes = randomBytes(24)
  return `payses_01${Array.from(bytes, (b) => alphabet[b % 32]).join("")}`
}

export type Terms = {
  amount: number | { value: string; precision: number }
  currency_code: string
}

/** initiatePayment as Medusa calls it for a new session. */
export async function startSession(
  provider: CardServiceProviderService,
  terms: Terms = { amount: 30, currency_code: "eur" },
  sessionId = newSessionId()
): Promise<CardServiceSessionData> {
  const { data } = await provider.initiatePayment({
    ...terms,
    data: { session_id: sessionId },
    context: {
      idempotency_key: sessionId,
      customer: { email: "ada@example.com" },
    },
  } as any)
  return data as unknown as CardServiceSessionData
}

export type Card = { number: string; cardType: string }

export const CARDS = {
  approved: { number: "4000000000001000", cardType: "VISA" },
  approvedMaster: { number: "5200000000001005", cardType: "MASTER" },
  partial: { number: "4000000000001109", cardType: "VISA" },
  declined: { number: "4000000000002032", cardType: "VISA" },
  insufficientFunds: { number: "4000000000002040", cardType: "VISA" },
  enrolled: { number: "4000000000004756", cardType: "VISA" },
  review: { number: "4000000000004806", cardType: "VISA" },
  systemError: { number: "4000000000001505", cardType: "VISA" },
} as const

/**
 * The browser step: the form of paymentFormFields posted to /order/start as
 * a top-level navigation (undici, since fetch() would set its own
 * Sec-Fetch-Mode). `formChanges` plays a shopper who edits hidden fields.
 * Returns the transactionId of the 303 Location.
 */
export async function payInBrowser(
  sandbox: CardServiceSandbox,
  provider: CardServiceProviderService,
  session: CardServiceSessionData,
  card: Card = CARDS.approved,
  formChanges: Record<string, string> = {}
): Promise<string> {
  const fields = {
    ...paymentFormFields(
      session,
      {
        merchantReferenceCode: provider.newReference(session.session_id),
        // A code of its own, as the pay page gets one (form-codes.ts), never the server's.
        authorization: await provider.client.freshVerificationCode(),
      },
      {
        firstName: "Ada",
        lastName: "Lovelace",
        email: "ada@example.com",
        phone: "+49 30 1234567",
        address: "Unter den Linden 1",
        city: "Berlin",
        postalCode: "10117",
        country: "DE",
      }
    ),
    cardAccountNumber: card.number,
    cardType: card.cardType,
    cardExpirationMonth: "12",
    cardExpirationYear: String(new Date(sandbox.now()).getUTCFullYear() + 3),
    ...formChanges,
  }
  const response = await request(`${sandbox.url}/order/start`, {
    method: "POST",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      "Sec-Fetch-Mode": "navigate",
      "Sec-Fetch-Dest": "document",
    },
    body: new URLSearchParams(fields).toString(),
  })
  const text = await response.body.text()
  const location = response.headers.location
  if (response.statusCode !== 303 || typeof location !== "string") {
    throw new Error(
      `/order/start answered ${response.statusCode}: ${text.slice(0, 300)}`
    )
  }
  const transactionId = new URL(location).searchParams.get("transactionId")
  if (!transactionId) {
    throw new Error(`no transactionId in ${location}`)
  }
  return transactionId
}

/** What the routes do with a reported transaction: updatePayment with the same terms. */
export async function attachTransaction(
  provider: CardServiceProviderService,
  session: CardServiceSessionData,
  transactionId: string
): Promise<CardServiceSessionData> {
  const { data } = await provider.updatePayment({
    amount: Number(session.amount),
    currency_code: session.currency_code,
    data: { ...session, transaction_id: transactionId },
    context: { idempotency_key: session.session_id },
  } as any)
  return data as unknown as CardServiceSessionData
}

/** A session paid with `card` and known to the provider, as the routes leave it. */
export async function paidSession(
  env: ProviderEnv,
  provider: CardServiceProviderService,
  card: Card = CARDS.approved,
  terms?: Terms
) {
  const session = await startSession(provider, terms)
  const transactionId = await payInBrowser(env.sandbox, provider, session, card)
  return {
    transactionId,
    session: await attachTransaction(provider, session, transactionId),
  }
}

/** authorizePayment as Medusa calls it for cart completion. */
export async function authorize(
  provider: CardServiceProviderService,
  session: unknown
) {
  const data = session as CardServiceSessionData
  const result = await provider.authorizePayment({
    data: data as any,
    context: { idempotency_key: data.session_id },
  } as any)
  return {
    status: result.status,
    data: result.data as unknown as CardServiceSessionData,
  }
}

/** The sandbox's records of one step for one original transaction. */
export function followOns(
  sandbox: CardServiceSandbox,
  step: string,
  originalTransactionId: string
) {
  return sandbox
    .transactions()
    .filter(
      (r) =>
        r.step === step && r.originalTransactionId === originalTransactionId
    )
}

/** The thrown error of a promise, or a failure when it resolves. */
export async function errorOf(promise: Promise<unknown>): Promise<any> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error("expected a rejection")
}
