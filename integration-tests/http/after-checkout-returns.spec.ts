import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { Modules } from "@medusajs/framework/utils"
import { payOnHostedPage } from "../helpers/browser-step"
import { useCardServiceSandbox } from "../helpers/card-service-env"
import { adminHeaders, CARDS, checkoutToOrder, paymentOfOrder } from "../helpers/checkout-flow"
import {
  AdminApi,
  adminApi,
  AfterCheckoutPrices,
  AfterCheckoutStore,
  seedAfterCheckoutStore,
  serviceTotals,
} from "../helpers/order-flows"

// Issue 40: after the checkout the service moves exactly the money Medusa
// books. Every step goes through Medusa's own admin API (returns, exchanges,
// claims, payments), never through the provider; after each money step the
// service's records for the payment are summed and compared with the
// captures and refunds Medusa booked, and both with the amount the order's
// summary said was due.

jest.setTimeout(120_000)

const env = useCardServiceSandbox()

/** The shopper buys one item at `price` with shipping at `shippingPrice`. */
const EUR: AfterCheckoutPrices = {
  currencyCode: "eur",
  price: 24.99,
  shippingPrice: 4.95,
  returnShippingPrice: 2.5,
  cheaperPrice: 14.99,
  dearerPrice: 39.99,
}
const JPY: AfterCheckoutPrices = {
  currencyCode: "jpy",
  price: 2500,
  shippingPrice: 500,
  returnShippingPrice: 300,
  cheaperPrice: 1500,
  dearerPrice: 4000,
}
/** Three minor digits: the refund (8.125 - 0.5) needs all three. */
const KWD: AfterCheckoutPrices = {
  currencyCode: "kwd",
  price: 8.125,
  shippingPrice: 1.5,
  returnShippingPrice: 0.5,
  cheaperPrice: 5.25,
  dearerPrice: 12.375,
}

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    let admin: AdminApi

    beforeEach(async () => {
      env.sandbox().resetKnobs()
      admin = adminApi(api, await adminHeaders(getContainer()))
    })

    /**
     * Asserts that the service's captured and refunded totals for the
     * payment equal what Medusa booked, and that both are the amounts the
     * test expects; returns nothing so each money step reads as one line.
     */
    const expectMoney = async (
      orderId: string,
      paymentId: string,
      expected: { captured: number; refunded: number }
    ) => {
      const booked = await admin.bookedTotals(paymentId)
      const payment = await paymentOfOrder(getContainer(), orderId)
      expect(payment.id).toBe(paymentId)
      const moved = serviceTotals(env.sandbox().transactions(), payment)
      expect({ medusa: booked, service: { captured: moved.captured, refunded: moved.refunded } }).toEqual({
        medusa: expected,
        service: expected,
      })
    }

    /** A paid, captured, fulfilled order of one item, and the store it was bought in. */
    const capturedOrder = async (prices: AfterCheckoutPrices) => {
      const store = await seedAfterCheckoutStore(getContainer(), prices)
      const { orderId, payment } = await checkoutToOrder(api, getContainer(), store)
      const paid = round(prices.price + prices.shippingPrice)
      expect(Number(payment.amount)).toBe(paid)

      await admin.capture(payment.id)
      await expectMoney(orderId, payment.id, { captured: paid, refunded: 0 })

      await admin.fulfilAll(orderId, store.locationId)
      const order = await admin.order(orderId)
      expect(order.items).toHaveLength(1)
      return { store, orderId, payment, paid, item: order.items[0] }
    }

    /** Refunds what the order summary says is owed to the shopper, and returns that amount. */
    const refundWhatIsDue = async (orderId: string, paymentId: string) => {
      const due = -(await admin.pendingDifference(orderId))
      expect(due).toBeGreaterThan(0)
      await admin.refund(paymentId, due)
      expect(await admin.pendingDifference(orderId)).toBe(0)
      return due
    }

    describe("a return with a refund", () => {
      it.each([
        ["EUR", EUR],
        ["JPY", JPY],
        ["KWD (three decimals)", KWD],
      ])("refunds the returned item less the return shipping, in %s", async (_name, prices) => {
        const { store, orderId, payment, paid, item } = await capturedOrder(prices)

        // Request the return: begin, add the item, a return shipping method, confirm.
        const { return: started } = await admin.post("/admin/returns", {
          order_id: orderId,
          location_id: store.locationId,
        })
        await admin.post(`/admin/returns/${started.id}/request-items`, {
          items: [{ id: item.id, quantity: 1 }],
        })
        await admin.post(`/admin/returns/${started.id}/shipping-method`, {
          shipping_option_id: store.returnShippingOptionId,
        })
        await admin.post(`/admin/returns/${started.id}/request`, {})
        const owed = round(prices.price - prices.returnShippingPrice)
        // Medusa books what it owes as soon as the return is requested.
        expect(await admin.pendingDifference(orderId)).toBe(-owed)
        await expectMoney(orderId, payment.id, { captured: paid, refunded: 0 })

        // Receive the item: begin receive, receive it, confirm.
        const received = await admin.receiveReturn(started.id, [{ id: item.id, quantity: 1 }])
        expect(received.return.status).toBe("received")
        expect(await admin.pendingDifference(orderId)).toBe(-owed)

        const refunded = await refundWhatIsDue(orderId, payment.id)
        expect(refunded).toBe(owed)
        await expectMoney(orderId, payment.id, { captured: paid, refunded: owed })
        const order = await admin.order(orderId)
        expect(Number(order.summary.refunded_total)).toBe(owed)
      })
    })

    describe("an exchange", () => {
      /** Exchanges the bought item for one of `variantId`: begin, inbound item (and return shipping), outbound item, confirm. */
      const exchange = async (
        store: AfterCheckoutStore,
        orderId: string,
        itemId: string,
        variantId: string,
        { returnShipping }: { returnShipping: boolean }
      ) => {
        const { exchange: started } = await admin.post("/admin/exchanges", { order_id: orderId })
        await admin.post(`/admin/exchanges/${started.id}/inbound/items`, {
          location_id: store.locationId,
          items: [{ id: itemId, quantity: 1 }],
        })
        if (returnShipping) {
          await admin.post(`/admin/exchanges/${started.id}/inbound/shipping-method`, {
            shipping_option_id: store.returnShippingOptionId,
          })
        }
        await admin.post(`/admin/exchanges/${started.id}/outbound/items`, {
          items: [{ variant_id: variantId, quantity: 1 }],
        })
        const confirmed = await admin.post(`/admin/exchanges/${started.id}/request`, {})
        const returnId = confirmed.exchange.return_id as string
        expect(returnId).toBeTruthy()
        return { exchangeId: started.id as string, returnId }
      }

      it("refunds the difference for a cheaper new item, less the return shipping", async () => {
        const { store, orderId, payment, paid, item } = await capturedOrder(EUR)

        const { returnId } = await exchange(store, orderId, item.id, store.cheaperVariantId, {
          returnShipping: true,
        })
        const owed = round(EUR.price - EUR.cheaperPrice - EUR.returnShippingPrice)
        expect(await admin.pendingDifference(orderId)).toBe(-owed)
        await admin.receiveReturn(returnId, [{ id: item.id, quantity: 1 }])
        await expectMoney(orderId, payment.id, { captured: paid, refunded: 0 })

        expect(await refundWhatIsDue(orderId, payment.id)).toBe(owed)
        await expectMoney(orderId, payment.id, { captured: paid, refunded: owed })
      })

      it("books the difference for a dearer new item as outstanding, moves nothing at the service, and collects exactly it through the widget's link", async () => {
        const { store, orderId, payment, paid, item } = await capturedOrder(EUR)
        const recordsBefore = env.sandbox().transactions().length

        const { returnId } = await exchange(store, orderId, item.id, store.dearerVariantId, {
          returnShipping: false,
        })
        await admin.receiveReturn(returnId, [{ id: item.id, quantity: 1 }])

        const due = round(EUR.dearerPrice - EUR.price)
        expect(await admin.pendingDifference(orderId)).toBe(due)
        // A new collection for the difference, not paid, with nothing in it
        // until it is paid below; the first one stays paid.
        const order = await admin.order(orderId)
        const collections = order.payment_collections.map((c: any) => ({
          status: c.status,
          amount: Number(c.amount),
          payments: c.payments.length,
          sessions: c.payment_sessions.length,
        }))
        expect(collections).toEqual(
          expect.arrayContaining([
            { status: "completed", amount: paid, payments: 1, sessions: 1 },
            { status: "not_paid", amount: due, payments: 0, sessions: 0 },
          ])
        )
        expect(collections).toHaveLength(2)
        // Nothing moved: the first payment is as it was, and the service
        // recorded nothing at all since its capture.
        await expectMoney(orderId, payment.id, { captured: paid, refunded: 0 })
        expect(env.sandbox().transactions()).toHaveLength(recordsBefore)

        // The owner sends the order widget's link; the shopper pays exactly
        // the difference on the hosted page, and the owner captures it.
        const { outstanding } = await admin.post(`/admin/card-service/orders/${orderId}/outstanding`)
        expect(outstanding).toMatchObject({ amount: due, status: "not_paid" })
        const paidDifference = await payOnHostedPage(outstanding.link.pay_url, CARDS.approved)
        expect(paidDifference.landed?.searchParams.get("status")).toBe("paid")
        const after = await admin.order(orderId)
        const owed = after.payment_collections.find((c: any) => c.id === outstanding.payment_collection_id)
        expect(owed.status).toBe("authorized")
        const [second] = owed.payments
        await admin.capture(second.id)
        const secondPayment = await getContainer()
          .resolve(Modules.PAYMENT)
          .retrievePayment(second.id, { relations: ["captures", "refunds"] })
        const movedForSecond = serviceTotals(env.sandbox().transactions(), secondPayment as any)
        expect({
          medusa: await admin.bookedTotals(second.id),
          service: { captured: movedForSecond.captured, refunded: movedForSecond.refunded },
        }).toEqual({ medusa: { captured: due, refunded: 0 }, service: { captured: due, refunded: 0 } })
        await expectMoney(orderId, payment.id, { captured: paid, refunded: 0 })
        expect(await admin.pendingDifference(orderId)).toBe(0)
      })
    })

    describe("a claim", () => {
      it("refunds a claimed item the shopper sends back", async () => {
        const { store, orderId, payment, paid, item } = await capturedOrder(EUR)

        const { claim } = await admin.post("/admin/claims", { order_id: orderId, type: "refund" })
        // The claimed item comes back (inbound): that is what Medusa credits.
        // A claim item without a return (/claim-items) is written off and
        // credits nothing in 2.21.2.
        await admin.post(`/admin/claims/${claim.id}/inbound/items`, {
          location_id: store.locationId,
          items: [{ id: item.id, quantity: 1 }],
        })
        const confirmed = await admin.post(`/admin/claims/${claim.id}/request`, {})
        const returnId = confirmed.claim.return_id as string
        expect(returnId).toBeTruthy()
        const owed = EUR.price
        expect(await admin.pendingDifference(orderId)).toBe(-owed)
        await admin.receiveReturn(returnId, [{ id: item.id, quantity: 1 }])
        await expectMoney(orderId, payment.id, { captured: paid, refunded: 0 })

        expect(await refundWhatIsDue(orderId, payment.id)).toBe(owed)
        await expectMoney(orderId, payment.id, { captured: paid, refunded: owed })
      })
    })
  },
})

/** Float noise off a sum of prices (the largest exponent here is 3). */
function round(amount: number) {
  return Number(amount.toFixed(6))
}
