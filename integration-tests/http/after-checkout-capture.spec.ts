import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { useCardServiceSandbox } from "../helpers/card-service-env"
import { checkoutToOrder, paymentOfOrder } from "../helpers/checkout-flow"
import { CARD_SERVICE_PROVIDER_ID, seedStore } from "../helpers/seed-store"
import { useStoreOwner } from "../helpers/store-owner"
import { cardServiceProvider } from "../../src/checkout/provider-lookup"
import { expectServiceHoldsWhatMedusaBooks as holdsWhatMedusaBooks, serviceTotals } from "../helpers/order-flows"

jest.setTimeout(180_000)

const env = useCardServiceSandbox()

/**
 * Issue 40: what the store owner does after the checkout, through Medusa's
 * own admin API. After every step the service's captured and refunded
 * totals (read from the sandbox) equal what Medusa books for the payment.
 */
medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    const owner = useStoreOwner(api, getContainer, env)
    const { post } = owner

    beforeEach(() => {
      env.sandbox().clearFaults()
    })

    const expectServiceHoldsWhatMedusaBooks = (orderId: string) =>
      holdsWhatMedusaBooks(getContainer(), env.sandbox().transactions(), orderId)

    describe.each([
      // currency, country, price, shipping: total, the part captured, the rest
      ["eur", "de", 25, 5, 30, 12.34, 17.66],
      ["jpy", "jp", 2500, 500, 3000, 1234, 1766],
      ["kwd", "kw", 10.123, 2, 12.123, 6.061, 6.062],
    ])("a partial capture in %s", (currencyCode, countryCode, price, shippingPrice, total, part, rest) => {
      it("captures the part Medusa books, then refuses the rest (one capture per approval), and more than the rest too", async () => {
        const store = await seedStore(getContainer(), { currencyCode, countryCode, price, shippingPrice })
        const { orderId, payment } = await checkoutToOrder(api, getContainer(), store)
        expect(Number(payment.amount)).toBe(total)

        const first = await post(`/admin/payments/${payment.id}/capture`, { amount: part })
        expect(first.status).toBe(200)
        expect(await expectServiceHoldsWhatMedusaBooks(orderId)).toMatchObject({
          booked: { captured: part, refunded: 0 },
        })

        const second = await post(`/admin/payments/${payment.id}/capture`, { amount: rest })
        expect(second.status).toBe(400)
        expect(second.data.message).toContain("one capture per approval")
        const third = await post(`/admin/payments/${payment.id}/capture`, { amount: rest + part })
        expect(third.status).toBe(400)

        const { payment: after } = await expectServiceHoldsWhatMedusaBooks(orderId)
        expect(after.captures).toHaveLength(1)
        expect(after.captured_at).toBeFalsy()
        expect(after.data.capture.amount).toBe(part)
        // The admin's comparison: the service's totals, and no difference to name.
        const view = (await api.get(`/admin/card-service/payments/${payment.id}/transactions`, { headers: owner.headers() })).data
        expect(view.payment.service).toEqual({ captured: part, refunded: 0 })
        expect(view.payment.notes).toEqual([])
        expect(view.payment.capture_note).toContain("allows one capture per approval")
      })
    })

    /** Medusa's order edit of the first item to `unitPrice`, requested and confirmed: the order then. */
    const editFirstItem = async (orderId: string, unitPrice: number) => {
      await owner.editFirstItem(orderId, { quantity: 1, unit_price: unitPrice })
      const query = getContainer().resolve("query")
      const { data } = await query.graph({
        entity: "order",
        fields: ["total", "summary.*", "payment_collections.*", "payment_collections.payments.*"],
        filters: { id: orderId },
      })
      return data[0] as any
    }

    it("releases the approval when an order edited before capture makes Medusa cancel its payment, and books nothing else", async () => {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())

      const edited = await editFirstItem(orderId, 10)

      // Medusa (2.12.6 to 2.21.2) cancels an authorized collection on an
      // edit and asks for the new total in a new collection.
      expect(Number(edited.total)).toBe(15)
      const collections = edited.payment_collections.map((c: any) => [c.status, Number(c.amount)])
      expect(collections).toEqual(expect.arrayContaining([["canceled", 30], ["not_paid", 15]]))
      const reversals = env
        .sandbox()
        .transactions()
        .filter((r) => r.step === "REVERSAL" && r.originalTransactionId === payment.data.transaction_id)
      expect(reversals.map((r) => [r.status, r.amount])).toEqual([["successful", 30]])
      const canceled = await post(`/admin/payments/${payment.id}/capture`, { amount: 15 })
      expect(canceled.status).toBe(400)
      expect(await expectServiceHoldsWhatMedusaBooks(orderId)).toMatchObject({
        booked: { captured: 0, refunded: 0 },
      })
    })

    it("refunds exactly the difference of an order captured, then edited down", async () => {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())
      expect((await post(`/admin/payments/${payment.id}/capture`, {})).status).toBe(200)

      const edited = await editFirstItem(orderId, 10)
      expect(Number(edited.summary.pending_difference)).toBe(-15)
      const refunded = await post(`/admin/payments/${payment.id}/refund`, {
        amount: -Number(edited.summary.pending_difference),
      })

      expect(refunded.status).toBe(200)
      expect(await expectServiceHoldsWhatMedusaBooks(orderId)).toMatchObject({
        booked: { captured: 30, refunded: 15 },
      })
    })

    it("captures once when the owner retries a capture the service failed (5xx twice)", async () => {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())
      env.sandbox().injectFault({ type: "status", status: 503, count: 2, path: "/capture" })

      const failed = await post(`/admin/payments/${payment.id}/capture`, { amount: 20 })
      expect(failed.status).toBe(500)
      expect(await expectServiceHoldsWhatMedusaBooks(orderId)).toMatchObject({
        booked: { captured: 0, refunded: 0 },
      })

      // Medusa deleted its capture record: the retry comes with a new key.
      const retried = await post(`/admin/payments/${payment.id}/capture`, { amount: 20 })
      expect(retried.status).toBe(200)
      expect(await expectServiceHoldsWhatMedusaBooks(orderId)).toMatchObject({
        booked: { captured: 20, refunded: 0 },
      })
    })

    it("refuses a capture the service says was already made by a capture this payment's record does not hold", async () => {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())
      // The approval captured behind Medusa's back (an earlier capture whose
      // answer never reached Medusa's record).
      await cardServiceProvider(getContainer(), CARD_SERVICE_PROVIDER_ID).client.capture({
        merchantReferenceCode: "captured-elsewhere",
        currency: payment.data.currency,
        amount: 30,
        email: "owner@example.com",
        originalTransactionId: payment.data.transaction_id,
      })

      const answer = await post(`/admin/payments/${payment.id}/capture`, {})

      expect(answer.status).toBe(400)
      expect(answer.data.message).toContain("already used by a capture")
      const after = await paymentOfOrder(getContainer(), orderId)
      expect(after.captures).toHaveLength(0)
    })

    it("sends no second refund when the owner retries, with a new key, a refund that had no answer", async () => {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())
      await post(`/admin/payments/${payment.id}/capture`, {})
      // Processed at the service, then the connection is dropped: no answer.
      env.sandbox().injectFault({ type: "destroy", path: "/refund" })

      const first = await post(`/admin/payments/${payment.id}/refund`, { amount: 10 })
      expect(first.status).toBe(200)
      const retried = await post(`/admin/payments/${payment.id}/refund`, { amount: 10 })

      expect(retried.status).toBe(400)
      expect(retried.data.message).toContain("nothing is refunded twice")
      expect(await expectServiceHoldsWhatMedusaBooks(orderId)).toMatchObject({
        booked: { captured: 30, refunded: 10 },
      })
    })

    it("takes the owner's answer about a refund with no answer: made, it is kept and refunds go on; not made, it is made now", async () => {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())
      await post(`/admin/payments/${payment.id}/capture`, {})
      // A failure of the service's own: booked as unknown; here it did not act.
      env.sandbox().injectFault({ type: "status", status: 503, path: "/refund" })
      expect((await post(`/admin/payments/${payment.id}/refund`, { amount: 10 })).status).toBe(200)
      const [unknown] = (await paymentOfOrder(getContainer(), orderId)).refunds
      const held = serviceTotals(env.sandbox().transactions(), payment)
      expect([held.captured, held.refunded]).toEqual([30, 0])

      const view = (await api.get(`/admin/card-service/payments/${payment.id}/transactions`, { headers: owner.headers() })).data
      expect(view.transactions.filter((r: any) => r.unknown_refund_id).map((r: any) => r.unknown_refund_id)).toEqual([unknown.id])
      expect(view.payment.notes).toEqual([expect.stringContaining(`Medusa refund ${unknown.id}) had no answer`)])
      const notMade = await post(`/admin/card-service/payments/${payment.id}/unknown-refunds`, {
        refund_id: unknown.id,
        made: false,
      })
      expect([notMade.status, notMade.data.refund?.made_now]).toEqual([200, true])
      expect(await expectServiceHoldsWhatMedusaBooks(orderId)).toMatchObject({
        booked: { captured: 30, refunded: 10 },
      })

      // Processed, answer lost: the owner finds it made at the service.
      env.sandbox().injectFault({ type: "destroy", path: "/refund" })
      expect((await post(`/admin/payments/${payment.id}/refund`, { amount: 5 })).status).toBe(200)
      const lost = (await paymentOfOrder(getContainer(), orderId)).refunds.find((r: any) => Number(r.amount) === 5)
      expect((await post(`/admin/payments/${payment.id}/refund`, { amount: 1 })).status).toBe(400)
      const made = await post(`/admin/card-service/payments/${payment.id}/unknown-refunds`, {
        refund_id: lost.id,
        made: true,
      })
      expect([made.status, made.data.refund?.made_now]).toEqual([200, false])
      expect((await post(`/admin/payments/${payment.id}/refund`, { amount: 1 })).status).toBe(200)
      expect(await expectServiceHoldsWhatMedusaBooks(orderId)).toMatchObject({
        booked: { captured: 30, refunded: 16 },
      })
      const again = await post(`/admin/card-service/payments/${payment.id}/unknown-refunds`, {
        refund_id: lost.id,
        made: false,
      })
      expect(again.status).toBe(400)
    })

    /**
     * Medusa's refund route refunds first (the refund is never undone: the
     * money has gone), then records the refund on the order with a credit
     * line, in an order change of its own. An order with an open change (an
     * edit, a return, a claim or an exchange begun and not confirmed) refuses
     * a second one: the admin answered 400 after the service had refunded,
     * the order did not count the refund, and the owner's retry refunded again.
     */
    it("refuses a refund, sending nothing, while the order has an open change Medusa could not record it beside; refunds once it is closed", async () => {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())
      expect((await post(`/admin/payments/${payment.id}/capture`, {})).status).toBe(200)
      expect((await post(`/admin/order-edits`, { order_id: orderId })).status).toBe(200)
      const refundsSent = () => env.sandbox().requests().filter((r) => r.path === "/refund").length
      const sentBefore = refundsSent()

      const refused = await post(`/admin/payments/${payment.id}/refund`, { amount: 10 })

      expect(refused.status).toBe(400)
      expect(await expectServiceHoldsWhatMedusaBooks(orderId)).toMatchObject({ booked: { captured: 30, refunded: 0 } })
      expect(refundsSent()).toBe(sentBefore)
      expect(refused.data.message).toContain("has an open order edit")

      expect((await owner.delete(`/admin/order-edits/${orderId}`)).status).toBe(200)
      expect((await post(`/admin/payments/${payment.id}/refund`, { amount: 10 })).status).toBe(200)
      expect(await expectServiceHoldsWhatMedusaBooks(orderId)).toMatchObject({ booked: { captured: 30, refunded: 10 } })
      const { data } = await owner.get(`/admin/orders/${orderId}?fields=*transactions`)
      expect(data.order.transactions.filter((t: any) => t.reference === "refund").map((t: any) => Number(t.amount))).toEqual([-10])
    })

    it("of two captures the owner sends at once, makes one and refuses the other as a second capture, without asking the service", async () => {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())
      env.sandbox().injectFault({ type: "delay", ms: 400, count: 2, path: "/capture" })
      const capturesBefore = env.sandbox().requests().filter((r) => r.path === "/capture").length

      const answers = await Promise.all([
        post(`/admin/payments/${payment.id}/capture`, { amount: 10 }),
        post(`/admin/payments/${payment.id}/capture`, { amount: 12 }),
      ])

      expect(answers.map((a) => a.status).sort()).toEqual([200, 400])
      expect(answers.find((a) => a.status === 400)!.data.message).toContain("one capture per approval")
      expect(env.sandbox().requests().filter((r) => r.path === "/capture").length - capturesBefore).toBe(1)
      const { payment: after } = await expectServiceHoldsWhatMedusaBooks(orderId)
      expect(after.captures).toHaveLength(1)
      expect(after.data.capture.amount).toBe(Number(after.captures[0].amount))
    })

    it("refunds a partly captured payment up to what was captured, and refuses more", async () => {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())
      await post(`/admin/payments/${payment.id}/capture`, { amount: 18 })

      expect((await post(`/admin/payments/${payment.id}/refund`, { amount: 8 })).status).toBe(200)
      expect((await post(`/admin/payments/${payment.id}/refund`, { amount: 10.01 })).status).toBe(400)
      expect(await expectServiceHoldsWhatMedusaBooks(orderId)).toMatchObject({
        booked: { captured: 18, refunded: 8 },
      })
    })
  },
})
