import { createOrderFulfillmentWorkflow } from "@medusajs/core-flows"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { Modules } from "@medusajs/framework/utils"
import { useCardServiceSandbox } from "../helpers/card-service-env"
import { payLikeABrowser } from "../helpers/browser-step"
import { adminHeaders, cartWithSession, orderOfCart } from "../helpers/checkout-flow"
import { seedStore, type SeededStore } from "../helpers/seed-store"
import { sweepCardServicePayments } from "../../src/reconciliation/sweep"
import { REVIEW_EVENTS } from "../../src/checkout/review-verdict"
import { TEST_CARDS } from "../../src/sandbox"
import { attachToSession, attachTransaction } from "../../src/checkout/attach-transaction"
import { cardServiceProvider } from "../../src/checkout/provider-lookup"
import { CARD_SERVICE_PROVIDER_ID } from "../helpers/seed-store"

jest.setTimeout(180_000)

const REVIEW_TIMEOUT_MS = 60 * 60 * 1000
process.env.CARD_SERVICE_REVIEW_TIMEOUT_MS = String(REVIEW_TIMEOUT_MS)

const env = useCardServiceSandbox()

const reviewCard = (verdict: "approve" | "reject") => {
  const card = TEST_CARDS.find((c) => c.reviewVerdict === verdict)!
  return { number: card.number, cardType: card.cardType }
}

/**
 * Issue 31: a payment marked for review (480) is an order on hold; the
 * review's verdict, by callback or by the sweep, moves it on once.
 */
medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    const sandbox = () => env.sandbox()
    let store: SeededStore
    const events: { name: string; data: any }[] = []

    beforeAll(async () => {
      store = await seedStore(getContainer(), { stocked: 100 })
      const eventBus = getContainer().resolve(Modules.EVENT_BUS)
      const emit = eventBus.emit.bind(eventBus)
      jest.spyOn(eventBus, "emit").mockImplementation(async (message: any, ...rest: any[]) => {
        for (const one of Array.isArray(message) ? message : [message]) {
          if (String(one.name).startsWith("card-service.review.")) events.push({ name: one.name, data: one.data })
        }
        return emit(message, ...rest)
      })
    })
    beforeEach(() => {
      sandbox().resetKnobs()
      events.length = 0
    })

    /** What a merchant looks at: the order, its payment, its session and the stock it holds. */
    const stateOf = async (orderId: string, sessionId: string) => {
      const query = getContainer().resolve("query")
      const {
        data: [order],
      } = await query.graph({
        entity: "order",
        fields: [
          "id",
          "status",
          "items.id",
          "payment_collections.status",
          "payment_collections.payments.id",
          "payment_collections.payments.captures.id",
        ],
        filters: { id: orderId },
      })
      const reservations = await getContainer()
        .resolve(Modules.INVENTORY)
        .listReservationItems({ line_item_id: order.items.map((item: any) => item.id) })
      const [session] = await getContainer()
        .resolve(Modules.PAYMENT)
        .listPaymentSessions({ id: sessionId }, { select: ["id", "status", "data", "metadata", "authorized_at"] })
      // payment_status is worked out by the admin API, as the merchant sees it.
      const { data } = await api.get(`/admin/orders/${orderId}?fields=payment_status`, {
        headers: await adminHeaders(getContainer()),
      })
      return {
        status: order.status,
        paymentStatus: data.order.payment_status,
        payments: order.payment_collections[0].payments ?? [],
        reserved: reservations.reduce((sum: number, r: any) => sum + Number(r.quantity), 0),
        session: session as any,
      }
    }

    /** A shopper pays with a review card: the order is placed on hold. */
    const orderOnHold = async (verdict: "approve" | "reject") => {
      const { cart, session } = await cartWithSession(api, getContainer(), store)
      const paid = await payLikeABrowser(api, store.publishableKey, session.id, reviewCard(verdict))
      const orderId = paid.storefrontLocation?.searchParams.get("order_id") as string
      const transactionId = new URL(paid.serviceLocation as string).searchParams.get("transactionId") as string
      return { cart, session, orderId, transactionId, location: paid.storefrontLocation }
    }

    const sweep = (now = new Date()) => sweepCardServicePayments(getContainer(), { now })
    /** The order widget's review panel, as the admin API answers it. */
    const reviewOf = async (orderId: string) =>
      (
        await api.get(`/admin/card-service/orders/${orderId}/review`, {
          headers: await adminHeaders(getContainer()),
        })
      ).data.review
    const successfulReversalsOf = (transactionId: string) =>
      sandbox()
        .transactions()
        .filter((r) => r.step === "REVERSAL" && r.status === "successful" && r.originalTransactionId === transactionId)

    it("places the order on hold, and the review's approval by callback authorizes its payment", async () => {
      const { cart, session, orderId, transactionId, location } = await orderOnHold("approve")
      expect(orderId).toMatch(/^order_/)
      expect(location?.searchParams.get("payment")).toBe("under_review")
      expect(await orderOfCart(getContainer(), cart.id)).toBe(orderId)
      const held = await stateOf(orderId, session.id)
      expect(held).toMatchObject({ status: "pending", paymentStatus: "awaiting", payments: [], reserved: 1 })
      expect(held.session.status).toBe("pending_authorization")
      expect(await reviewOf(orderId)).toMatchObject({ state: "on_hold", session_id: session.id, needs_action: false })

      await sandbox().concludeReview(transactionId, "approve")
      expect(await reviewOf(orderId)).toMatchObject({ state: "approved" })

      const approved = await stateOf(orderId, session.id)
      expect(approved).toMatchObject({ status: "pending", paymentStatus: "authorized", reserved: 1 })
      expect(approved.payments).toHaveLength(1)
      expect(approved.session.status).toBe("authorized")
      expect(events).toEqual([
        { name: REVIEW_EVENTS.approved, data: { order_id: orderId, payment_session_id: session.id, reason_code: "100" } },
      ])
      // The admin's order view has its payment now.
      const { data } = await api.get(`/admin/orders/${orderId}?fields=payment_status`, {
        headers: await adminHeaders(getContainer()),
      })
      expect(data.order.payment_status).toBe("authorized")
    })

    it("cancels the order on hold when the review rejects it, releasing its stock", async () => {
      const { session, orderId, transactionId } = await orderOnHold("reject")
      await sandbox().concludeReview(transactionId)

      const rejected = await stateOf(orderId, session.id)
      expect(rejected).toMatchObject({ status: "canceled", payments: [], reserved: 0 })
      expect(rejected.session.status).toBe("canceled")
      expect(rejected.session.data.failure.code).toBe("481")
      expect(rejected.session.metadata.card_service.reconcile.status).toBe("review_closed")
      expect(events.map((e) => e.name)).toEqual([REVIEW_EVENTS.rejected])
      expect(await reviewOf(orderId)).toMatchObject({ state: "rejected", needs_action: false })
      // Nothing was held, so nothing is reversed.
      expect(successfulReversalsOf(transactionId)).toEqual([])
    })

    it("finds a verdict whose callback was lost with the sweep, and a second sweep changes nothing", async () => {
      const { session, orderId, transactionId } = await orderOnHold("approve")
      const reference = sandbox().transaction(transactionId)!.merchantReferenceCode
      sandbox().setCallbackKnobs({ drop: true }, reference)
      await sandbox().concludeReview(transactionId, "approve")
      expect((await stateOf(orderId, session.id)).session.status).toBe("pending_authorization")

      const first = await sweep()
      expect(first.actions.filter((a: any) => a.session_id === session.id)).toEqual([
        expect.objectContaining({ status: "review_closed" }),
      ])
      const after = await stateOf(orderId, session.id)
      expect(after).toMatchObject({ paymentStatus: "authorized", reserved: 1 })
      expect(after.payments).toHaveLength(1)

      const second = await sweep()
      expect(second.actions.filter((a: any) => a.session_id === session.id)).toEqual([])
      expect(events.map((e) => e.name)).toEqual([REVIEW_EVENTS.approved])
    })

    it("changes the order once when the same verdict arrives twice at once", async () => {
      const { session, orderId, transactionId } = await orderOnHold("approve")
      const reference = sandbox().transaction(transactionId)!.merchantReferenceCode
      sandbox().setCallbackKnobs({ duplicates: 2 }, reference)
      // The verdict's callback twice, and the sweep beside it.
      await Promise.all([sandbox().concludeReview(transactionId, "approve"), sweep()])
      await sandbox().waitForCallbacks(
        (all) => all.filter((d) => d.transactionId === transactionId && d.body.reasonCode === "100" && d.ok).length >= 2
      )
      const after = await stateOf(orderId, session.id)
      expect(after.payments).toHaveLength(1)
      expect(after.paymentStatus).toBe("authorized")
      expect(events.map((e) => e.name)).toEqual([REVIEW_EVENTS.approved])
    })

    it("cancels the order on the review's rejection when a cancel that died left its credit-line change behind", async () => {
      // bench:soak (seed 44684): the instance died inside cancelOrderWorkflow,
      // between the credit-line order change it creates and its confirmation.
      // Every later cancel was refused ("already has an existing active order
      // change"), and the order stayed open with no payment.
      const { session, orderId, transactionId } = await orderOnHold("reject")
      const orders = getContainer().resolve(Modules.ORDER)
      const leftover = await orders.createOrderChange({ order_id: orderId, change_type: "credit_line" })
      const reference = sandbox().transaction(transactionId)!.merchantReferenceCode
      sandbox().setCallbackKnobs({ retries: 0 }, reference)

      // A change made a moment ago may be a workflow running now: left alone,
      // the verdict is not taken for a refusal, and the order stays on hold.
      await sandbox().concludeReview(transactionId)
      const waiting = await stateOf(orderId, session.id)
      expect(waiting).toMatchObject({ status: "pending", reserved: 1 })
      expect(waiting.session.status).toBe("pending_authorization")
      expect((await orders.retrieveOrderChange(leftover.id)).status).toBe("pending")

      // Older than any workflow takes: a dead cancel's. The sweep withdraws it and cancels.
      await getContainer()
        .resolve("__pg_connection__")
        .raw(`update "order_change" set "created_at" = now() - interval '1 minute' where "id" = ?`, [leftover.id])
      await sweep()

      const rejected = await stateOf(orderId, session.id)
      expect(rejected).toMatchObject({ status: "canceled", payments: [], reserved: 0 })
      expect(rejected.session.status).toBe("canceled")
      expect(await reviewOf(orderId)).toMatchObject({ state: "rejected", needs_action: false })
      expect((await orders.retrieveOrderChange(leftover.id)).status).toBe("canceled")
      expect(events.map((e) => e.name)).toEqual([REVIEW_EVENTS.rejected])
    })

    it("leaves the store owner's own order change alone: an order being edited is not canceled, and is in Needs attention", async () => {
      const { session, orderId, transactionId } = await orderOnHold("reject")
      const orders = getContainer().resolve(Modules.ORDER)
      const edit = await orders.createOrderChange({ order_id: orderId, change_type: "edit" })

      await sandbox().concludeReview(transactionId)

      const after = await stateOf(orderId, session.id)
      expect(after.status).not.toBe("canceled")
      expect((await orders.retrieveOrderChange(edit.id)).status).toBe("pending")
      expect(await reviewOf(orderId)).toMatchObject({ state: "not_canceled", needs_action: true })
    })

    it("leaves an order fulfilled while on hold to the store owner when the review rejects it, in Needs attention", async () => {
      const { session, orderId, transactionId } = await orderOnHold("reject")
      const query = getContainer().resolve("query")
      const {
        data: [order],
      } = await query.graph({ entity: "order", fields: ["items.id"], filters: { id: orderId } })
      await createOrderFulfillmentWorkflow(getContainer()).run({
        input: {
          order_id: orderId,
          // The cart holds one of one item (cartWithSession).
          items: order.items.map((item: any) => ({ id: item.id, quantity: 1 })),
        },
      })
      await sandbox().concludeReview(transactionId)

      const after = await stateOf(orderId, session.id)
      expect(after.status).not.toBe("canceled")
      expect(after.session.status).toBe("canceled")
      expect(await reviewOf(orderId)).toMatchObject({ state: "not_canceled", needs_action: true })
      const { data } = await api.get("/admin/card-service/reconciliation", {
        headers: await adminHeaders(getContainer()),
      })
      expect(data.entries.find((e: any) => e.id === session.id)).toMatchObject({
        status: "hold_not_canceled",
        needs_action: true,
      })
      // Once: a sweep does not try again.
      expect((await sweep()).actions.filter((a: any) => a.session_id === session.id)).toEqual([])
    })

    it("cancels the order when no verdict comes in time, and reverses an approval that comes after", async () => {
      const { session, orderId, transactionId } = await orderOnHold("approve")
      // Within the time allowed: still on hold.
      expect((await sweep()).actions.filter((a: any) => a.session_id === session.id)).toEqual([])
      expect((await stateOf(orderId, session.id)).status).toBe("pending")

      const late = new Date(Date.now() + REVIEW_TIMEOUT_MS + 60_000)
      const expired = await sweep(late)
      expect(expired.actions.filter((a: any) => a.session_id === session.id)).toEqual([
        expect.objectContaining({ status: "review_closed" }),
      ])
      const canceled = await stateOf(orderId, session.id)
      expect(canceled).toMatchObject({ status: "canceled", payments: [], reserved: 0 })
      // Still watched: a verdict may come yet.
      expect(canceled.session.status).toBe("pending_authorization")
      expect(events.map((e) => e.name)).toEqual([REVIEW_EVENTS.expired])
      expect(await reviewOf(orderId)).toMatchObject({ state: "expired" })

      await sandbox().concludeReview(transactionId, "approve")
      expect(successfulReversalsOf(transactionId)).toHaveLength(1)
      const closed = await stateOf(orderId, session.id)
      expect(closed).toMatchObject({ status: "canceled", payments: [] })
      expect(closed.session.status).toBe("canceled")
      // The session's log, which the order widget shows, has the reversal
      // (issue 39: the verdict wrote the data read before it).
      expect(closed.session.data.transactions).toEqual(
        expect.arrayContaining([expect.objectContaining({ operation: "reversal", decision: "ACCEPT" })])
      )
      expect(events.map((e) => e.name)).toEqual([REVIEW_EVENTS.expired, REVIEW_EVENTS.approvalReversed])
      expect(await reviewOf(orderId)).toMatchObject({ state: "reversed" })
      // Nothing more for the sweep to do.
      expect((await sweep(late)).actions.filter((a: any) => a.session_id === session.id)).toEqual([])
    })

    describe("states that live for days (issue 39)", () => {
      /** Sweeps as the cron would, at these times; the actions each took for the session. */
      const sweepsAt = async (sessionId: string, times: Date[]) => {
        const actions: any[] = []
        for (const at of times) actions.push(...(await sweep(at)).actions.filter((a: any) => a.session_id === sessionId))
        return actions
      }
      const minutesAfter = (at: Date, minutes: number) => new Date(at.getTime() + minutes * 60_000)

      it("settles an expired review once: later passes neither act, log, count nor ask the service every time", async () => {
        const { session, orderId, transactionId } = await orderOnHold("approve")
        const late = new Date(Date.now() + REVIEW_TIMEOUT_MS + 60_000)
        expect(await sweepsAt(session.id, [late])).toEqual([expect.objectContaining({ status: "review_closed" })])
        const retrievesAtExpiry = sandbox().retrievesOf(transactionId).length

        // An hour of passes, one a minute.
        const hour = Array.from({ length: 60 }, (_, i) => minutesAfter(late, i + 1))
        expect(await sweepsAt(session.id, hour)).toEqual([])
        // Asked 1, 2, 4, 8 and 16 minutes after, then every 15 (a quarter of
        // this test's one-hour review time): 7 times, not 60 (b22a589: on every pass).
        expect(sandbox().retrievesOf(transactionId).length - retrievesAtExpiry).toBe(7)
        expect(events.map((e) => e.name)).toEqual([REVIEW_EVENTS.expired])
        const { data } = await api.get("/admin/card-service/reconciliation", { headers: await adminHeaders(getContainer()) })
        expect(data.entries.filter((e: any) => e.id === session.id)).toEqual([
          expect.objectContaining({ status: "review_closed", needs_action: false }),
        ])
        expect((await stateOf(orderId, session.id)).session.metadata.card_service.reconcile.review).toBe("expired")

        // Still watched: an approval whose callback is lost is found and reversed.
        sandbox().setCallbackKnobs({ drop: true }, sandbox().transaction(transactionId)!.merchantReferenceCode)
        await sandbox().concludeReview(transactionId, "approve")
        const dayLater = minutesAfter(late, 24 * 60)
        expect(await sweepsAt(session.id, [dayLater])).toEqual([expect.objectContaining({ status: "review_closed" })])
        expect(successfulReversalsOf(transactionId)).toHaveLength(1)
        expect(events.map((e) => e.name)).toEqual([REVIEW_EVENTS.expired, REVIEW_EVENTS.approvalReversed])
        expect(await sweepsAt(session.id, [minutesAfter(dayLater, 60)])).toEqual([])
      })

      it("reaches a newer order on hold whose verdict callback was lost behind a batch's worth of expired reviews", async () => {
        const expired = [await orderOnHold("approve"), await orderOnHold("approve")]
        const late = new Date(Date.now() + REVIEW_TIMEOUT_MS + 60_000)
        await sweep(late)
        for (const { orderId, session } of expired) expect((await stateOf(orderId, session.id)).status).toBe("canceled")

        const newer = await orderOnHold("approve")
        sandbox().setCallbackKnobs({ drop: true }, sandbox().transaction(newer.transactionId)!.merchantReferenceCode)
        await sandbox().concludeReview(newer.transactionId, "approve")
        const held = await getContainer()
          .resolve(Modules.PAYMENT)
          .listPaymentSessions({ status: "pending_authorization" } as any, { select: ["id"] })

        // A batch of two, oldest first (b22a589: the expired reviews, never
        // changed, took the batch's places on every pass).
        const at = minutesAfter(late, 1)
        for (let pass = 0; pass <= Math.ceil(held.length / 2); pass++) {
          await sweepCardServicePayments(getContainer(), { now: at, batchSize: 2 })
        }
        expect(await stateOf(newer.orderId, newer.session.id)).toMatchObject({ paymentStatus: "authorized" })
      })

      it("shows a late approval whose reversal the service refused (243) in Needs attention, once, and never sends it again", async () => {
        const { session, orderId, transactionId } = await orderOnHold("approve")
        const late = new Date(Date.now() + REVIEW_TIMEOUT_MS + 60_000)
        await sweep(late)
        // The review approves after the order was canceled, its callback is
        // lost, and the money is taken at the service before any reversal.
        const record = sandbox().transaction(transactionId)!
        sandbox().setCallbackKnobs({ drop: true }, record.merchantReferenceCode)
        await sandbox().concludeReview(transactionId, "approve")
        await cardServiceProvider(getContainer(), CARD_SERVICE_PROVIDER_ID).client.capture({
          merchantReferenceCode: "captured-outside-medusa",
          currency: record.currencyCode,
          amount: record.amount,
          email: "owner@example.com",
          originalTransactionId: transactionId,
        })
        const reversalsSent = () =>
          sandbox()
            .transactions()
            .filter((r) => r.step === "REVERSAL" && r.originalTransactionId === transactionId)

        const day = Array.from({ length: 30 }, (_, i) => minutesAfter(late, 60 * (i + 1)))
        const actions = await sweepsAt(session.id, day)

        // b22a589: the reversal went out on every pass (243, 243, ...), Needs
        // attention showed nothing, and the note said the approval was reversed.
        expect(reversalsSent()).toHaveLength(1)
        expect(actions).toEqual([expect.objectContaining({ status: "not_released" })])
        const { data } = await api.get("/admin/card-service/reconciliation", { headers: await adminHeaders(getContainer()) })
        const entry = data.entries.find((e: any) => e.id === session.id)
        expect(entry).toMatchObject({ status: "not_released", needs_action: true, references: [transactionId] })
        expect(entry.message).toContain(`approval ${transactionId} was not released`)
        expect(entry.message).not.toMatch(/the approval was reversed/)
        expect(await reviewOf(orderId)).toMatchObject({ state: "not_released", needs_action: true })
        expect(events.map((e) => e.name)).toEqual([REVIEW_EVENTS.expired, REVIEW_EVENTS.approvalNotReleased])
        const after = await stateOf(orderId, session.id)
        expect(after).toMatchObject({ status: "canceled", payments: [] })
        expect(after.session.status).toBe("canceled")
      })

      it("reverses a review's approval for another amount and cancels the order on hold", async () => {
        const { session, orderId, transactionId } = await orderOnHold("approve")
        const asked = sandbox().transaction(transactionId)!
        await sandbox().concludeReview(transactionId, "approve", 1)
        expect(sandbox().transaction(transactionId)!.amount).not.toBe(asked.amount)

        expect(successfulReversalsOf(transactionId)).toHaveLength(1)
        const after = await stateOf(orderId, session.id)
        expect(after).toMatchObject({ status: "canceled", payments: [], reserved: 0 })
        expect(after.session.status).toBe("canceled")
        expect(after.session.data.failure.code).toBe("mismatch")
        expect(after.session.data.transactions).toEqual(
          expect.arrayContaining([expect.objectContaining({ operation: "reversal", decision: "ACCEPT" })])
        )
        expect(events.map((e) => e.name)).toEqual([REVIEW_EVENTS.rejected])
      })
    })

    describe("a result under review whose completion died before it made the order (bench:soak, seed 564948)", () => {
      /**
       * What an instance killed between attaching a 480 result and Medusa's
       * cart completion leaves: the transaction on the session, no order. The
       * result's later copies and the verdict's callback were acknowledged
       * while the dead delivery's claim held, so only the sweep is left.
       */
      const diedBeforeOrder = async (verdict: "approve" | "reject") => {
        const { cart, session } = await cartWithSession(api, getContainer(), store)
        sandbox().setCallbackKnobs({ drop: true })
        const paid = await payLikeABrowser(api, store.publishableKey, session.id, reviewCard(verdict), { followReturn: false })
        const transactionId = new URL(paid.serviceLocation as string).searchParams.get("transactionId") as string
        const provider = cardServiceProvider(getContainer(), CARD_SERVICE_PROVIDER_ID)
        const payment = getContainer().resolve(Modules.PAYMENT)
        const stored = await payment.retrievePaymentSession(session.id)
        const attached = await attachTransaction(provider, provider.verifySession(stored.data, stored.id)!, transactionId, null)
        if (attached.kind !== "attached") throw new Error("the review's result was not attached")
        await attachToSession(payment, provider, stored, attached.data)
        expect(attached.data.failure?.code).toBe("480")
        await sandbox().concludeReview(transactionId, verdict)
        sandbox().resetKnobs()
        expect(await orderOfCart(getContainer(), cart.id)).toBeNull()
        return { cart, session, transactionId }
      }

      it("makes the order from the review's approval the sweep finds", async () => {
        const { cart, session, transactionId } = await diedBeforeOrder("approve")

        const swept = await sweep()

        const orderId = await orderOfCart(getContainer(), cart.id)
        expect(orderId).toMatch(/^order_/)
        const after = await stateOf(orderId as string, session.id)
        expect(after).toMatchObject({ paymentStatus: "authorized", reserved: 1 })
        expect(after.payments).toHaveLength(1)
        expect(swept.actions.filter((a: any) => a.session_id === session.id)).toEqual([
          expect.objectContaining({ status: "order_created" }),
        ])
        expect(successfulReversalsOf(transactionId)).toEqual([])
      })

      it("fails the session on the review's rejection, makes no order, and does not ask again", async () => {
        const { cart, session } = await diedBeforeOrder("reject")

        await sweep()

        expect(await orderOfCart(getContainer(), cart.id)).toBeNull()
        const [after] = await getContainer()
          .resolve(Modules.PAYMENT)
          .listPaymentSessions({ id: session.id }, { select: ["id", "data"] })
        expect(after.data).toMatchObject({ state: "failed", failure: expect.objectContaining({ code: "481" }) })
        expect((await sweep()).actions.filter((a: any) => a.session_id === session.id)).toEqual([])
      })
    })

    describe("a result under review whose order cannot be placed yet: an instance died holding the stock's lock (bench:crash-points)", () => {
      /** The inventory item Medusa's completion locks to reserve the product's stock. */
      const inventoryItemOf = async (variantId: string) => {
        const {
          data: [variant],
        } = await getContainer()
          .resolve("query")
          .graph({ entity: "product_variant", fields: ["inventory_items.inventory_item_id"], filters: { id: variantId } })
        return variant.inventory_items[0].inventory_item_id as string
      }

      /**
       * A shopper pays while Medusa's lock over the product's stock is held as
       * a killed instance leaves it (nobody releases it; it lapses with its
       * lease); the lock is let go once the shopper has landed. The service
       * delivers its callback once.
       */
      const payWhileStockLocked = async (card: { number: string; cardType: string }) => {
        const { cart, session } = await cartWithSession(api, getContainer(), store)
        const locking = getContainer().resolve(Modules.LOCKING)
        const item = await inventoryItemOf(store.variantId)
        await locking.acquire(item, { ownerId: "an-instance-that-died", expire: 120 })
        sandbox().setCallbackKnobs({ retries: 0 })
        try {
          const { storefrontLocation } = await payLikeABrowser(api, store.publishableKey, session.id, card)
          const ordered = await orderOfCart(getContainer(), cart.id)
          const landed = {
            status: storefrontLocation?.searchParams.get("status"),
            retry: storefrontLocation?.searchParams.get("retry_url"),
            reason: storefrontLocation?.searchParams.get("reason_code"),
          }
          return { cart, session, landed, ordered }
        } finally {
          await locking.release(item, { ownerId: "an-instance-that-died" })
        }
      }

      it("sends the shopper to wait for the order, not to pay again, and the sweep places it on hold once the lock lapses", async () => {
        const { cart, landed, ordered } = await payWhileStockLocked(reviewCard("approve"))
        expect({ landed, ordered }).toEqual({ landed: { status: "pending", retry: null, reason: null }, ordered: null })

        await sweep()

        const orderId = await orderOfCart(getContainer(), cart.id)
        expect(orderId).toMatch(/^order_/)
        expect(await reviewOf(orderId as string)).toMatchObject({ state: "on_hold", needs_action: false })
      })

      it("does the same for an approval: the shopper waits, and the sweep makes the order with its payment", async () => {
        const { cart, session, landed, ordered } = await payWhileStockLocked({ number: "4000000000001000", cardType: "VISA" })
        expect({ landed, ordered }).toEqual({ landed: { status: "pending", retry: null, reason: null }, ordered: null })

        await sweep()

        const orderId = await orderOfCart(getContainer(), cart.id)
        expect(orderId).toMatch(/^order_/)
        expect((await stateOf(orderId as string, session.id)).payments).toHaveLength(1)
      })
    })

    describe("an order whose completion died before it placed the order on hold (bench:soak, issue 33)", () => {
      /**
       * What an instance killed inside Medusa's cart completion leaves for a
       * payment under review: the order exists, but the completion never
       * reached its authorization, which marks the session
       * pending_authorization; the session stays pending.
       */
      const diedBeforeHold = async (verdict: "approve" | "reject") => {
        const placed = await orderOnHold(verdict)
        const pg = getContainer().resolve("__pg_connection__")
        await pg.raw(`update payment_session set status = 'pending' where id = ?`, [placed.session.id])
        expect((await stateOf(placed.orderId, placed.session.id)).session.status).toBe("pending")
        return placed
      }

      it("applies the review's approval to it when the verdict's callback comes", async () => {
        const { session, orderId, transactionId } = await diedBeforeHold("approve")
        await sandbox().concludeReview(transactionId, "approve")

        const approved = await stateOf(orderId, session.id)
        expect(approved).toMatchObject({ status: "pending", paymentStatus: "authorized", reserved: 1 })
        expect(approved.payments).toHaveLength(1)
        expect(approved.session.status).toBe("authorized")
        expect(events.map((e) => e.name)).toEqual([REVIEW_EVENTS.approved])
        expect(successfulReversalsOf(transactionId)).toEqual([])
      })

      it("cancels it on the review's rejection when the sweep finds the verdict its lost callback never brought", async () => {
        const { session, orderId, transactionId } = await diedBeforeHold("reject")
        sandbox().setCallbackKnobs({ drop: true }, sandbox().transaction(transactionId)!.merchantReferenceCode)
        await sandbox().concludeReview(transactionId)
        expect((await stateOf(orderId, session.id)).status).toBe("pending")

        // Past the dead completion's cart lock, as the sweep waits for it.
        await sweep(new Date(Date.now() + 5 * 60_000))
        const rejected = await stateOf(orderId, session.id)
        expect(rejected).toMatchObject({ status: "canceled", payments: [], reserved: 0 })
        expect(rejected.session.status).toBe("canceled")
        expect(events.map((e) => e.name)).toEqual([REVIEW_EVENTS.rejected])
      })
    })
  },
})
