import type { CardServiceSessionData } from "../../src/providers/card-service/session-data"
import type CardServiceProviderService from "../../src/providers/card-service/service"
import type { FakeMedusa } from "./fake-medusa"
import {
  CARDS,
  followOns,
  newSessionId,
  payInBrowser,
  providerOnSandbox,
  startSession,
  type Card,
  type ProviderEnv,
  type Terms,
} from "./provider-sandbox"

/** A card-service session of the file's provider, registered on a fake Medusa. */
export type SandboxSession = {
  providerId: string
  sessionId: string
  data: CardServiceSessionData
  /** The shopper pays on the service's page; the transactionId the redirect names. */
  pay: (card?: Card, formChanges?: Record<string, string>) => Promise<string>
  /** The service's reversals of a transaction. */
  reversals: (transactionId: string) => unknown[]
}

export type SandboxForFile = {
  readonly env: ProviderEnv
  readonly provider: CardServiceProviderService
  /**
   * Registers the provider on `medusa` and starts a session of `terms`
   * (30.00 EUR unless told) with it; the caller puts the session on a cart or
   * an order (FakeMedusa's addCart, addOrderBalance).
   */
  session: (medusa: FakeMedusa, terms?: Terms) => Promise<SandboxSession>
  /** Requests the service received (every endpoint), to see that a refused hint cost it nothing. */
  serviceCalls: () => number
}

/**
 * One in-process sandbox and one provider for a whole spec file (its
 * beforeAll and afterAll), as the settlement specs drive them with the fake
 * Medusa. One provider, so one overall anonymous-call budget for every
 * test's callbacks and returns: at the default (20 calls a second, a burst of
 * 100: call-budget.ts) a fast run spent it and a test met CallBudgetExceeded
 * by the order it ran in. The overall budget has its own tests
 * (tests/unit/checkout/call-budget.spec.ts); the per-session budget, which
 * the specs spend, is unchanged.
 */
export function sandboxForFile(): SandboxForFile {
  let env: ProviderEnv | undefined
  let provider: CardServiceProviderService | undefined

  beforeAll(async () => {
    env = await providerOnSandbox()
    provider = env.provider({ anonymousCallRate: 10_000 })
  })
  afterAll(async () => {
    await env?.close()
  })

  const started = () => {
    if (!env || !provider) throw new Error("the sandbox is not started yet (beforeAll)")
    return { env, provider }
  }
  return {
    get env() {
      return started().env
    },
    get provider() {
      return started().provider
    },
    async session(medusa, terms = { amount: 30, currency_code: "eur" }) {
      const { env, provider } = started()
      const providerId = medusa.addProvider(provider)
      const sessionId = newSessionId()
      const data = await startSession(provider, terms, sessionId)
      return {
        providerId,
        sessionId,
        data,
        pay: (card = CARDS.approved, formChanges = {}) => payInBrowser(env.sandbox, provider, data, card, formChanges),
        reversals: (transactionId) => followOns(env.sandbox, "REVERSAL", transactionId),
      }
    },
    serviceCalls: () => Object.values(started().env.sandbox.requestCounts()).reduce((sum, n) => sum + n, 0),
  }
}
