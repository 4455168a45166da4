import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { payLikeABrowser } from "../helpers/browser-step"
import { useCardServiceSandbox } from "../helpers/card-service-env"
import { CARDS, checkoutToOrder } from "../helpers/checkout-flow"
import { useStoreOwner } from "../helpers/store-owner"

jest.setTimeout(180_000)

// A store that captures at once (autoCapture): a provider option, so a file of its own.
const env = useCardServiceSandbox({ autoCapture: true })

/**
 * Issue 40, with automatic capture: the difference an order edit left owing
 * is captured when it is paid, and the capture is recorded on the order
 * (as authorizePaymentSessionForOrderWorkflow records it), so the order owes
 * nothing afterwards. order-edit-payment.spec.ts has the rest.
 */
medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    const owner = useStoreOwner(api, getContainer, env)

    async function order(orderId: string) {
      const { data } = await api.get(
        `/admin/orders/${orderId}?fields=id,total,payment_status,summary,*payment_collections,payment_collections.payments.*,payment_collections.payments.captures.*`,
        { headers: owner.headers() }
      )
      return data.order
    }

    it("captures the difference at once when it is paid, and the order owes nothing", async () => {
      const { store, orderId, payment } = await checkoutToOrder(api, getContainer())
      expect(payment.captured_at).toBeTruthy()
      await owner.editFirstItem(orderId, { quantity: 2 })
      const owed = (await order(orderId)).payment_collections.find((c: any) => c.status === "not_paid")
      expect(Number(owed.amount)).toBe(25)
      const before = env.sandbox().transactions().map((r) => r.transactionId)
      const session = await owner.sessionOnCollection(owed.id)

      const paid = await payLikeABrowser(api, store.publishableKey, session.id, CARDS.approved)

      expect(paid.storefrontLocation?.searchParams.get("status")).toBe("paid")
      const after = await order(orderId)
      const collection = after.payment_collections.find((c: any) => c.id === owed.id)
      expect(collection.status).toBe("completed")
      expect(collection.payments[0].captures.map((c: any) => Number(c.amount))).toEqual([25])
      // The capture is on the order: it owes nothing, and is captured.
      expect(Number(after.summary.pending_difference)).toBe(0)
      expect(after.payment_status).toBe("captured")
      const added = env
        .sandbox()
        .transactions()
        .filter((r) => !before.includes(r.transactionId))
      expect(added.map((r) => [r.step, r.status, r.amount])).toEqual([
        ["AUTHORIZATION", "successful", 25],
        ["CAPTURE", "successful", 25],
      ])
    })
  },
})
