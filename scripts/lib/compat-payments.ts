/**
 * What `npm run test:compat` does with each fresh store, over HTTP as a
 * storefront, a shopper's browser and a store owner do it: a payment with a
 * 3DS challenge taken to an order, captured and refunded in part; a second
 * payment whose one callback is lost (the service's retrieve answered 503
 * while the store handled it, no redelivery, the shopper never came back),
 * which the sweep settles into an order, and whose capture is then voided;
 * a third order canceled before capture, whose payment must show the
 * reversal; the admin's Settings > Card service page and the order widget in a real
 * browser. Each step's outcome is checked at the store (admin API) and at
 * the service (the sandbox's records).
 */
import { request } from "undici"
import { TEST_CARDS, type CardServiceSandbox } from "../../src/sandbox"
import { postPaymentForm } from "../../integration-tests/helpers/browser-step"
import {
  adminCall,
  adminPost,
  adminToken,
  cardServicePayment,
  logIn,
  type AdminAccess,
} from "../../tests/helpers/admin-http"
import { launchChromium } from "../../tests/helpers/chromium"
import {
  answerChallenge,
  BROWSER_NAVIGATION,
} from "../../tests/helpers/sandbox-http"
import { CARD_PROVIDER_ID } from "./load-cluster"
import { storeClient, type StoreAccess } from "./load-shoppers"

export const STEPS = [
  "3DS order",
  "capture",
  "refund",
  "sweep",
  "void",
  "cancel",
  "admin pages",
] as const
export type PaymentStep = (typeof STEPS)[number]

export type StepOutcome = {
  step: PaymentStep
  ok: boolean
  seconds: number
  error?: string
}

/** The approved VISA whose 3DS asks for a challenge, and the one that passes without. */
const CHALLENGE_CARD = testCard("challenge")
const FRICTIONLESS_CARD = testCard("frictionless")

function testCard(threeDs: "challenge" | "frictionless") {
  const card = TEST_CARDS.find(
    (c) =>
      c.cardType === "VISA" && c.reasonCode === "100" && c.threeDs === threeDs
  )
  if (!card)
    throw new Error(`the sandbox has no approved VISA with a ${threeDs} 3DS`)
  return { number: card.number, cardType: card.cardType }
}

/**
 * Runs the steps in order; a step that fails makes the ones that need its
 * result fail with "not reached". Returns one outcome per step.
 */
export async function runPaymentSteps({
  store,
  admin,
  sandbox,
  log,
}: {
  store: StoreAccess
  admin: AdminAccess
  sandbox: CardServiceSandbox
  log: (line: string) => void
}): Promise<StepOutcome[]> {
  const outcomes: StepOutcome[] = []
  const client = storeClient(store)
  const token = await adminToken(admin)
  const step = async <T>(
    name: PaymentStep,
    run: () => Promise<T>,
    needs: boolean = true
  ): Promise<T | undefined> => {
    const started = Date.now()
    if (!needs) {
      outcomes.push({ step: name, ok: false, seconds: 0, error: "not reached" })
      return undefined
    }
    log(`  ${name}`)
    try {
      const result = await run()
      outcomes.push({
        step: name,
        ok: true,
        seconds: (Date.now() - started) / 1000,
      })
      return result
    } catch (error) {
      outcomes.push({
        step: name,
        ok: false,
        seconds: (Date.now() - started) / 1000,
        error: (error as Error).message,
      })
      return undefined
    }
  }
  const paymentOf = (orderId: string) =>
    cardServicePayment(admin, token, orderId)
  const recordsOf = (predicate: (r: any) => boolean) =>
    sandbox.transactions().filter(predicate)
  /** A cart ready to pay, its pay form posted to the service with `card`: where the service sends the browser. */
  const payAtService = async (card: { number: string; cardType: string }) => {
    const { cartId, sessionId } = await client.cartReadyToPay(CARD_PROVIDER_ID)
    const { form } = await client.call(
      "GET",
      `/store/card-service/sessions/${sessionId}/form`
    )
    const { serviceLocation } = await postPaymentForm(form, card)
    return {
      cartId,
      sessionId,
      location: expectValue(
        serviceLocation,
        "the service's answer to the form"
      ),
    }
  }

  const orderId = await step("3DS order", async () => {
    const { location } = await payAtService(CHALLENGE_CARD)
    // The service sends the browser on within its own site (a path).
    const challenge = new URL(location, sandbox.url)
    if (!challenge.pathname.startsWith("/3ds/challenge/")) {
      throw new Error(
        `the challenge card was not sent to a 3DS challenge: ${challenge}`
      )
    }
    const passed = await answerChallenge(sandbox, challenge.pathname, "pass")
    return await orderFromReturn(
      expectValue(passed.headers.location, "the challenge's redirect")
    )
  })

  const captured = await step(
    "capture",
    async () => {
      const payment = await paymentOf(orderId!)
      await adminPost(admin, token, `/admin/payments/${payment.id}/capture`, {})
      const after = await paymentOf(orderId!)
      if (!after.captured_at || after.data?.state !== "captured") {
        throw new Error(
          `Medusa does not show the payment captured: ${JSON.stringify({ captured_at: after.captured_at, state: after.data?.state })}`
        )
      }
      const captures = recordsOf(
        (r) =>
          r.step === "CAPTURE" &&
          r.originalTransactionId === payment.data.transaction_id
      )
      if (captures.length !== 1 || captures[0].status !== "successful") {
        throw new Error(
          `the service holds ${captures.length} capture(s): ${JSON.stringify(captures)}`
        )
      }
      return after
    },
    orderId !== undefined
  )

  await step(
    "refund",
    async () => {
      const amount = 10
      await adminPost(admin, token, `/admin/payments/${captured!.id}/refund`, {
        amount,
      })
      const after = await paymentOf(orderId!)
      const refunds = (after.refunds ?? []).map((r: any) => Number(r.amount))
      if (
        refunds.length !== 1 ||
        refunds[0] !== amount ||
        after.data?.refunded_amount !== amount
      ) {
        throw new Error(
          `Medusa shows refunds ${JSON.stringify(refunds)}, the plugin ${after.data?.refunded_amount}`
        )
      }
      const atService = recordsOf(
        (r) =>
          r.step === "REFUND" &&
          r.originalTransactionId === after.data.capture.transaction_id
      )
      if (
        atService.length !== 1 ||
        atService[0].amount !== amount ||
        atService[0].status !== "successful"
      ) {
        throw new Error(
          `the service holds refunds ${JSON.stringify(atService)}`
        )
      }
    },
    captured !== undefined
  )

  const swept = await step("sweep", async () => {
    // The one callback delivery is answered 503 (retrieve is down while the
    // store handles it) and the service does not try again.
    sandbox.setCallbackKnobs({ retries: 0 })
    sandbox.injectFault({
      type: "status",
      status: 503,
      count: 20,
      path: "/payment/retrieve",
    })
    let paid: Awaited<ReturnType<typeof payAtService>>
    try {
      paid = await payAtService(FRICTIONLESS_CARD)
      if (!paid.location.includes("/card-service/return/")) {
        throw new Error(`the service answered the form with ${paid.location}`)
      }
      const { sessionId } = paid
      await sandbox.waitForCallbacks(
        (d) => d.some((c) => c.url.includes(sessionId) && c.status === 503),
        30_000
      )
    } finally {
      sandbox.clearFaults()
      sandbox.resetKnobs()
    }
    const { cartId, sessionId } = paid
    // The shopper never comes back: only the sweep can make the order.
    if ((await orderOfCart(store, cartId)) !== null)
      throw new Error("an order exists before the sweep")
    const deadline = Date.now() + 120_000
    for (;;) {
      const run = await adminPost(
        admin,
        token,
        "/admin/card-service/reconciliation",
        {}
      )
      const order = await orderOfCart(store, cartId)
      if (order) {
        // When the store's own per-minute sweep made the order (this run's
        // answered ran: false), its note is written once its pass has
        // settled the session, a moment after the order: look for a while.
        let entry: any
        for (const until = Date.now() + 15_000; ; ) {
          const { entries } = await adminCall(
            admin,
            token,
            "GET",
            "/admin/card-service/reconciliation"
          )
          entry = entries.find((e: any) => e.id === sessionId)
          if (entry?.status === "order_created" || Date.now() > until) break
          await new Promise((resolve) => setTimeout(resolve, 1000))
        }
        if (entry?.status !== "order_created") {
          throw new Error(
            `the order exists, but the sweep's list says ${JSON.stringify(entry)}`
          )
        }
        return order
      }
      // ran: false while the store's own per-minute sweep holds the lock.
      if (Date.now() > deadline)
        throw new Error(
          `no order after sweeping for 2 minutes; last sweep: ${JSON.stringify(run)}`
        )
      await new Promise((resolve) => setTimeout(resolve, 2000))
    }
  })

  await step(
    "void",
    async () => {
      const payment = await paymentOf(swept!)
      await adminPost(admin, token, `/admin/payments/${payment.id}/capture`, {})
      const captureId = (await paymentOf(swept!)).data.capture.transaction_id
      const answer = await adminPost(
        admin,
        token,
        `/admin/card-service/payments/${payment.id}/void`,
        {
          transaction_id: captureId,
        }
      )
      if (answer.voided?.type !== "CAPTURE")
        throw new Error(`the void answered ${JSON.stringify(answer)}`)
      const atService = sandbox.transaction(captureId)?.captureStatus
      if (atService !== "VOIDED")
        throw new Error(`the service holds the capture as ${atService}`)
    },
    swept !== undefined
  )

  await step("cancel", async () => {
    const order = await orderFromReturn(
      (await payAtService(FRICTIONLESS_CARD)).location
    )
    const approval = (await paymentOf(order)).data.transaction_id
    await adminPost(admin, token, `/admin/orders/${order}/cancel`, {})
    // The payment shows the reversal (on Medusa 2.12 to 2.14 once the
    // plugin's order.canceled subscriber has written it).
    const deadline = Date.now() + 30_000
    let payment = await paymentOf(order)
    while (payment.data?.state !== "canceled" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1000))
      payment = await paymentOf(order)
    }
    const logged = (payment.data?.transactions ?? []).map(
      (t: any) => t.operation
    )
    if (
      !payment.canceled_at ||
      payment.data?.state !== "canceled" ||
      !logged.includes("reversal")
    ) {
      throw new Error(
        `Medusa shows the canceled order's payment as ${JSON.stringify({ canceled_at: payment.canceled_at, state: payment.data?.state, log: logged })}`
      )
    }
    const reversals = recordsOf(
      (r) => r.step === "REVERSAL" && r.originalTransactionId === approval
    ).filter((r) => r.status === "successful")
    if (reversals.length !== 1) {
      throw new Error(
        `the service holds ${reversals.length} reversal(s) of the approval`
      )
    }
  })

  await step(
    "admin pages",
    () => checkAdminPages(admin, orderId!),
    orderId !== undefined
  )
  return outcomes
}

/**
 * The plugin's admin extensions in the store's dashboard: Settings > Card
 * service with its connection test, and the order widget listing the
 * service's approval, capture and refund of the first payment.
 */
async function checkAdminPages(admin: AdminAccess, orderId: string) {
  const browser = await launchChromium()
  try {
    const page = await browser.newPage({
      viewport: { width: 1440, height: 1000 },
    })
    await logIn(page, admin)
    await page.goto(`${admin.admin}/settings/card-service`)
    const settings = page.getByTestId("card-service-settings")
    await settings
      .getByRole("heading", { name: "Card service" })
      .waitFor({ timeout: 120_000 })
    await settings.getByRole("button", { name: "Test connection" }).click()
    const result = page.getByTestId("card-service-connection-result")
    await result.waitFor({ timeout: 30_000 })
    const connected = (await result.textContent()) ?? ""
    if (!/^Connected/.test(connected))
      throw new Error(`Test connection says: ${connected}`)

    await page.goto(`${admin.admin}/orders/${orderId}`)
    const widget = page.getByTestId("card-service-order-widget")
    await widget.waitFor({ timeout: 120_000 })
    const rows = widget.getByTestId("card-service-transaction")
    await rows.nth(2).waitFor({ timeout: 30_000 })
    const texts = await rows.allTextContents()
    const expected = [
      /Approval.*successful/,
      /Capture.*successful/,
      /Refund.*successful/,
    ]
    if (
      texts.length !== 3 ||
      !expected.every((pattern, i) => pattern.test(texts[i]))
    ) {
      throw new Error(`the order widget lists ${JSON.stringify(texts)}`)
    }
  } finally {
    await browser.close()
  }
}

/** The shopper's browser back at the store's return route: the order it names. */
async function orderFromReturn(returnUrl: string): Promise<string> {
  const back = await request(returnUrl, {
    method: "GET",
    headers: BROWSER_NAVIGATION,
  })
  await back.body.dump()
  const storefront = new URL(
    expectValue(back.headers.location, "the return route's redirect")
  )
  const order = storefront.searchParams.get("order_id")
  if (storefront.searchParams.get("status") !== "paid" || !order)
    throw new Error(`the return route sent the shopper to ${storefront}`)
  return order
}

async function orderOfCart(
  store: StoreAccess,
  cartId: string
): Promise<string | null> {
  const rows = await store.query(
    "SELECT order_id FROM order_cart WHERE cart_id = $1 AND deleted_at IS NULL",
    [cartId]
  )
  return rows[0]?.order_id ?? null
}

function expectValue(
  value: string | string[] | null | undefined,
  what: string
): string {
  const text = Array.isArray(value) ? value[0] : value
  if (!text) throw new Error(`${what} has no location`)
  return text
}
