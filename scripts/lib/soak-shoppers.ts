/**
 * The soak's shoppers (issue 33): each builds a cart and pays with a card of
 * the mix, as a browser does (the form post, a 3DS challenge passed or
 * failed, the return), some with the cart changed after the form was
 * fetched, some paying in a second tab, some never coming back. Each
 * records what it saw; the invariants (soak-invariants.ts) judge the money.
 */
import { request } from "undici"
import { CARD_PROVIDER_ID, type Cluster } from "./load-cluster"
import { postPayForm, storeClient, toldByReturn, type PayForm, type TestCard } from "./load-shoppers"
import type { FaultInjector } from "./soak-inject"

export const SCENARIOS = [
  "frictionless",
  "challenge-pass",
  "challenge-fail",
  "decline",
  "partial",
  "review",
  "changed-cart",
  "second-tab",
  "never-returns",
] as const
export type Scenario = (typeof SCENARIOS)[number]

/** Shares of the mix, in parts (docs/benchmarks.md, "The soak"). */
export const DEFAULT_MIX: Record<Scenario, number> = {
  frictionless: 36,
  "challenge-pass": 12,
  "challenge-fail": 5,
  decline: 10,
  partial: 3,
  review: 6,
  "changed-cart": 7,
  "second-tab": 8,
  "never-returns": 13,
}

const card = (number: string, cardType = "VISA"): TestCard => ({ number, cardType })
/** The sandbox's test cards (docs/sandbox.md, "Test cards"). */
const CARDS = {
  frictionless: [card("4000000000001000"), card("5200000000001005", "MASTER"), card("3530000000001001", "JCB")],
  challenge: [card("4000001000001008"), card("5200001000001003", "MASTER"), card("3530001000001009", "JCB")],
  decline: [
    card("4000000000002032"),
    card("4000000000002040"),
    card("4000000000002057"),
    card("5200000000002037", "MASTER"),
    card("4000000000002115"),
    card("4000000000004004"),
  ],
  /** Declined after a challenge passed. */
  challengeDecline: [card("4000001000002030")],
  partial: [card("4000000000001109"), card("5200000000001104", "MASTER")],
  /** Marked for review (480); the review concludes approved, or rejected (481). */
  review: [card("4000000000004806"), card("4000000000004830")],
}

/** What the shopper saw at the end: its order, a failure, still pending, or nothing (it left). */
export type Outcome = "order" | "failed" | "pending" | "left" | "error"

export type SoakCheckout = {
  scenario: Scenario
  cartId?: string
  sessionId?: string
  /** Each form the shopper posted, by reference, and whether its browser came back to the store. */
  attempts: Array<{ reference: string; returned: boolean; told?: "paid" | "failed" | "pending" }>
  /** The first form post and the end of what the shopper waited for, ms since the epoch. */
  startedAt?: number
  endedAt?: number
  outcome: Outcome
  /** What the scenario leads to when nothing goes wrong. */
  expected: Outcome
  /** Form posts the service answered 5xx, too late or not at all, each paid again with a new form. */
  serviceErrors: number
  /** Store calls before the payment (cart, form) that failed and were made again, as a shopper reloads. */
  storeErrors: number
  error?: string
  /** The card-service provider the shopper paid with: the store's (automatic capture) or the authorize-only one (the owner captures). */
  providerId?: string
  /** What the store owner did with the order afterwards (soak-admin.ts), when the run's mix gave it an action. */
  owner?: { action: string; at?: number; outcome?: string; steps?: string[] }
}

/** How long a shopper with a "pending" answer polls before it gives up (a killed instance's cart lock lasts 120 s). */
const PATIENCE_MS = 300_000
const POLL_MS = 1_500
/** Tries of a store call before the payment: the shopper reloads the page after an error. */
const STORE_TRIES = 3

export function pickScenario(mix: Record<Scenario, number>, random: () => number): Scenario {
  const total = SCENARIOS.reduce((sum, s) => sum + mix[s], 0)
  let at = random() * total
  for (const scenario of SCENARIOS) {
    at -= mix[scenario]
    if (at < 0) return scenario
  }
  return SCENARIOS[0]
}

/** What a log line shows of a session a shopper pays: the pay page's URL, then the return's query (soak-adversary.ts). */
export type SessionLeak = { sessionId: string; reference?: string; transactionId?: string }

export function soakShopper(
  cluster: Cluster,
  faults: FaultInjector,
  random: () => number = Math.random,
  onLeak: (leak: SessionLeak) => void = () => {}
) {
  const shop = storeClient(cluster)
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)]

  /** A store call before the payment, made again after an error (a cut database connection answers 500). */
  const retried = async <T>(checkout: SoakCheckout, work: () => Promise<T>): Promise<T> => {
    for (let tries = 1; ; tries++) {
      try {
        return await work()
      } catch (error) {
        if (tries >= STORE_TRIES) throw error
        checkout.storeErrors++
        await new Promise((resolve) => setTimeout(resolve, 1500 * tries))
      }
    }
  }

  /** The pay form, with the callback faults in force set for its reference. */
  const formFor = async (sessionId: string, checkout: SoakCheckout): Promise<PayForm> => {
    const form = await retried(checkout, () => shop.formOf(sessionId))
    const knobs = faults.callbackKnobsNow(random)
    if (knobs) cluster.sandbox.setCallbackKnobs(knobs, form.fields.merchantReferenceCode)
    onLeak({ sessionId, reference: form.fields.merchantReferenceCode })
    return form
  }

  /**
   * The browser at the service: the form post, and the challenge answered
   * when the service shows one. The location the service sends it on to,
   * or null when the service answered an error or nothing.
   */
  const atService = async (form: PayForm, with_: TestCard, challenge: "pass" | "fail" = "pass") => {
    try {
      const posted = await postPayForm(form, with_)
      let location = posted.location
      if (posted.status === 303 && location.includes("/3ds/challenge/")) {
        const answered = await request(new URL(location, form.action).toString(), {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", "sec-fetch-mode": "navigate", "sec-fetch-dest": "document" },
          body: `result=${challenge}`,
        })
        await answered.body.dump()
        location = answered.statusCode === 303 ? String(answered.headers.location ?? "") : ""
      } else if (posted.status !== 303) {
        location = ""
      }
      return { location: location.includes("/card-service/return/") ? location : null, postedAt: posted.postedAt }
    } catch {
      return { location: null, postedAt: Date.now() }
    }
  }

  /** The browser back at the store: the return route's 303 to the storefront says paid, failed or pending. */
  const comeBack = async (location: string): Promise<"paid" | "failed" | "pending"> => {
    for (let attempt = 1; attempt <= 6; attempt++) {
      const back = await request(location, { method: "GET", headers: { "sec-fetch-mode": "navigate" } }).catch(() => null)
      await back?.body.dump()
      if (!back || back.statusCode >= 500) {
        await new Promise((resolve) => setTimeout(resolve, 1000 * attempt))
        continue
      }
      // A page instead of the redirect (the session gone and its payment not released yet): the
      // shopper goes back to the shop, which polls.
      const onwards = back.headers.location
      if (typeof onwards !== "string") return "pending"
      return toldByReturn(onwards)
    }
    return "pending"
  }

  /** The storefront polls the session until it is paid or failed, or the shopper runs out of patience. */
  const pollUntilDecided = async (sessionId: string): Promise<"paid" | "failed" | "pending"> => {
    const deadline = Date.now() + PATIENCE_MS
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS))
      const state = await shop.call("GET", `/store/card-service/sessions/${sessionId}`).catch(() => null)
      const outcome = state?.session?.outcome
      if (outcome === "paid" || outcome === "failed") return outcome
    }
    return "pending"
  }

  // A review (480) is an order on hold (issue 31): the shopper has its order.
  const expectedOf = (scenario: Scenario): Outcome =>
    scenario === "never-returns" ? "left" : ["challenge-fail", "decline", "partial"].includes(scenario) ? "failed" : "order"

  /**
   * `providerId`: the card-service provider the shopper pays with, the
   * store's (automatic capture) unless the store owner is to capture this
   * order by hand (AUTHORIZE_ONLY_PROVIDER_ID, soak-admin.ts).
   */
  return async function shopOnce(scenario: Scenario, providerId: string = CARD_PROVIDER_ID): Promise<SoakCheckout> {
    const checkout: SoakCheckout = {
      scenario,
      attempts: [],
      outcome: "error",
      expected: expectedOf(scenario),
      serviceErrors: 0,
      storeErrors: 0,
      ...(providerId === CARD_PROVIDER_ID ? {} : { providerId }),
    }
    try {
      const { cartId, sessionId } = await retried(checkout, () => shop.cartReadyToPay(providerId))
      Object.assign(checkout, { cartId, sessionId })

      /** Pays one form; on a service error the shopper reloads the pay page and pays with a new form, up to three times. */
      const pay = async (
        session: string,
        form: PayForm,
        with_: TestCard,
        challenge?: "pass" | "fail"
      ): Promise<{ location: string | null; reference: string }> => {
        for (let tries = 1; ; tries++) {
          const reference = form.fields.merchantReferenceCode
          const attempt = { reference, returned: false }
          checkout.attempts.push(attempt)
          const { location, postedAt } = await atService(form, with_, challenge)
          checkout.startedAt ??= postedAt
          if (location) {
            const query = new URL(location).searchParams
            onLeak({ sessionId: session, reference: query.get("merchantReferenceCode") ?? undefined, transactionId: query.get("transactionId") ?? undefined })
          }
          if (location || tries >= 3) return { location, reference }
          checkout.serviceErrors++
          await new Promise((resolve) => setTimeout(resolve, 2000))
          form = await formFor(session, checkout)
        }
      }
      const returnFrom = async (location: string | null, reference: string) => {
        if (!location) return "pending" as const
        const attempt = checkout.attempts.find((a) => a.reference === reference)!
        attempt.returned = true
        attempt.told = await comeBack(location)
        return attempt.told
      }
      const finish = async (seen: "paid" | "failed" | "pending", session = sessionId) => {
        const settled = seen === "pending" && checkout.expected !== "pending" ? await pollUntilDecided(session) : seen
        checkout.outcome = settled === "paid" ? "order" : settled
        checkout.endedAt = Date.now()
      }

      switch (scenario) {
        case "frictionless":
        case "challenge-pass":
        case "challenge-fail":
        case "decline":
        case "partial":
        case "review": {
          const with_ =
            scenario === "frictionless"
              ? pick(CARDS.frictionless)
              : scenario === "challenge-pass" || scenario === "challenge-fail"
                ? pick(CARDS.challenge)
                : scenario === "decline"
                  ? pick([...CARDS.decline, ...CARDS.challengeDecline])
                  : scenario === "partial"
                    ? pick(CARDS.partial)
                    : pick(CARDS.review)
          const paid = await pay(sessionId, await formFor(sessionId, checkout), with_, scenario === "challenge-fail" ? "fail" : "pass")
          await finish(await returnFrom(paid.location, paid.reference))
          break
        }
        case "never-returns": {
          await pay(sessionId, await formFor(sessionId, checkout), pick(CARDS.frictionless))
          checkout.outcome = "left"
          checkout.endedAt = Date.now()
          break
        }
        case "second-tab": {
          const first = await formFor(sessionId, checkout)
          const second = await formFor(sessionId, checkout)
          const [a, b] = await Promise.all([
            pay(sessionId, first, pick(CARDS.frictionless)),
            pay(sessionId, second, pick(CARDS.frictionless)),
          ])
          const seen = await Promise.all([returnFrom(a.location, a.reference), returnFrom(b.location, b.reference)])
          await finish(seen.includes("paid") ? "paid" : seen.includes("pending") ? "pending" : "failed")
          break
        }
        case "changed-cart": {
          const stale = await formFor(sessionId, checkout)
          const { variantIds } = await shop.loadCatalog()
          await retried(checkout, () => shop.call("POST", `/store/carts/${cartId}/line-items`, { variant_id: pick(variantIds), quantity: 1 }))
          const old = await pay(sessionId, stale, pick(CARDS.frictionless))
          await returnFrom(old.location, old.reference)
          // Medusa dropped the session with the cart's change: a new one, paid again.
          const { payment_collection } = await retried(checkout, () => shop.call("POST", "/store/payment-collections", { cart_id: cartId }))
          const { payment_collection: renewed } = await retried(checkout, () =>
            shop.call("POST", `/store/payment-collections/${payment_collection.id}/payment-sessions`, { provider_id: providerId })
          )
          const session = renewed.payment_sessions.find(
            (s: { id: string; provider_id: string }) => s.provider_id === providerId && s.id !== sessionId
          ).id
          checkout.sessionId = session
          const renewedPay = await pay(session, await formFor(session, checkout), pick(CARDS.frictionless))
          await finish(await returnFrom(renewedPay.location, renewedPay.reference), session)
          break
        }
      }
    } catch (error) {
      checkout.outcome = "error"
      checkout.error = (error as Error).message.slice(0, 300)
      checkout.endedAt = Date.now()
    }
    return checkout
  }
}
