import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { useCardServiceSandbox } from "../helpers/card-service-env"
import { payLikeABrowser, postPaymentForm } from "../helpers/browser-step"
import {
  adminHeaders,
  CARDS,
  cartWithSession,
  checkoutToOrder,
  forgetOrderPayment,
  orderOfCart,
  paymentOfOrder,
} from "../helpers/checkout-flow"
import { cardServiceProvider } from "../../src/checkout/provider-lookup"
import {
  CARD_SERVICE_PROVIDER_ID,
  seedStore,
  type SeededStore,
} from "../helpers/seed-store"
import { sweepCardServicePayments } from "../../src/reconciliation/sweep"
import {
  resetReconcileBackoff,
  runReconcileSweep,
} from "../../src/jobs/card-service-reconcile"

jest.setTimeout(180_000)

// The cron must not sweep behind the tests' backs: they call the sweep
// themselves and assert what that one call did. integration-tests/setup.js
// sets the schedule "off" ("off", not a rare cron: Medusa's in-memory
// scheduler overflows setTimeout for runs more than about 24 days away and
// then fires at once).

const env = useCardServiceSandbox()

const GRACE_MS = 15 * 60 * 1000

/**
 * Issue 14: the sweep, from the fault to the final Medusa state. Each test
 * calls the sweep directly instead of waiting for the cron.
 */
medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    /** The pay page's form answer for a session, as a second browser tab loads it. */
    const payPageOf = async (publishableKey: string, sessionId: string) =>
      (
        await api.get(`/store/card-service/sessions/${sessionId}/form`, {
          headers: { "x-publishable-api-key": publishableKey },
        })
      ).data
    const sandbox = () => env.sandbox()
    beforeEach(() => sandbox().resetKnobs())

    const sessionOf = async (id: string): Promise<any> => {
      const [session] = await getContainer()
        .resolve("payment")
        .listPaymentSessions(
          { id },
          { select: ["id", "status", "data", "metadata"] }
        )
      return session
    }
    /** The settings page's "Needs attention" list, as the admin API answers it. */
    const attentionList = async (): Promise<any[]> =>
      (
        await api.get("/admin/card-service/reconciliation", {
          headers: await adminHeaders(getContainer()),
        })
      ).data.entries
    const sweep = (now = new Date()) =>
      sweepCardServicePayments(getContainer(), { now })

    it("is registered by Medusa as the scheduled job card-service-reconcile", () => {
      const { WorkflowManager } = require("@medusajs/framework/orchestration")
      expect(
        WorkflowManager.getWorkflows().has("job-card-service-reconcile")
      ).toBe(true)
    })

    it("makes the order from a callback that arrived while retrieve answered 503, with no further delivery and no return", async () => {
      // One delivery only, answered 503 because retrieve was down.
      const { cart, session, transactionId } = await payWhileRetrieveIsDown()

      expect(await orderOfCart(getContainer(), cart.id)).toBeNull()
      // The hint was noted before verification failed.
      expect(
        (await sessionOf(session.id)).metadata?.card_service?.hints
      ).toEqual([
        expect.objectContaining({
          transaction_id: transactionId,
          source: "callback",
        }),
      ])

      const first = await sweep()
      const orderId = await orderOfCart(getContainer(), cart.id)

      expect(orderId).toMatch(/^order_/)
      expect(first.actions).toEqual([
        expect.objectContaining({
          session_id: session.id,
          status: "order_created",
        }),
      ])
      expect(first.actions[0].message).toContain(orderId)
      const after = await sessionOf(session.id)
      expect(after.status).toBe("authorized")
      expect(after.metadata?.card_service?.hints).toBeUndefined()
      expect(after.metadata?.card_service?.reconcile).toMatchObject({
        status: "order_created",
      })
      // Shown as an action taken, not one needed.
      expect(
        (await attentionList()).find((e) => e.id === session.id)
      ).toMatchObject({
        status: "order_created",
        needs_action: false,
      })
      // The order widget's view: the order's payment, through its session.
      const payment = await paymentOfOrder(getContainer(), orderId as string)
      const widget = await api.get(
        `/admin/card-service/reconciliation?payment_id=${payment.id}`,
        { headers: await adminHeaders(getContainer()) }
      )
      expect(widget.data.entries).toEqual([
        expect.objectContaining({ id: session.id, status: "order_created" }),
      ])
      // No further delivery was needed (nor made).
      expect(
        sandbox()
          .callbacks()
          .filter((c) => c.url.includes(session.id))
      ).toHaveLength(1)

      // Idempotent: a second sweep finds nothing to do for this session.
      const second = await sweep()
      expect(
        second.actions.filter(
          (a) => "session_id" in a && a.session_id === session.id
        )
      ).toEqual([])
      expect(await orderOfCart(getContainer(), cart.id)).toBe(orderId)
    })

    it("makes the order from a return that could not be settled, its callback lost, with no further return", async () => {
      // bench:soak (seed 43705): the callback was lost and the store's
      // database connections were cut while the browser's return settled it.
      // The return answered "pending", noted nothing, and the approval stayed
      // held with no order: only the callback noted what it could not settle.
      const { cart, session, store } = await cartWithSession(api, getContainer())
      sandbox().setCallbackKnobs({ drop: true })
      sandbox().injectFault({ type: "status", status: 503, count: 20, path: "/payment/retrieve" })
      const paid = await payLikeABrowser(api, store.publishableKey, session.id, CARDS.approved)
      sandbox().clearFaults()
      sandbox().resetKnobs()
      expect(paid.storefrontLocation?.searchParams.get("status")).toBe("pending")
      const transactionId = new URL(paid.serviceLocation as string).searchParams.get("transactionId")
      expect((await sessionOf(session.id)).metadata?.card_service?.hints).toEqual([
        expect.objectContaining({ transaction_id: transactionId, source: "return" }),
      ])

      const swept = await sweep()

      expect(await orderOfCart(getContainer(), cart.id)).toMatch(/^order_/)
      expect(actionsFor(swept, session.id)).toEqual([expect.objectContaining({ status: "order_created" })])
    })

    it("leaves a shopper's later declined attempt attached when it verifies an earlier decline's hint, and is done in one pass", async () => {
      const { session, store } = await cartWithSession(api, getContainer())
      const first = await payLikeABrowser(api, store.publishableKey, session.id, CARDS.declined)
      const second = await payLikeABrowser(api, store.publishableKey, session.id, CARDS.declined)
      const later = new URL(second.serviceLocation as string).searchParams.get("transactionId")
      expect(new URL(first.serviceLocation as string).searchParams.get("transactionId")).not.toBe(later)
      expect((await sessionOf(session.id)).data.transaction_id).toBe(later)

      await sweep()
      expect((await sessionOf(session.id)).data.transaction_id).toBe(later)
      expect(actionsFor(await sweep(), session.id)).toEqual([])
    })

    it("notes no result of a return whose reference is not this session's", async () => {
      const { session, store } = await cartWithSession(api, getContainer())
      sandbox().injectFault({ type: "status", status: 503, count: 20, path: "/payment/retrieve" })
      const answer = await api.get(
        `/card-service/return/${session.id}?transactionId=1234567890&merchantReferenceCode=made-up`,
        { headers: { "x-publishable-api-key": store.publishableKey }, maxRedirects: 0, validateStatus: () => true }
      )
      sandbox().clearFaults()
      expect(answer.status).toBeLessThan(500)
      expect((await sessionOf(session.id)).metadata?.card_service?.hints).toBeUndefined()
    })

    it("reaches a noted hint behind a batch's worth of newer open sessions that need nothing (abandoned and declined checkouts)", async () => {
      // bench:soak: under steady traffic the sweep looked only at the newest
      // open sessions, and a hint noted while an instance died fell behind
      // shoppers who left at the payment step and was never settled.
      const { cart, session, store } = await payWhileRetrieveIsDown()
      await cartWithSession(api, getContainer(), store)
      await cartWithSession(api, getContainer(), store)
      const declined = await cartWithSession(api, getContainer(), store)
      await payLikeABrowser(api, declined.store.publishableKey, declined.session.id, CARDS.declined)

      const swept = await sweepCardServicePayments(getContainer(), { now: new Date(), batchSize: 2 })

      expect(await orderOfCart(getContainer(), cart.id)).toMatch(/^order_/)
      expect(swept.actions).toEqual([expect.objectContaining({ session_id: session.id, status: "order_created" })])
    })

    it("records the payment of an order whose completion died before recording it, with no further delivery", async () => {
      const { orderId, session, payment } = await checkoutToOrder(api, getContainer())
      await forgetOrderPayment(getContainer(), { orderId, sessionId: session.id, payment })
      const ofSession = (actions: any[]) => actions.filter((a) => a.session_id === session.id)

      // Within Medusa's cart-lock TTL (2 minutes) the completion may still be running: left alone.
      expect(ofSession((await sweep()).actions)).toEqual([])
      expect(await paymentOfOrder(getContainer(), orderId)).toBeUndefined()

      const later = new Date(Date.now() + 3 * 60_000)
      const { actions } = await sweep(later)

      expect(actions).toContainEqual({
        session_id: session.id,
        status: "order_created",
        message: expect.stringContaining(`order ${orderId} had no payment`),
      })
      const recorded = await paymentOfOrder(getContainer(), orderId)
      expect(recorded.data.transaction_id).toBe(payment.data.transaction_id)
      // The next pass finds nothing more to do for it.
      expect(ofSession((await sweep(later)).actions)).toEqual([])
    })

    it("links the order to its payment collection when its completion died before linking it, so the order is paid", async () => {
      const { orderId, session, payment } = await checkoutToOrder(api, getContainer())
      await forgetOrderPayment(getContainer(), { orderId, sessionId: session.id, payment }, { unlinked: true })

      const { actions } = await sweep(new Date(Date.now() + 3 * 60_000))

      expect(actions).toContainEqual(expect.objectContaining({ session_id: session.id, status: "order_created" }))
      // Medusa counts the payment as the order's: the order is paid, as the shopper's money is taken.
      const recorded = await paymentOfOrder(getContainer(), orderId)
      expect(recorded.data.transaction_id).toBe(payment.data.transaction_id)
      const { order } = (await api.get(`/admin/orders/${orderId}?fields=id,payment_status`, { headers: await adminHeaders(getContainer()) })).data
      expect(order.payment_status).toBe(payment.captured_at ? "captured" : "authorized")
    })

    it("links the cart to its order when its completion died before linking the cart, instead of failing to make a second one", async () => {
      const { orderId, session, payment, cart } = await checkoutToOrder(api, getContainer())
      await forgetOrderPayment(getContainer(), { orderId, sessionId: session.id, payment }, { cartUnlinked: true })

      const { actions } = await sweep(new Date(Date.now() + 3 * 60_000))

      expect(actions).toContainEqual(expect.objectContaining({ session_id: session.id, status: "order_created" }))
      expect(await orderOfCart(getContainer(), cart.id)).toBe(orderId)
      const recorded = await paymentOfOrder(getContainer(), orderId)
      expect(recorded.data.transaction_id).toBe(payment.data.transaction_id)
    })

    it("stops at the first outage, makes nothing, and reports the service down", async () => {
      const { cart, session } = await payWhileRetrieveIsDown()
      sandbox().injectFault({
        type: "status",
        status: 503,
        count: 50,
        path: "/payment/retrieve",
      })

      const down = await sweep()
      expect(down.serviceDown).toBe(true)
      expect(
        down.actions.filter(
          (a) => "session_id" in a && a.session_id === session.id
        )
      ).toEqual([])
      expect(await orderOfCart(getContainer(), cart.id)).toBeNull()
      // The hint survives the failed verification for the next sweep.
      expect(
        (await sessionOf(session.id)).metadata?.card_service?.hints
      ).toHaveLength(1)

      sandbox().clearFaults()
      const up = await sweep()
      expect(up.serviceDown).toBe(false)
      expect(await orderOfCart(getContainer(), cart.id)).toMatch(/^order_/)
    })

    it("marks a session with attempts but no callback and no return as outcome unknown after the grace period, with the reference", async () => {
      const { store, cart, session } = await cartWithSession(
        api,
        getContainer()
      )
      sandbox().setCallbackKnobs({ drop: true })
      const paid = await payLikeABrowser(
        api,
        store.publishableKey,
        session.id,
        CARDS.approved,
        {
          followReturn: false,
        }
      )
      const reference = paid.fields.merchantReferenceCode

      const early = await sweep(new Date(Date.now() + GRACE_MS - 60_000))
      expect(
        early.actions.filter(
          (a) => "session_id" in a && a.session_id === session.id
        )
      ).toEqual([])

      const late = await sweep(new Date(Date.now() + GRACE_MS + 60_000))
      expect(
        late.actions.filter(
          (a) => "session_id" in a && a.session_id === session.id
        )
      ).toEqual([expect.objectContaining({ status: "outcome_unknown" })])
      const note = (await sessionOf(session.id)).metadata?.card_service
        ?.reconcile
      expect(note).toMatchObject({
        status: "outcome_unknown",
        references: [reference],
      })
      expect(
        (await attentionList()).find((e) => e.id === session.id)
      ).toMatchObject({
        kind: "session",
        status: "outcome_unknown",
        needs_action: true,
        references: [reference],
      })
      expect(await orderOfCart(getContainer(), cart.id)).toBeNull()

      // Marked once: the next sweep does not report it again.
      const again = await sweep(new Date(Date.now() + GRACE_MS + 120_000))
      expect(
        again.actions.filter(
          (a) => "session_id" in a && a.session_id === session.id
        )
      ).toEqual([])
    })

    /**
     * A payment whose one callback is answered 503 because retrieve is down
     * while it is handled; `pay` posts the form and returns where the service
     * sent the browser (not followed). Retrieve is back afterwards.
     */
    const whileRetrieveIsDown = async (
      sessionId: string,
      pay: () => Promise<{ serviceLocation: string | null }>
    ) => {
      sandbox().setCallbackKnobs({ retries: 0 })
      sandbox().injectFault({
        type: "status",
        status: 503,
        count: 20,
        path: "/payment/retrieve",
      })
      const { serviceLocation } = await pay()
      await sandbox().waitForCallbacks(
        (d) => d.some((c) => c.url.includes(sessionId) && c.status === 503),
        20_000
      )
      sandbox().clearFaults()
      return new URL(serviceLocation as string).searchParams.get(
        "transactionId"
      )
    }
    /**
     * The pay page open in two tabs, both paid while retrieve answers 503:
     * each tab's one callback is answered 503. The transaction ids, in order.
     */
    const payInTwoTabsWhileRetrieveIsDown = async (store: SeededStore, sessionId: string) => {
      const tabs = [await payPageOf(store.publishableKey, sessionId), await payPageOf(store.publishableKey, sessionId)]
      sandbox().setCallbackKnobs({ retries: 0 })
      sandbox().injectFault({ type: "status", status: 503, count: 40, path: "/payment/retrieve" })
      const transactionIds: string[] = []
      for (const [index, tab] of tabs.entries()) {
        const { serviceLocation } = await postPaymentForm(tab.form, CARDS.approved)
        transactionIds.push(new URL(serviceLocation as string).searchParams.get("transactionId") as string)
        await sandbox().waitForCallbacks(
          (d) => d.filter((c) => c.url.includes(sessionId) && c.status === 503).length > index,
          20_000
        )
      }
      sandbox().clearFaults()
      return transactionIds
    }
    /** A fresh cart paid while retrieve answers 503. */
    const payWhileRetrieveIsDown = async (store?: SeededStore) => {
      const flow = await cartWithSession(api, getContainer(), store)
      const transactionId = await whileRetrieveIsDown(flow.session.id, () =>
        payLikeABrowser(
          api,
          flow.store.publishableKey,
          flow.session.id,
          CARDS.approved,
          { followReturn: false }
        )
      )
      return { ...flow, transactionId }
    }

    const reversalsOf = (transactionId: string | null) =>
      sandbox()
        .transactions()
        .filter(
          (r) =>
            r.step === "REVERSAL" &&
            r.originalTransactionId === transactionId &&
            r.status === "successful"
        )
    /** Every reversal sent for an approval, by its answer's reason code. */
    const reversalCodes = (transactionId: string | null) =>
      sandbox()
        .transactions()
        .filter(
          (r) =>
            r.step === "REVERSAL" && r.originalTransactionId === transactionId
        )
        .map((r) => r.reasonCode)
    const actionsFor = (result: { actions: any[] }, sessionId: string) =>
      result.actions.filter((a) => a.session_id === sessionId)
    /** Paid while retrieve was down, then the shopper adds an item in another tab: Medusa deletes the session. */
    const payThenChangeCart = async () => {
      const flow = await payWhileRetrieveIsDown()
      await flow.storefront.post(`/store/carts/${flow.cart.id}/line-items`, {
        variant_id: flow.store.variantId,
        quantity: 1,
      })
      return flow
    }

    /** The session is gone and its approval held: one sweep reverses it, the next does nothing. */
    const expectReleasedOnceBySweep = async (
      sessionId: string,
      transactionId: string | null
    ) => {
      expect(await sessionOf(sessionId)).toBeUndefined()
      expect(reversalsOf(transactionId)).toEqual([])
      expect(actionsFor(await sweep(), sessionId)).toEqual([
        expect.objectContaining({ status: "released" }),
      ])
      expect(reversalsOf(transactionId)).toHaveLength(1)
      expect(actionsFor(await sweep(), sessionId)).toEqual([])
      expect(reversalsOf(transactionId)).toHaveLength(1)
    }

    it("reverses an approval whose callback could not be verified before the cart changed", async () => {
      const { cart, session, transactionId } = await payThenChangeCart()
      await expectReleasedOnceBySweep(session.id, transactionId)
      expect(await orderOfCart(getContainer(), cart.id)).toBeNull()
    })

    it("reverses an approval whose cart was completed with another payment", async () => {
      const store = await seedStore(getContainer(), {
        providers: [CARD_SERVICE_PROVIDER_ID, "pp_system_default"],
      })
      const { storefront, cart, session, transactionId } =
        await payWhileRetrieveIsDown(store)
      // The shopper gives up on the card and pays another way: Medusa
      // replaces the card-service session and the cart becomes an order.
      await storefront.startPaymentSession(cart.id, "pp_system_default")
      const { order } = await storefront.post(
        `/store/carts/${cart.id}/complete`
      )
      expect(order.id).toMatch(/^order_/)
      await expectReleasedOnceBySweep(session.id, transactionId)
      expect(await orderOfCart(getContainer(), cart.id)).toBe(order.id)
    })

    it("reverses a second tab's approval reported while the service was down, after the order exists", async () => {
      const { store, cart, session } = await cartWithSession(
        api,
        getContainer()
      )
      // Both tabs load the pay page before either pays.
      const secondTab = await payPageOf(store.publishableKey, session.id)
      await payLikeABrowser(
        api,
        store.publishableKey,
        session.id,
        CARDS.approved
      )
      const orderId = await orderOfCart(getContainer(), cart.id)
      expect(orderId).toMatch(/^order_/)
      // The second tab pays; its one callback meets the service down, and
      // the shopper closes the tab instead of returning.
      const transactionId = await whileRetrieveIsDown(session.id, () =>
        postPaymentForm(secondTab.form, CARDS.approved)
      )
      expect(reversalsOf(transactionId)).toEqual([])

      const result = await sweep()

      expect(actionsFor(result, session.id)).toEqual([
        expect.objectContaining({ status: "released" }),
      ])
      expect(reversalsOf(transactionId)).toHaveLength(1)
      // The order keeps the first tab's payment.
      const payment = await paymentOfOrder(getContainer(), orderId as string)
      expect(payment.data.transaction_id).not.toBe(transactionId)
      expect(reversalsOf(payment.data.transaction_id)).toEqual([])
      expect(actionsFor(await sweep(), session.id)).toEqual([])
      expect(reversalsOf(transactionId)).toHaveLength(1)
    })

    it("reaches a second tab's approval of a paid session behind a batch's worth of newer carts", async () => {
      // The pass over the collections' hints read the newest collections, and
      // every checkout changes its collection: a minute of traffic put a
      // second tab's approval of a paid session out of its reach for good.
      const { store, cart, session } = await cartWithSession(api, getContainer())
      const secondTab = await payPageOf(store.publishableKey, session.id)
      await payLikeABrowser(api, store.publishableKey, session.id, CARDS.approved)
      expect(await orderOfCart(getContainer(), cart.id)).toMatch(/^order_/)
      const transactionId = await whileRetrieveIsDown(session.id, () => postPaymentForm(secondTab.form, CARDS.approved))
      await cartWithSession(api, getContainer(), store)
      await cartWithSession(api, getContainer(), store)

      await sweepCardServicePayments(getContainer(), { now: new Date(), batchSize: 2 })

      expect(reversalsOf(transactionId)).toHaveLength(1)
    })

    it("keeps a session's notes when a later payment's transaction is attached, and still reverses the other tab's approval", async () => {
      const { store, cart, session } = await cartWithSession(
        api,
        getContainer()
      )
      // Both tabs load the pay page; the second pays first, while the
      // service is down, so its approval is known only from a noted hint.
      const secondTab = await payPageOf(store.publishableKey, session.id)
      const secondReference = secondTab.form.fields.merchantReferenceCode
      const secondTransaction = await whileRetrieveIsDown(session.id, () =>
        postPaymentForm(secondTab.form, CARDS.approved)
      )
      const before = (await sessionOf(session.id)).metadata?.card_service
      expect(before?.hints).toEqual([expect.objectContaining({ transaction_id: secondTransaction })])
      expect(await orderOfCart(getContainer(), cart.id)).toBeNull()

      // The first tab pays now: its callback attaches its transaction to
      // the session (updatePaymentSession) and makes the order.
      const firstTab = await payLikeABrowser(
        api,
        store.publishableKey,
        session.id,
        CARDS.approved
      )
      const orderId = await orderOfCart(getContainer(), cart.id)
      expect(orderId).toMatch(/^order_/)
      const payment = await paymentOfOrder(getContainer(), orderId as string)
      expect(payment.data.transaction_id).not.toBe(secondTransaction)

      // The attach left the notes alone: both attempts' references and the
      // second tab's unverified hint are still there for the sweep.
      const after = await sessionOf(session.id)
      expect(after.data.transaction_id).toBe(payment.data.transaction_id)
      expect(
        after.metadata?.card_service?.attempts?.map((a: any) => a.reference)
      ).toEqual(
        expect.arrayContaining([
          secondReference,
          firstTab.fields.merchantReferenceCode,
        ])
      )
      expect(after.metadata?.card_service?.hints).toEqual([
        expect.objectContaining({ transaction_id: secondTransaction }),
      ])

      // The money: the second tab's approval is reversed, once; the
      // order's payment is not. (The collection's copy of the hint finds it
      // even without the session's notes; this pins that the attach path
      // leaves both working.)
      expect(reversalsOf(secondTransaction)).toEqual([])
      expect(actionsFor(await sweep(), session.id)).toEqual([
        expect.objectContaining({ status: "released" }),
      ])
      expect(reversalsOf(secondTransaction)).toHaveLength(1)
      expect(reversalsOf(payment.data.transaction_id)).toEqual([])
      expect(actionsFor(await sweep(), session.id)).toEqual([])
      expect(reversalsOf(secondTransaction)).toHaveLength(1)
    })

    it("keeps both tabs' results noted while the service was down: one becomes the order, the other is reversed", async () => {
      // bench:soak (seed 44684): a shopper paid one session in two tabs while
      // neither result could be verified. The one noted hint was the last
      // tab's, so the first tab's approval was forgotten: the sweep made the
      // order from the second and left the first held for ever.
      const { store, cart, session } = await cartWithSession(api, getContainer())
      const transactionIds = await payInTwoTabsWhileRetrieveIsDown(store, session.id)
      expect(await orderOfCart(getContainer(), cart.id)).toBeNull()

      await sweep()

      const orderId = await orderOfCart(getContainer(), cart.id)
      expect(orderId).toMatch(/^order_/)
      const payment = await paymentOfOrder(getContainer(), orderId as string)
      const [kept, other] = transactionIds[0] === payment.data.transaction_id ? transactionIds : [...transactionIds].reverse()
      expect(transactionIds).toContain(payment.data.transaction_id)
      expect(reversalsOf(kept)).toEqual([])
      expect(reversalsOf(other)).toHaveLength(1)
      // Nothing more to do, and nothing done twice.
      await sweep()
      expect(reversalsOf(other)).toHaveLength(1)
      expect(reversalsOf(kept)).toEqual([])
    })

    describe("forged callbacks for a real session (issue 39)", () => {
      /** A callback as anyone who read the session id (and the return URL's reference) from a log can post it. */
      const forge = (sessionId: string, transactionId: string, merchantReferenceCode?: string) =>
        api
          .post(
            `/card-service/callback/${sessionId}/`,
            { decision: "ACCEPT", reasonCode: "100", transactionId, originalTransactionId: "", merchantReferenceCode },
            { validateStatus: () => true }
          )
          .then((answer: any) => answer.status as number)
      const madeUp = (n: number) => `9${String(Date.now()).slice(-9)}${String(n).padStart(4, "0")}`
      const notedIds = async (sessionId: string) =>
        ((await sessionOf(sessionId)).metadata?.card_service?.hints ?? []).map((hint: any) => hint.transaction_id)

      it("never lets forged results push out a genuine one noted while the service was down", async () => {
        // On b22a589: ten forged callbacks pushed the genuine hint out of the
        // session's last ten, the sweep dropped its collection copy as
        // answered, and the approval stayed held with no order.
        const { cart, session, transactionId } = await payWhileRetrieveIsDown()
        const reference = sandbox().transaction(transactionId as string)!.merchantReferenceCode
        expect(await notedIds(session.id)).toEqual([transactionId])

        sandbox().injectFault({ type: "status", status: 503, count: 1000, path: "/payment/retrieve" })
        const withoutReference = await Promise.all([0, 1, 2, 3, 4].map((n) => forge(session.id, madeUp(n))))
        const withReference: number[] = []
        for (let n = 10; n < 30; n++) withReference.push(await forge(session.id, madeUp(n), reference))
        sandbox().clearFaults()

        // Nothing a forger sends takes the genuine hint's place: a body
        // without this session's reference is not noted at all, and once the
        // notes are full every further one is refused (503, so the genuine
        // service would deliver again), not noted over the oldest.
        expect(withoutReference.every((status) => status === 503)).toBe(true)
        const noted = await notedIds(session.id)
        expect(noted[0]).toBe(transactionId)
        expect(noted).toHaveLength(10)
        expect(withReference.filter((status) => status === 503)).toHaveLength(20)
        const [collection] = await getContainer()
          .resolve("payment")
          .listPaymentCollections({ id: session.payment_collection_id }, { select: ["id", "metadata"] })
        expect(Object.keys((collection.metadata as any).card_service_hints)).toHaveLength(10)

        await sweep()
        const orderId = await orderOfCart(getContainer(), cart.id)
        expect(orderId).toMatch(/^order_/)
        const payment = await paymentOfOrder(getContainer(), orderId as string)
        expect(payment.data.transaction_id).toBe(transactionId)
        expect(reversalsOf(transactionId)).toEqual([])
        // The forged hints were looked up once each and dropped.
        expect(await notedIds(session.id)).toEqual([])
        expect(actionsFor(await sweep(), session.id)).toEqual([])
      })

      it("notes nothing of a made-up result the service can answer for, even with the session's own reference", async () => {
        const { store, session } = await cartWithSession(api, getContainer())
        const { form } = await payPageOf(store.publishableKey, session.id)
        const reference = form.fields.merchantReferenceCode
        expect(reference).toBeTruthy()

        // Looked up, found to be nothing of this session's: answered, and
        // no note left for the sweep to look it up again every pass.
        expect(await forge(session.id, madeUp(1), reference)).toBe(200)
        expect(await notedIds(session.id)).toEqual([])
        const [collection] = await getContainer()
          .resolve("payment")
          .listPaymentCollections({ id: session.payment_collection_id }, { select: ["id", "metadata"] })
        expect(collection.metadata?.card_service_hints ?? {}).toEqual({})
      })

      it("reverses each of two tabs' approvals noted while the service was down when the cart then changes", async () => {
        // Each transaction keeps its own copy on the payment collection: a
        // copy keyed by the session alone kept only the last tab's, and the
        // first tab's approval was never reversed once Medusa deleted the session.
        const { store, storefront, cart, session } = await cartWithSession(api, getContainer())
        const transactionIds = await payInTwoTabsWhileRetrieveIsDown(store, session.id)
        await storefront.post(`/store/carts/${cart.id}/line-items`, { variant_id: store.variantId, quantity: 1 })
        expect(await sessionOf(session.id)).toBeUndefined()

        await sweep()

        for (const transactionId of transactionIds) expect(reversalsOf(transactionId)).toHaveLength(1)
        expect(await orderOfCart(getContainer(), cart.id)).toBeNull()
        await sweep()
        for (const transactionId of transactionIds) expect(reversalsOf(transactionId)).toHaveLength(1)
      })
    })

    it("settles a reversal whose answer was lost from the service's refusal (237), reversing once", async () => {
      const { session, transactionId } = await payThenChangeCart()
      // Both sendings are processed, neither is answered.
      sandbox().injectFault({ type: "destroy", count: 2, path: "/reverse" })

      const lost = await sweep()

      expect(actionsFor(lost, session.id)).toEqual([])
      expect(reversalsOf(transactionId)).toHaveLength(1)

      const settled = await sweep()

      expect(actionsFor(settled, session.id)).toEqual([
        expect.objectContaining({ status: "released" }),
      ])
      // The repeat was refused as already reversed, not reversed again.
      expect(reversalCodes(transactionId)).toEqual(["100", "237", "237"])
      expect(actionsFor(await sweep(), session.id)).toEqual([])
    })

    describe("an approval whose money was taken at the service (issue 30)", () => {
      /** Captured at the service without Medusa (another system, the service's own tools). */
      const capturedOutside = async (transactionId: string) => {
        const record = sandbox().transaction(transactionId)!
        return cardServiceProvider(
          getContainer(),
          CARD_SERVICE_PROVIDER_ID
        ).client.capture({
          merchantReferenceCode: "captured-outside-medusa",
          currency: record.currencyCode,
          amount: record.amount,
          email: "owner@example.com",
          originalTransactionId: transactionId,
        })
      }
      /** What the owner reads for one session in Needs attention. */
      const expectInNeedsAttention = (
        entry: any,
        transactionId: string,
        code: string
      ) => {
        expect(entry).toMatchObject({
          kind: "session",
          status: "not_released",
          needs_action: true,
          references: [transactionId],
        })
        expect(entry.message).toContain(`approval ${transactionId} was not released`)
        expect(entry.message).toContain(`(${code})`)
        expect(entry.message).toMatch(/look the approval up at the card service/i)
        expect(entry.message).toMatch(/refund the shopper/)
      }

      it("shows an orphaned approval the service refused to reverse (243) in Needs attention, and does not ask again", async () => {
        const { session, transactionId } = await payThenChangeCart()
        await capturedOutside(transactionId as string)

        const first = await sweep()

        expect(actionsFor(first, session.id)).toEqual([
          expect.objectContaining({ status: "not_released" }),
        ])
        expect(reversalCodes(transactionId)).toEqual(["243"])
        expectInNeedsAttention(
          (await attentionList()).find((e) => e.id === session.id),
          transactionId as string,
          "243"
        )
        // The service's record decides now: the next sweep neither sends
        // the reversal again nor reports the case again.
        expect(actionsFor(await sweep(), session.id)).toEqual([])
        expect(reversalCodes(transactionId)).toEqual(["243"])
        expect(
          (await attentionList()).filter((e) => e.id === session.id)
        ).toHaveLength(1)
      })

      it("shows an order canceled while its approval was settled (238) in Needs attention and on the order", async () => {
        const { orderId, payment, session } = await checkoutToOrder(
          api,
          getContainer()
        )
        const transactionId = payment.data.transaction_id
        await capturedOutside(transactionId)
        const settle = sandbox().settlementMs + 1
        sandbox().advanceClock(settle)
        try {
          // Medusa 2.21's cancelPaymentStep logs a payment's cancel error
          // and cancels the order anyway: the admin sees a canceled order.
          await api.post(
            `/admin/orders/${orderId}/cancel`,
            {},
            { headers: await adminHeaders(getContainer()) }
          )
        } finally {
          sandbox().advanceClock(-settle)
        }
        expect(reversalCodes(transactionId)).toEqual(["238"])
        // The payment is not booked as given back.
        const kept = await paymentOfOrder(getContainer(), orderId)
        expect(kept.canceled_at).toBeFalsy()
        expect(kept.data.state).toBe("authorized")

        // The note is written by a subscriber: it arrives just after the answer.
        let entry: any
        for (let i = 0; i < 50 && !entry; i++) {
          entry = (await attentionList()).find((e) => e.id === session.id)
          if (!entry) await new Promise((r) => setTimeout(r, 100))
        }
        expectInNeedsAttention(entry, transactionId, "238")
        expect(entry.message).toMatch(/order was canceled/)
        // The order page's widget shows it too.
        const forOrder = (
          await api.get(
            `/admin/card-service/reconciliation?payment_id=${payment.id}`,
            { headers: await adminHeaders(getContainer()) }
          )
        ).data.entries
        expect(forOrder.map((e: any) => e.status)).toContain("not_released")
      })
    })

    it("runs one sweep at a time: two started at once act once", async () => {
      const { cart, session } = await payWhileRetrieveIsDown()
      resetReconcileBackoff()
      // Retrieve slowed down so the first sweep still holds the lock when the second starts.
      sandbox().injectFault({
        type: "delay",
        ms: 500,
        count: 5,
        path: "/payment/retrieve",
      })

      const [a, b] = await Promise.all([
        runReconcileSweep(getContainer()),
        runReconcileSweep(getContainer()),
      ])

      const ran = [a, b].filter((r) => r !== null)
      expect(ran).toHaveLength(1)
      const forSession = ran[0]!.actions.filter(
        (x) => "session_id" in x && x.session_id === session.id
      )
      expect(forSession).toEqual([
        expect.objectContaining({ status: "order_created" }),
      ])
      expect(await orderOfCart(getContainer(), cart.id)).toMatch(/^order_/)
      // The lock is released afterwards: the next run sweeps (and finds nothing new).
      const next = await runReconcileSweep(getContainer())
      expect(next).not.toBeNull()
      expect(
        next!.actions.filter(
          (x) => "session_id" in x && x.session_id === session.id
        )
      ).toEqual([])
    })

    describe("captures after Medusa made them", () => {
      const capturedOrder = async () => {
        const { orderId, payment } = await checkoutToOrder(api, getContainer())
        await api.post(
          `/admin/payments/${payment.id}/capture`,
          {},
          { headers: await adminHeaders(getContainer()) }
        )
        const captured = await paymentOfOrder(getContainer(), orderId)
        return {
          orderId,
          payment: captured,
          captureId: captured.data.capture.transaction_id as string,
        }
      }
      const forPayment = (result: { actions: any[] }, id: string) =>
        result.actions.filter((a) => a.payment_id === id)
      const captureNote = async (orderId: string) =>
        (await paymentOfOrder(getContainer(), orderId)).metadata?.card_service
          ?.capture

      it("follows a PENDING capture until the service reports it TRANSMITTED", async () => {
        const { orderId, payment, captureId } = await capturedOrder()

        const pending = await sweep()
        expect(forPayment(pending, payment.id)).toEqual([
          expect.objectContaining({ status: "capture_pending" }),
        ])
        expect(await captureNote(orderId)).toMatchObject({
          capture_status: "PENDING",
          final: false,
        })
        // Still pending: nothing new to say.
        expect(forPayment(await sweep(), payment.id)).toEqual([])

        sandbox().advanceClock(sandbox().settlementMs + 1000)
        const transmitted = await sweep()
        expect(forPayment(transmitted, payment.id)).toEqual([
          expect.objectContaining({ status: "capture_transmitted" }),
        ])
        expect(await captureNote(orderId)).toMatchObject({
          capture_status: "TRANSMITTED",
          final: true,
          attention: false,
          transaction_id: captureId,
        })
        // Final: not asked again.
        expect(forPayment(await sweep(), payment.id)).toEqual([])
      })

      it("settles a capture whose answer was lost twice from the service's refusal of another capture (242), capturing once", async () => {
        const { orderId, payment } = await checkoutToOrder(api, getContainer())
        const capturesAtService = () =>
          sandbox()
            .transactions()
            .filter(
              (r) =>
                r.step === "CAPTURE" &&
                r.originalTransactionId === payment.data.transaction_id
            )
        // The service captures, the answer is lost; asked again at once, its
        // refusal (242) is lost too.
        sandbox().injectFault({ type: "destroy", count: 2, path: "/capture" })
        await api.post(
          `/admin/payments/${payment.id}/capture`,
          {},
          { headers: await adminHeaders(getContainer()) }
        )
        const booked = await paymentOfOrder(getContainer(), orderId)
        const captureLog = (p: any) =>
          p.data.transactions
            .filter((t: any) => t.operation === "capture")
            .map((t: any) => [t.decision, t.reason_code])
        // Medusa books it (nobody captures by hand again); the log says unknown.
        expect(booked.captured_at).toBeTruthy()
        expect(booked.data.capture.transaction_id).toBeNull()
        expect(captureLog(booked)).toEqual([["UNKNOWN", null]])
        expect(capturesAtService().map((r) => r.reasonCode)).toEqual([
          "100",
          "242",
        ])

        const result = await sweep()

        expect(forPayment(result, payment.id)).toEqual([
          expect.objectContaining({ status: "capture_confirmed" }),
        ])
        const settled = await paymentOfOrder(getContainer(), orderId)
        expect(captureLog(settled)).toEqual([
          ["UNKNOWN", null],
          ["ACCEPT", "242"],
        ])
        expect(await captureNote(orderId)).toMatchObject({
          status: "capture_confirmed",
          final: true,
          attention: false,
        })
        // One capture at the service; each later sending was refused.
        expect(capturesAtService().map((r) => r.reasonCode)).toEqual([
          "100",
          "242",
          "242",
        ])
        const widget = await api.get(
          `/admin/card-service/reconciliation?payment_id=${payment.id}`,
          { headers: await adminHeaders(getContainer()) }
        )
        expect(widget.data.entries).toEqual([
          expect.objectContaining({
            id: payment.id,
            status: "capture_confirmed",
            needs_action: false,
          }),
        ])
        // Settled: the next sweep neither asks nor says anything.
        expect(forPayment(await sweep(), payment.id)).toEqual([])
        expect(capturesAtService()).toHaveLength(3)
      })

      it("never sends a refund whose answer was lost again, and shows its reference to the store owner", async () => {
        const { orderId, payment, captureId } = await capturedOrder()
        const refundsAtService = () =>
          sandbox()
            .transactions()
            .filter(
              (r) =>
                r.step === "REFUND" && r.originalTransactionId === captureId
            )
        sandbox().injectFault({ type: "destroy", path: "/refund" })
        await api.post(
          `/admin/payments/${payment.id}/refund`,
          { amount: 10 },
          { headers: await adminHeaders(getContainer()) }
        )
        const booked = await paymentOfOrder(getContainer(), orderId)
        expect(booked.refunds.map((r: any) => Number(r.amount))).toEqual([10])
        expect(
          booked.data.transactions.filter((t: any) => t.operation === "refund")
        ).toEqual([expect.objectContaining({ decision: "UNKNOWN" })])
        expect(refundsAtService()).toHaveLength(1)
        const reference = refundsAtService()[0].merchantReferenceCode

        const result = await sweep()

        expect(forPayment(result, payment.id)).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ status: "refund_unknown" }),
          ])
        )
        expect(
          (await attentionList()).find(
            (e) => e.id === payment.id && e.status === "refund_unknown"
          )
        ).toMatchObject({ needs_action: true, references: [reference] })
        // Shown once, and never sent again.
        expect(
          forPayment(await sweep(), payment.id).filter(
            (a) => a.status === "refund_unknown"
          )
        ).toEqual([])
        expect(refundsAtService()).toHaveLength(1)
      })

      it("reports a capture that ends TRXN_ERROR for the store owner", async () => {
        const { orderId, payment, captureId } = await capturedOrder()
        sandbox().failTransmission(captureId)

        const result = await sweep()

        expect(forPayment(result, payment.id)).toEqual([
          expect.objectContaining({ status: "capture_failed" }),
        ])
        expect(await captureNote(orderId)).toMatchObject({
          capture_status: "TRXN_ERROR",
          attention: true,
          final: true,
        })
        expect(
          (await attentionList()).find((e) => e.id === payment.id)
        ).toMatchObject({
          status: "capture_failed",
          needs_action: true,
        })
      })

      it("flags a capture voided at the service outside Medusa", async () => {
        const { orderId, payment, captureId } = await capturedOrder()
        const provider = cardServiceProvider(
          getContainer(),
          CARD_SERVICE_PROVIDER_ID
        )
        await provider.client.void({
          merchantReferenceCode: `outside-${Date.now()}`,
          currency: "978",
          amount: "30.00",
          email: "owner@example.com",
          transactionId: captureId,
          type: "CAPTURE",
        })

        const result = await sweep()

        expect(forPayment(result, payment.id)).toEqual([
          expect.objectContaining({ status: "changed_outside_medusa" }),
        ])
        const note = await captureNote(orderId)
        expect(note).toMatchObject({
          capture_status: "VOIDED",
          attention: true,
        })
        expect(note.message).toContain("not from Medusa")
        expect(
          (await attentionList()).find((e) => e.id === payment.id)
        ).toMatchObject({
          kind: "payment",
          status: "changed_outside_medusa",
          needs_action: true,
          references: [captureId],
        })
        // Medusa's own record is left as it was: the store owner decides.
        expect(
          (await paymentOfOrder(getContainer(), orderId)).captured_at
        ).toBeTruthy()
      })
    })
  },
})
