import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { request } from "undici"
import { useCardServiceSandbox } from "../helpers/card-service-env"
import { NAVIGATION_HEADERS, payLikeABrowser } from "../helpers/browser-step"
import { CARDS, cartWithSession, orderOfCart, paymentOfOrder } from "../helpers/checkout-flow"
import { sweepCardServicePayments } from "../../src/reconciliation/sweep"
import type { HeldAnswer } from "../../src/sandbox"

jest.setTimeout(120_000)

const env = useCardServiceSandbox()

const CHALLENGE_FAILED_FRICTIONLESS = { number: "4000000000004764", cardType: "VISA" }
const UNDER_REVIEW = { number: "4000000000004806", cardType: "VISA" }

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    beforeEach(() => env.sandbox().resetKnobs())

    const sandbox = () => env.sandbox()
    const paymentSession = async (sessionId: string): Promise<{ status: string; data: any }> =>
      getContainer().resolve("payment").retrievePaymentSession(sessionId)
    const transactionOf = (location: string | null) =>
      new URL(location as string).searchParams.get("transactionId") as string
    const postCallback = (sessionId: string, body: Record<string, string>, form = false) =>
      request(`${env.backendUrl()}/card-service/callback/${sessionId}/`, {
        method: "POST",
        headers: {
          "content-type": form ? "application/x-www-form-urlencoded" : "application/json",
        },
        body: form ? new URLSearchParams(body).toString() : JSON.stringify(body),
      }).then(async (response) => ({ status: response.statusCode, body: await response.body.json() }))
    /** A result as the service's callback sends it: with its payment request's reference (section 2.5). */
    const resultBody = (transactionId: string, reasonCode = "100"): Record<string, string> => {
      const reference = sandbox().transaction(transactionId)?.merchantReferenceCode
      return {
        decision: reasonCode === "100" ? "ACCEPT" : "REJECT",
        reasonCode,
        transactionId,
        originalTransactionId: "",
        ...(reference ? { merchantReferenceCode: reference } : {}),
      }
    }
    /** Pays at the service while Medusa hears nothing (no callback, no return). */
    const approveSilently = async (card: { number: string; cardType: string } = CARDS.approved, store?: any) => {
      const flow = await cartWithSession(api, getContainer(), store)
      sandbox().setCallbackKnobs({ drop: true })
      const paid = await payLikeABrowser(api, flow.store.publishableKey, flow.session.id, card, {
        followReturn: false,
      })
      sandbox().resetKnobs()
      return { ...flow, paid, transactionId: transactionOf(paid.serviceLocation) }
    }

    describe("a shopper paying on the card service", () => {
      it("gets an order with an authorized payment; callback first, then the return finds it", async () => {
        const { store, cart, session } = await cartWithSession(api, getContainer())

        const paid = await payLikeABrowser(api, store.publishableKey, session.id, CARDS.approved, {
          followReturn: false,
        })
        const orderAfterCallback = await orderOfCart(getContainer(), cart.id)
        const back = await request(paid.serviceLocation as string)
        await back.body.dump()
        const storefront = new URL(back.headers.location as string)

        expect(orderAfterCallback).toMatch(/^order_/)
        expect(storefront.origin).toBe("http://localhost:8000")
        expect(storefront.searchParams.get("status")).toBe("paid")
        expect(storefront.searchParams.get("order_id")).toBe(orderAfterCallback)
        const payment = await paymentOfOrder(getContainer(), orderAfterCallback as string)
        expect(payment.data.state).toBe("authorized")
        expect(sandbox().transaction(payment.data.transaction_id)).toMatchObject({
          step: "AUTHORIZATION",
          status: "successful",
          amount: 30,
          currencyCode: "978",
        })
        expect(sandbox().callbacks().filter((c) => c.url.includes(session.id)).map((c) => c.status)).toEqual([200])
      })

      it("asks the service once on the way from the callback to the order: the settlement's retrieve, which the completion takes on (#43)", async () => {
        const { cart, transactionId, session } = await approveSilently()
        const before = sandbox().retrievesOf(transactionId).length

        expect((await postCallback(session.id, resultBody(transactionId))).status).toBe(200)

        const orderId = await orderOfCart(getContainer(), cart.id)
        expect(orderId).toMatch(/^order_/)
        expect(sandbox().retrievesOf(transactionId).length - before).toBe(1)
        const payment = await paymentOfOrder(getContainer(), orderId as string)
        expect(payment.data).toMatchObject({ state: "authorized", transaction_id: transactionId, verified: null })
        expect(payment.data.card).toEqual({ type: "VISA", suffix: expect.stringMatching(/^\d{4}$/) })
      })

      it("completes the order from the return when the callback never comes", async () => {
        const { store, cart, session } = await cartWithSession(api, getContainer())
        sandbox().setCallbackKnobs({ drop: true })

        const paid = await payLikeABrowser(api, store.publishableKey, session.id, CARDS.approved)

        expect(paid.storefrontLocation?.searchParams.get("status")).toBe("paid")
        const orderId = await orderOfCart(getContainer(), cart.id)
        expect(paid.storefrontLocation?.searchParams.get("order_id")).toBe(orderId)
        expect((await paymentOfOrder(getContainer(), orderId as string)).data.state).toBe("authorized")
      })

      it("completes the order from the callback when the browser never returns", async () => {
        const { cart, transactionId, session } = await approveSilently()
        expect(await orderOfCart(getContainer(), cart.id)).toBeNull()

        const answer = await postCallback(session.id, resultBody(transactionId))

        expect(answer).toEqual({ status: 200, body: { received: true } })
        const orderId = await orderOfCart(getContainer(), cart.id)
        expect(orderId).toMatch(/^order_/)
        expect((await paymentOfOrder(getContainer(), orderId as string)).data.transaction_id).toBe(transactionId)
      })

      it("writes no hint note for a callback that makes the order (the note is for results left unsettled)", async () => {
        const { cart, transactionId, session } = await approveSilently()

        const answer = await postCallback(session.id, resultBody(transactionId))

        expect(answer).toEqual({ status: 200, body: { received: true } })
        expect(await orderOfCart(getContainer(), cart.id)).toMatch(/^order_/)
        const payment = getContainer().resolve("payment") as any
        const [stored] = await payment.listPaymentSessions(
          { id: session.id },
          { select: ["id", "metadata", "payment_collection_id"] }
        )
        expect(stored.metadata?.card_service?.hints).toBeUndefined()
        const collection = await payment.retrievePaymentCollection(stored.payment_collection_id, {
          select: ["id", "metadata"],
        })
        expect(collection.metadata?.card_service_hints ?? {}).toEqual({})
      })

      it("notes the hint of a callback whose payment made no order (declined), for the sweep", async () => {
        const { transactionId, session } = await approveSilently(CARDS.declined)

        const answer = await postCallback(session.id, resultBody(transactionId, "203"))

        expect(answer.status).toBe(200)
        const payment = getContainer().resolve("payment") as any
        const [stored] = await payment.listPaymentSessions({ id: session.id }, { select: ["id", "metadata"] })
        expect(stored.metadata?.card_service?.hints).toEqual([
          expect.objectContaining({ transaction_id: transactionId, source: "callback" }),
        ])
      })

      it("accepts a form-encoded callback", async () => {
        const { cart, transactionId, session } = await approveSilently()

        const answer = await postCallback(session.id, resultBody(transactionId), true)

        expect(answer.status).toBe(200)
        expect(await orderOfCart(getContainer(), cart.id)).toMatch(/^order_/)
      })

      it("makes one order of ten concurrent duplicate callbacks", async () => {
        const { cart, transactionId, session } = await approveSilently()

        const answers = await Promise.all(
          Array.from({ length: 10 }, () => postCallback(session.id, resultBody(transactionId)))
        )

        expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200))
        const query = getContainer().resolve("query")
        const { data: orders } = await query.graph({
          entity: "order_cart",
          fields: ["order_id"],
          filters: { cart_id: cart.id },
        })
        expect(orders).toHaveLength(1)
        const { data: payments } = await query.graph({
          entity: "payment",
          fields: ["id"],
          filters: { payment_session_id: session.id },
        })
        expect(payments).toHaveLength(1)
        expect(
          sandbox().transactions().filter((r) => r.originalTransactionId === transactionId)
        ).toHaveLength(0)
      })

      it("sends a declined shopper back with the reason and a way to try again", async () => {
        const { store, cart, session } = await cartWithSession(api, getContainer())

        const paid = await payLikeABrowser(api, store.publishableKey, session.id, CARDS.declined)

        const back = paid.storefrontLocation as URL
        expect(back.searchParams.get("status")).toBe("failed")
        expect(back.searchParams.get("reason_code")).toBe("203")
        // A plain sentence for the shopper; the code stays for the storefront's logic and the admin.
        expect(back.searchParams.get("reason")).toBe("Your bank declined the payment. Try another card.")
        expect(back.searchParams.get("retry_url")).toBe(`${env.backendUrl()}/card-service/pay/${session.id}`)
        expect(await orderOfCart(getContainer(), cart.id)).toBeNull()
        const stored = await paymentSession(session.id)
        expect(stored.data.failure.code).toBe("203")
        expect(sandbox().transaction(transactionOf(paid.serviceLocation))?.status).toBe("declined")

        // The same session can be paid again with another card.
        const retry = await payLikeABrowser(api, store.publishableKey, session.id, CARDS.approved)
        expect(retry.storefrontLocation?.searchParams.get("status")).toBe("paid")
        expect(await orderOfCart(getContainer(), cart.id)).toMatch(/^order_/)
      })

      it("places the order on hold for a payment the service has under review (480)", async () => {
        const { store, cart, session } = await cartWithSession(api, getContainer())

        const paid = await payLikeABrowser(api, store.publishableKey, session.id, UNDER_REVIEW)

        expect(paid.storefrontLocation?.searchParams.get("status")).toBe("paid")
        expect(paid.storefrontLocation?.searchParams.get("payment")).toBe("under_review")
        const orderId = await orderOfCart(getContainer(), cart.id)
        expect(orderId).toMatch(/^order_/)
        const { data } = await api.get(`/store/card-service/sessions/${session.id}`, {
          headers: { "x-publishable-api-key": store.publishableKey },
        })
        expect(data.session).toMatchObject({ outcome: "paid", order_id: orderId, status: "pending_authorization" })
        expect(sandbox().callbacks().filter((c) => c.url.includes(session.id)).map((c) => c.status)).toEqual([200])
      })

      it("brings the shopper back after a failed 3DS authentication (isRedirect Y)", async () => {
        const { store, cart, session } = await cartWithSession(api, getContainer())

        const paid = await payLikeABrowser(
          api,
          store.publishableKey,
          session.id,
          CHALLENGE_FAILED_FRICTIONLESS
        )

        expect(paid.fields.isRedirect).toBe("Y")
        expect(paid.storefrontLocation?.searchParams.get("status")).toBe("failed")
        expect(paid.storefrontLocation?.searchParams.get("reason_code")).toBe("476")
        expect(await orderOfCart(getContainer(), cart.id)).toBeNull()
        expect(sandbox().transaction(transactionOf(paid.serviceLocation))?.reasonCode).toBe("476")
      })
    })

    describe("a shopper paying from two tabs", () => {
      it("reverses the second tab's approval after the order exists and tells that tab so", async () => {
        const { store, cart, session } = await cartWithSession(api, getContainer())
        // Both tabs load the pay page before either pays.
        const { data: secondTab } = await api.get(
          `/store/card-service/sessions/${session.id}/form`,
          {
            headers: { "x-publishable-api-key": store.publishableKey },
          }
        )
        const first = await payLikeABrowser(api, store.publishableKey, session.id, CARDS.approved)
        const orderId = await orderOfCart(getContainer(), cart.id)
        expect(first.storefrontLocation?.searchParams.get("status")).toBe("paid")

        const posted = await request(secondTab.form.action, {
          method: "POST",
          headers: NAVIGATION_HEADERS,
          body: new URLSearchParams({
            ...secondTab.form.fields,
            cardAccountNumber: CARDS.approved.number,
            cardType: CARDS.approved.cardType,
            cardExpirationMonth: "12",
            cardExpirationYear: String(new Date().getUTCFullYear() + 3),
          }).toString(),
        })
        await posted.body.dump()
        const secondTransaction = transactionOf(posted.headers.location as string)
        const back = await request(posted.headers.location as string)
        await back.body.dump()
        const storefront = new URL(back.headers.location as string)

        expect(sandbox().transaction(secondTransaction)).toMatchObject({
          status: "successful",
        })
        expect(storefront.searchParams.get("status")).toBe("paid")
        expect(storefront.searchParams.get("order_id")).toBe(orderId)
        expect(storefront.searchParams.get("second_payment")).toBe("released")
        expect(
          sandbox()
            .transactions()
            .filter((r) => r.step === "REVERSAL" && r.originalTransactionId === secondTransaction)
            .filter((r) => r.status === "successful")
        ).toHaveLength(1)
        // The order keeps the first tab's payment, which is not reversed.
        const payment = await paymentOfOrder(getContainer(), orderId as string)
        expect(payment.data.transaction_id).not.toBe(secondTransaction)
        expect(
          sandbox()
            .transactions()
            .filter(
              (r) =>
                r.step === "REVERSAL" && r.originalTransactionId === payment.data.transaction_id
            )
        ).toHaveLength(0)
      })
    })

    describe("a database fault while a callback is checked", () => {
      it("answers 503 and reverses nothing when the session cannot be loaded", async () => {
        const { cart, transactionId, session } = await approveSilently()
        const paymentModule = getContainer().resolve("payment")
        const retrieve = paymentModule.retrievePaymentSession
        // The database drops the connection for this one lookup.
        paymentModule.retrievePaymentSession = async () => {
          throw new Error("Connection terminated unexpectedly")
        }
        let answer: { status: number; body: unknown }
        try {
          answer = await postCallback(session.id, resultBody(transactionId))
        } finally {
          paymentModule.retrievePaymentSession = retrieve
        }

        expect(answer.status).toBe(503)
        expect(sandbox().transactions().filter((r) => r.originalTransactionId === transactionId)).toHaveLength(0)
        // Delivered again once the database is back, the result becomes the order.
        const again = await postCallback(session.id, resultBody(transactionId))
        expect(again.status).toBe(200)
        expect(await orderOfCart(getContainer(), cart.id)).toMatch(/^order_/)
      })
    })

    describe("a hostile browser or a forger", () => {
      it("changes nothing with a forged callback for an unpaid session", async () => {
        const { cart, session } = await cartWithSession(api, getContainer())
        const before = await paymentSession(session.id)

        const madeUp = await postCallback(session.id, resultBody("179000000000000000001"))
        const malformed = await postCallback(session.id, { decision: "ACCEPT" } as any)

        expect(madeUp.status).toBe(200)
        expect(malformed.status).toBe(400)
        expect(await orderOfCart(getContainer(), cart.id)).toBeNull()
        const after = await paymentSession(session.id)
        expect(after.data).toEqual(before.data)
        expect(after.status).toBe("pending")
      })

      it("reverses an approval for a lowered amount and fails the session", async () => {
        const { store, cart, session } = await cartWithSession(api, getContainer())

        const paid = await payLikeABrowser(api, store.publishableKey, session.id, CARDS.approved, {
          editFields: (fields) => ({ ...fields, amount: "1.00" }),
        })

        const transactionId = transactionOf(paid.serviceLocation)
        expect(sandbox().transaction(transactionId)).toMatchObject({ status: "successful", amount: 1 })
        expect(paid.storefrontLocation?.searchParams.get("status")).toBe("failed")
        expect(paid.storefrontLocation?.searchParams.get("reason_code")).toBe("mismatch")
        expect(await orderOfCart(getContainer(), cart.id)).toBeNull()
        const reversals = sandbox()
          .transactions()
          .filter((r) => r.step === "REVERSAL" && r.originalTransactionId === transactionId)
        expect(reversals.map((r) => r.status)).toEqual(["successful"])
        expect((await paymentSession(session.id)).data.failure.code).toBe("mismatch")
      })

      it("reverses an approval in another currency and fails the session", async () => {
        const { store, cart, session } = await cartWithSession(api, getContainer())

        const paid = await payLikeABrowser(api, store.publishableKey, session.id, CARDS.approved, {
          editFields: (fields) => ({ ...fields, currency: "840" }),
        })

        const transactionId = transactionOf(paid.serviceLocation)
        expect(sandbox().transaction(transactionId)).toMatchObject({ status: "successful", currencyCode: "840" })
        expect(paid.storefrontLocation?.searchParams.get("reason_code")).toBe("mismatch")
        expect(await orderOfCart(getContainer(), cart.id)).toBeNull()
        expect(
          sandbox()
            .transactions()
            .filter((r) => r.step === "REVERSAL" && r.originalTransactionId === transactionId)
        ).toHaveLength(1)
      })

      it("ignores another session's transaction replayed to this one", async () => {
        const victim = await approveSilently()
        await postCallback(victim.session.id, resultBody(victim.transactionId))
        const victimOrder = await orderOfCart(getContainer(), victim.cart.id)
        const { cart, session } = await cartWithSession(api, getContainer(), victim.store)

        const replayed = await postCallback(session.id, resultBody(victim.transactionId))
        const back = await request(
          `${env.backendUrl()}/card-service/return/${session.id}/?transactionId=${victim.transactionId}&decision=ACCEPT&reasonCode=100`
        )
        await back.body.dump()

        expect(replayed.status).toBe(200)
        expect(new URL(back.headers.location as string).searchParams.get("status")).toBe("pending")
        expect(await orderOfCart(getContainer(), cart.id)).toBeNull()
        expect((await paymentSession(session.id)).data.transaction_id).toBeNull()
        // The victim's payment is untouched.
        expect(await orderOfCart(getContainer(), victim.cart.id)).toBe(victimOrder)
        expect(
          sandbox()
            .transactions()
            .filter((r) => r.originalTransactionId === victim.transactionId)
        ).toHaveLength(0)
      })

      it("places no order for a payment whose reference carries another session's nonce and MAC", async () => {
        // The forger's own session gives a valid nonce and MAC; moved under
        // the target session's id they must not pay for it.
        const { store, cart, session } = await cartWithSession(api, getContainer())
        const own = await cartWithSession(api, getContainer(), store)
        const targetPart = session.id.replace(/^payses_/, "")
        sandbox().setCallbackKnobs({ drop: true })
        const paid = await payLikeABrowser(api, store.publishableKey, own.session.id, CARDS.approved, {
          followReturn: false,
          editFields: (fields) => {
            const [, nonce, mac] = fields.merchantReferenceCode.split(".")
            return { ...fields, merchantReferenceCode: `${targetPart}.${nonce}.${mac}` }
          },
        })
        sandbox().resetKnobs()
        const transactionId = transactionOf(paid.serviceLocation)
        expect(sandbox().transaction(transactionId)).toMatchObject({
          merchantReferenceCode: expect.stringMatching(new RegExp(`^${targetPart}\\.`)),
          status: "successful",
          amount: 30,
        })

        const answer = await postCallback(session.id, resultBody(transactionId))
        const back = await request(
          `${env.backendUrl()}/card-service/return/${session.id}/?transactionId=${transactionId}&decision=ACCEPT&reasonCode=100`
        )
        await back.body.dump()

        expect(answer.status).toBe(200)
        expect(new URL(back.headers.location as string).searchParams.get("status")).toBe("pending")
        expect(await orderOfCart(getContainer(), cart.id)).toBeNull()
        expect(await orderOfCart(getContainer(), own.cart.id)).toBeNull()
        expect((await paymentSession(session.id)).data.transaction_id).toBeNull()
      })

      it.each([
        // Not even a URL (its port is not a number), but it starts like the storefront's.
        "http://localhost:8000.evil.com/checkout",
        "http://localhost:8000@evil.com/checkout",
      ])("sends the shopper back to the storefront, not to a return_to of %s", async (returnTo) => {
        const { store, session } = await cartWithSession(api, getContainer(), undefined, {
          return_to: returnTo,
        })

        const paid = await payLikeABrowser(api, store.publishableKey, session.id, CARDS.approved)

        const target = paid.storefrontLocation as URL
        expect(target.origin).toBe(env.storefrontUrl())
        expect(target.pathname).toBe("/checkout/card-service")
        expect(target.searchParams.get("status")).toBe("paid")
      })

      it("sends the shopper to a return_to on the storefront's own origin", async () => {
        const { store, session } = await cartWithSession(api, getContainer(), undefined, {
          return_to: `${env.storefrontUrl()}/thanks?step=2`,
        })

        const paid = await payLikeABrowser(api, store.publishableKey, session.id, CARDS.approved)

        const target = paid.storefrontLocation as URL
        expect(`${target.origin}${target.pathname}`).toBe(`${env.storefrontUrl()}/thanks`)
        expect(target.searchParams.get("step")).toBe("2")
        expect(target.searchParams.get("status")).toBe("paid")
      })
    })

    describe("when a result cannot be settled at once", () => {
      it("answers a callback it could not check with 503, and the service's next delivery makes the order", async () => {
        const { store, cart, session } = await cartWithSession(api, getContainer())
        sandbox().setCallbackKnobs({ retries: 1, retryIntervalMs: 100 })
        // Every try of the first delivery's retrieve fails (the client tries three times).
        sandbox().injectFault({ type: "status", status: 503, count: 3, path: "/payment/retrieve" })

        const paid = await payLikeABrowser(api, store.publishableKey, session.id, CARDS.approved, {
          followReturn: false,
        })
        const transactionId = transactionOf(paid.serviceLocation)
        const deliveries = () => sandbox().callbacks().filter((c) => c.transactionId === transactionId)

        // The first attempt is answered before the browser is redirected.
        expect(deliveries().map((c) => c.status)).toEqual([503])
        await sandbox().waitForCallbacks(() => deliveries().length >= 2, 20_000)
        expect(deliveries().map((c) => c.status)).toEqual([503, 200])
        const orderId = await orderOfCart(getContainer(), cart.id)
        expect(orderId).toMatch(/^order_/)
        expect((await paymentOfOrder(getContainer(), orderId as string)).data.transaction_id).toBe(transactionId)
      })

      it("reverses a wrong-amount approval once when its callback and its return arrive together", async () => {
        const { store, cart, session } = await cartWithSession(api, getContainer())
        sandbox().setCallbackKnobs({ drop: true })
        const paid = await payLikeABrowser(api, store.publishableKey, session.id, CARDS.approved, {
          followReturn: false,
          editFields: (fields) => ({ ...fields, amount: "1.00" }),
        })
        sandbox().resetKnobs()
        const transactionId = transactionOf(paid.serviceLocation)
        // The service holds its first retrieve answer, so the two deliveries
        // would check and reverse the approval side by side if they were not
        // settled one at a time.
        sandbox().injectFault({ type: "delay", ms: 1500, path: "/payment/retrieve" })

        const [callback, back] = await Promise.all([
          postCallback(session.id, resultBody(transactionId)),
          request(paid.serviceLocation as string).then(async (response) => {
            await response.body.dump()
            return new URL(response.headers.location as string)
          }),
        ])

        expect(callback.status).toBe(200)
        expect(back.searchParams.get("status")).toBe("failed")
        expect(back.searchParams.get("reason_code")).toBe("mismatch")
        expect(await orderOfCart(getContainer(), cart.id)).toBeNull()
        const reversals = sandbox()
          .transactions()
          .filter((r) => r.step === "REVERSAL" && r.originalTransactionId === transactionId)
        expect(reversals.map((r) => r.status)).toEqual(["successful"])
      })
    })

    describe("duplicate callbacks while one copy settles (many shoppers, several instances)", () => {
      /** Resolves once the sandbox has begun answering a retrieve of this transaction. */
      const retrieveReached = async (transactionId: string) => {
        const deadline = Date.now() + 20_000
        while (!sandbox().requests().some((r) => r.path.endsWith(`/${transactionId}`))) {
          if (Date.now() > deadline) throw new Error(`no retrieve of ${transactionId}`)
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
      }
      const ordersOf = async (cartId: string) => {
        const { data } = await getContainer()
          .resolve("query")
          .graph({ entity: "order_cart", fields: ["order_id"], filters: { cart_id: cartId } })
        return data
      }
      /**
       * The second copy arrives while the first one settles: once the first
       * copy's retrieve is under way (`reached`; by default, held 3 s by a
       * delay fault), then `afterSecond` before the first copy's answer.
       */
      const duplicateDuringSettlement = async (
        transactionId: string,
        sessionId: string,
        {
          reached = () => retrieveReached(transactionId),
          afterSecond = async () => {},
        }: { reached?: () => Promise<unknown>; afterSecond?: () => Promise<void> | void } = {}
      ) => {
        const answered: string[] = []
        const first = postCallback(sessionId, resultBody(transactionId)).then((answer) => {
          answered.push("first")
          return answer
        })
        await reached()
        const second = await postCallback(sessionId, resultBody(transactionId))
        answered.push("second")
        await afterSecond()
        return { first: await first, second, answered }
      }

      // The test set-up turns the scheduled sweep off (integration-tests/setup.js);
      // these tests run it themselves, and a noted hint may wait for it only
      // where it is scheduled.
      beforeEach(() => {
        process.env.CARD_SERVICE_RECONCILE_SCHEDULE = "* * * * *"
      })
      afterEach(() => {
        process.env.CARD_SERVICE_RECONCILE_SCHEDULE = "off"
      })

      it("answers the duplicate 200 at once, while the first copy settles, and makes one order", async () => {
        const { cart, transactionId, session } = await approveSilently()
        sandbox().injectFault({ type: "delay", ms: 3000, path: "/payment/retrieve" })

        const { first, second, answered } = await duplicateDuringSettlement(transactionId, session.id)

        expect(second).toEqual({ status: 200, body: { received: true } })
        expect(first.status).toBe(200)
        // Not queued behind the lock: answered before the copy that settled.
        expect(answered).toEqual(["second", "first"])
        expect(await ordersOf(cart.id)).toHaveLength(1)
      })

      it("still makes the order when the copy settling it fails: that copy answers 503 and the noted hint is settled by the sweep", async () => {
        const { cart, transactionId, session } = await approveSilently()
        // The first copy's check is held; the second copy arrives; then the
        // check's connection is cut and every try after it meets the service
        // failing. (Before a checkout asked the service once, issue 43, the
        // failure was Medusa's own check while the cart was completed.)
        let held: HeldAnswer | undefined
        sandbox().holdAnswer({ path: `/payment/retrieve`, onHold: (answer) => (held = answer) })
        const { first, second, answered } = await duplicateDuringSettlement(transactionId, session.id, {
          reached: async () => {
            while (!held) await new Promise((resolve) => setTimeout(resolve, 20))
          },
          afterSecond: () => {
            sandbox().injectFault({ type: "status", status: 503, count: 3, path: "/payment/retrieve" })
            held!.drop()
          },
        })

        expect(second.status).toBe(200)
        expect(answered).toEqual(["second", "first"])
        // The holder failed, and says so: the service would deliver again.
        expect(first.status).toBe(503)
        expect(await ordersOf(cart.id)).toHaveLength(0)
        await sweepCardServicePayments(getContainer())
        const orders = await ordersOf(cart.id)
        expect(orders).toHaveLength(1)
        expect((await paymentOfOrder(getContainer(), orders[0].order_id)).data.transaction_id).toBe(transactionId)
      })

      it("lets the duplicate wait its turn when no sweep would settle a noted hint", async () => {
        const { cart, transactionId, session } = await approveSilently()
        process.env.CARD_SERVICE_RECONCILE_SCHEDULE = "off"
        sandbox().injectFault({ type: "delay", ms: 3000, path: "/payment/retrieve" })

        const result = await duplicateDuringSettlement(transactionId, session.id)

        expect(result.second.status).toBe(200)
        expect(result.first.status).toBe(200)
        expect(result.answered).toEqual(["first", "second"])
        expect(await ordersOf(cart.id)).toHaveLength(1)
      })
    })
  },
})
