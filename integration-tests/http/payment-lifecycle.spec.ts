import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { request } from "undici"
import { cardServiceProvider } from "../../src/checkout/provider-lookup"
import { useCardServiceSandbox } from "../helpers/card-service-env"
import { payLikeABrowser } from "../helpers/browser-step"
import {
  adminHeaders,
  CARDS,
  cartWithSession,
  checkoutToOrder,
  orderOfCart,
  paymentOfOrder,
} from "../helpers/checkout-flow"
import { CARD_SERVICE_PROVIDER_ID } from "../helpers/seed-store"
import { Modules } from "@medusajs/framework/utils"
import { recordCanceledPayments } from "../../src/reconciliation/canceled-payments"

jest.setTimeout(120_000)

const env = useCardServiceSandbox()

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer, dbConnection }) => {
    let admin: Record<string, string>

    beforeEach(async () => {
      env.sandbox().resetKnobs()
      admin = await adminHeaders(getContainer())
    })

    const sandboxRecords = (predicate: (r: any) => boolean) =>
      env.sandbox().transactions().filter(predicate)

    describe("store owner operations on a card-service payment", () => {
      it("captures from the admin, once, at the service", async () => {
        const { orderId, payment } = await checkoutToOrder(api, getContainer())

        await api.post(`/admin/payments/${payment.id}/capture`, {}, { headers: admin })

        const captured = await paymentOfOrder(getContainer(), orderId)
        expect(captured.captured_at).toBeTruthy()
        expect(captured.data.state).toBe("captured")
        const captures = sandboxRecords(
          (r) => r.step === "CAPTURE" && r.originalTransactionId === payment.data.transaction_id
        )
        expect(captures).toHaveLength(1)
        expect(captures[0]).toMatchObject({ status: "successful", amount: 30, captureStatus: "PENDING" })
      })

      it("refunds twice in part, then refuses a refund above what is left", async () => {
        const { orderId, payment } = await checkoutToOrder(api, getContainer())
        await api.post(`/admin/payments/${payment.id}/capture`, {}, { headers: admin })

        await api.post(`/admin/payments/${payment.id}/refund`, { amount: 10 }, { headers: admin })
        await api.post(`/admin/payments/${payment.id}/refund`, { amount: 12.5 }, { headers: admin })
        const third = await api
          .post(`/admin/payments/${payment.id}/refund`, { amount: 10 }, { headers: admin })
          .catch((error: any) => error.response)

        expect(third.status).toBe(400)
        const refunded = await paymentOfOrder(getContainer(), orderId)
        expect(refunded.refunds.map((r: any) => Number(r.amount)).sort()).toEqual([10, 12.5])
        expect(refunded.data.refunded_amount).toBe(22.5)
        const refunds = sandboxRecords(
          (r) => r.step === "REFUND" && r.originalTransactionId === refunded.data.capture.transaction_id
        )
        expect(refunds.filter((r) => r.status === "successful").map((r) => r.amount)).toEqual([10, 12.5])
      })

      it("voids a capture the service has not transmitted yet when the whole amount is refunded", async () => {
        const { orderId, payment } = await checkoutToOrder(api, getContainer())
        await api.post(`/admin/payments/${payment.id}/capture`, {}, { headers: admin })

        await api.post(`/admin/payments/${payment.id}/refund`, { amount: 30 }, { headers: admin })

        const refunded = await paymentOfOrder(getContainer(), orderId)
        const captureId = refunded.data.capture.transaction_id
        expect(env.sandbox().transaction(captureId)?.captureStatus).toBe("VOIDED")
        expect(sandboxRecords((r) => r.step === "REFUND" && r.originalTransactionId === captureId)).toHaveLength(0)
        expect(refunded.data.transactions.map((t: any) => t.operation)).toEqual([
          "authorization",
          "capture",
          "void",
          "reversal",
        ])
        // A voided capture leaves the authorization standing (section 3): released too.
        expect(
          sandboxRecords(
            (r) => r.step === "REVERSAL" && r.originalTransactionId === payment.data.transaction_id
          ).map((r) => r.status)
        ).toEqual(["successful"])
      })

      it("reverses the approval when the order is canceled before capture", async () => {
        const { orderId, payment } = await checkoutToOrder(api, getContainer())

        await api.post(`/admin/orders/${orderId}/cancel`, {}, { headers: admin })

        const reversals = sandboxRecords(
          (r) => r.step === "REVERSAL" && r.originalTransactionId === payment.data.transaction_id
        )
        expect(reversals).toHaveLength(1)
        expect(reversals[0]).toMatchObject({ status: "successful", amount: 30 })
        const canceled = await paymentOfOrder(getContainer(), orderId)
        expect(canceled.canceled_at).toBeTruthy()
        expect(canceled.data.state).toBe("canceled")
        // This Medusa keeps cancelPayment's answer: the plugin writes nothing over it.
        expect(await recordCanceledPayments(getContainer(), orderId)).toEqual([])
        const reversal = (await paymentOfOrder(getContainer(), orderId)).data.transactions.at(-1)
        expect(reversal).toMatchObject({ operation: "reversal", transaction_id: reversals[0].transactionId })
      })

      it("records the reversal of a canceled order's payment when Medusa drops cancelPayment's answer (Medusa 2.12 to 2.14)", async () => {
        const { orderId, payment } = await checkoutToOrder(api, getContainer())
        // What the payment module of Medusa 2.12 to 2.14 does on an order's
        // cancel: the provider's cancelPayment is called (the approval is
        // reversed at the service), its answer is dropped, canceled_at is set.
        const provider = cardServiceProvider(getContainer(), CARD_SERVICE_PROVIDER_ID)
        await provider.cancelPayment({ data: payment.data, context: { idempotency_key: payment.id } })
        await getContainer()
          .resolve(Modules.PAYMENT)
          .updatePayment({ id: payment.id, canceled_at: new Date() } as { id: string })
        // The provider wrote its answer onto the payment itself (payment-record.ts), so it survives.
        expect((await paymentOfOrder(getContainer(), orderId)).data.state).toBe("canceled")
        // Where that write failed too, the payment still says authorized: the subscriber records it.
        await getContainer()
          .resolve(Modules.PAYMENT)
          .updatePayment({ id: payment.id, data: payment.data } as { id: string })
        expect((await paymentOfOrder(getContainer(), orderId)).data.state).toBe("authorized")

        await getContainer().resolve(Modules.EVENT_BUS).emit({ name: "order.canceled", data: { id: orderId } })
        // The subscriber runs after emit returns: wait for what it does.
        const deadline = Date.now() + 10_000
        let recorded = await paymentOfOrder(getContainer(), orderId)
        while (recorded.data.state !== "canceled" && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 100))
          recorded = await paymentOfOrder(getContainer(), orderId)
        }

        expect(recorded.data.state).toBe("canceled")
        expect(recorded.data.transactions.map((t: any) => [t.operation, t.reason_code])).toEqual([
          ["authorization", "100"],
          // The service's answer to the cancel asked again: already reversed.
          ["reversal", "237"],
        ])
        // One reversal at the service: asking again reversed nothing twice.
        const reversals = sandboxRecords(
          (r) => r.step === "REVERSAL" && r.originalTransactionId === payment.data.transaction_id && r.status === "successful"
        )
        expect(reversals).toHaveLength(1)
      })
    })

    describe("money held without an order", () => {
      it("keeps the approval of an order whose session Medusa deletes after authorizing it (a cart change racing the completion)", async () => {
        const { orderId, session, payment } = await checkoutToOrder(api, getContainer())
        // Medusa's addToCartWorkflow holds the cart's lock for 10 s at most
        // (core-flows, acquireLockStep ttl 10): on a loaded machine a cart
        // change outlived it while the callback's completion authorized the
        // session, and its refresh then deleted that authorized session.
        await getContainer().resolve(Modules.PAYMENT).deletePaymentSession(session.id)

        const reversals = sandboxRecords(
          (r) => r.step === "REVERSAL" && r.originalTransactionId === payment.data.transaction_id
        )
        expect(reversals).toHaveLength(0)
        // The order's payment is still good for its money.
        await api.post(`/admin/payments/${payment.id}/capture`, {}, { headers: admin })
        expect((await paymentOfOrder(getContainer(), orderId)).captured_at).toBeTruthy()
      })


      it("reverses an approval whose result arrives after the cart changed", async () => {
        const { store, storefront, cart, session } = await cartWithSession(api, getContainer())
        env.sandbox().setCallbackKnobs({ afterRedirect: true, delayMs: 1500 })

        const paid = await payLikeABrowser(api, store.publishableKey, session.id, CARDS.approved, {
          followReturn: false,
        })
        const transactionId = new URL(paid.serviceLocation as string).searchParams.get("transactionId")
        // The shopper adds an item in another tab: Medusa deletes the session.
        await storefront.post(`/store/carts/${cart.id}/line-items`, {
          variant_id: store.variantId,
          quantity: 1,
        })
        const delivered = await env
          .sandbox()
          .waitForCallbacks(
            (d) => d.some((c) => c.transactionId === transactionId && c.status === 200),
            10_000
          )

        // One reversal at the service. A callback delivered again (its first
        // answer slow on a loaded machine) may ask once more; the service
        // answers 237, already reversed, and reverses nothing twice.
        const reversals = sandboxRecords(
          (r) => r.step === "REVERSAL" && r.originalTransactionId === transactionId
        )
        expect(reversals.filter((r) => r.status === "successful")).toHaveLength(1)
        for (const refused of reversals.filter((r) => r.status !== "successful")) {
          expect(refused.reasonCode).toBe("237")
        }
        expect(delivered.filter((c) => c.transactionId === transactionId).at(-1)?.status).toBe(200)
        expect(await orderOfCart(getContainer(), cart.id)).toBeNull()
      })
    })

    describe("session data edited by a storefront", () => {
      /** Approves a payment for the session but tells Medusa nothing (no callback, no return). */
      const approveSilently = async (store?: any) => {
        const flow = await cartWithSession(api, getContainer(), store)
        env.sandbox().setCallbackKnobs({ drop: true })
        const paid = await payLikeABrowser(api, flow.store.publishableKey, flow.session.id, CARDS.approved, {
          followReturn: false,
        })
        const transactionId = new URL(paid.serviceLocation as string).searchParams.get(
          "transactionId"
        ) as string
        return { ...flow, transactionId }
      }

      const editSessionData = async (sessionId: string, edit: (data: any) => any) => {
        // As if the storefront could write session data at will.
        const { rows } = await dbConnection.raw("select data from payment_session where id = ?", [
          sessionId,
        ])
        await dbConnection.raw("update payment_session set data = ?::jsonb where id = ?", [
          JSON.stringify(edit(rows[0].data)),
          sessionId,
        ])
      }

      const completeCart = (storefront: any, cartId: string) =>
        api
          .post(`/store/carts/${cartId}/complete`, {}, { headers: storefront.headers })
          .catch((error: any) => error.response)

      it("places no order for a session whose sealed amount was lowered", async () => {
        const { storefront, cart, session, transactionId } = await approveSilently()
        await editSessionData(session.id, (data) => ({
          ...data,
          transaction_id: transactionId,
          amount: 1,
          amount_minor: "100",
        }))

        const answer = await completeCart(storefront, cart.id)

        expect(answer.status).toBe(400)
        expect(await orderOfCart(getContainer(), cart.id)).toBeNull()
      })

      it("places no order for a session that names another session's approval", async () => {
        const other = await approveSilently()
        const { storefront, cart, session } = await cartWithSession(api, getContainer(), other.store)
        await editSessionData(session.id, (data) => ({ ...data, transaction_id: other.transactionId }))

        const answer = await completeCart(storefront, cart.id)

        expect(answer.status).toBe(400)
        expect(await orderOfCart(getContainer(), cart.id)).toBeNull()
        // Someone else's approval is left alone, not reversed.
        expect(
          sandboxRecords((r) => r.step === "REVERSAL" && r.originalTransactionId === other.transactionId)
        ).toHaveLength(0)
      })

      it("places no order for a made-up transaction id", async () => {
        const { storefront, cart, session } = await cartWithSession(api, getContainer())
        await editSessionData(session.id, (data) => ({ ...data, transaction_id: "999999999" }))

        const answer = await completeCart(storefront, cart.id)

        expect(answer.status).toBe(400)
        expect(await orderOfCart(getContainer(), cart.id)).toBeNull()
      })

      it.each([
        ["amount", { amount: 1, currency_code: "eur" }, { amount: "1.00" }],
        ["currency", { amount: 30, currency_code: "usd" }, { currency: "840" }],
      ])(
        "places no order from a callback for data sealed for this session at another %s, with its approval",
        async (_, terms, formChanges) => {
          const { cart, session, store } = await cartWithSession(api, getContainer())
          env.sandbox().setCallbackKnobs({ drop: true })
          const paid = await payLikeABrowser(api, store.publishableKey, session.id, CARDS.approved, {
            followReturn: false,
            editFields: (fields) => ({ ...fields, ...formChanges }),
          })
          env.sandbox().resetKnobs()
          const transactionId = new URL(paid.serviceLocation as string).searchParams.get(
            "transactionId"
          ) as string
          // Validly sealed: what the provider itself makes for this very
          // session at those terms. Only Medusa's record of the session (30
          // EUR) shows it is not what the cart costs.
          const provider = cardServiceProvider(getContainer(), CARD_SERVICE_PROVIDER_ID)
          const { data: sealed } = await provider.initiatePayment({
            ...terms,
            data: { session_id: session.id },
            context: { idempotency_key: session.id },
          } as any)
          await editSessionData(session.id, () => ({ ...sealed, transaction_id: transactionId }))

          const answer = await request(`${env.backendUrl()}/card-service/callback/${session.id}/`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ decision: "ACCEPT", reasonCode: "100", transactionId, originalTransactionId: "" }),
          })
          await answer.body.dump()

          expect(answer.statusCode).toBe(200)
          expect(await orderOfCart(getContainer(), cart.id)).toBeNull()
          expect(
            sandboxRecords((r) => r.step === "CAPTURE" && r.originalTransactionId === transactionId)
          ).toHaveLength(0)
        }
      )

      it("places an order for an unedited session once the approval is known", async () => {
        const { storefront, cart, session, transactionId } = await approveSilently()
        await editSessionData(session.id, (data) => ({ ...data, transaction_id: transactionId }))

        const answer = await completeCart(storefront, cart.id)

        expect(answer.status).toBe(200)
        expect(answer.data.type).toBe("order")
      })
    })
  },
})
