import { createRegionsWorkflow } from "@medusajs/core-flows"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { useCardServiceSandbox } from "../helpers/card-service-env"
import { checkoutToOrder, paymentOfOrder } from "../helpers/checkout-flow"
import { CARD_SERVICE_PROVIDER_ID, seedStore } from "../helpers/seed-store"
import { useStoreOwner } from "../helpers/store-owner"

jest.setTimeout(120_000)

const SETTLEMENT_MS = 60_000
const env = useCardServiceSandbox({ settlementMs: SETTLEMENT_MS })

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    const owner = useStoreOwner(api, getContainer, env)

    const call = (promise: Promise<any>) =>
      promise.catch((error) => error.response)

    /** An order paid with the approved VISA, captured (30 EUR) and refunded in part (10 EUR). */
    async function capturedAndRefunded() {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())
      await api.post(
        `/admin/payments/${payment.id}/capture`,
        {},
        { headers: owner.headers() }
      )
      await api.post(
        `/admin/payments/${payment.id}/refund`,
        { amount: 10 },
        { headers: owner.headers() }
      )
      const stored = await paymentOfOrder(getContainer(), orderId)
      const refund = stored.data.transactions.find(
        (t: any) => t.operation === "refund"
      )
      return {
        orderId,
        payment: stored,
        refundId: refund.transaction_id as string,
      }
    }

    const transactionsOf = (paymentId: string) =>
      api.get(`/admin/card-service/payments/${paymentId}/transactions`, {
        headers: owner.headers(),
      })

    describe("admin authentication", () => {
      it.each([
        ["get", "/admin/card-service/settings"],
        ["post", "/admin/card-service/test-connection"],
        ["get", "/admin/card-service/payments/pay_123/transactions"],
        ["post", "/admin/card-service/payments/pay_123/void"],
      ])("answers 401 to %s %s without credentials", async (method, path) => {
        const response = await call(
          method === "get"
            ? api.get(path)
            : api.post(path, { transaction_id: "1" })
        )
        expect(response.status).toBe(401)
      })
    })

    describe("GET /admin/card-service/settings", () => {
      it("shows the address in use, ids, URL patterns, switches and regions, and no secret", async () => {
        const store = await seedStore(getContainer())
        const {
          result: [other],
        } = await createRegionsWorkflow(getContainer()).run({
          input: {
            regions: [
              {
                name: "Region USD",
                currency_code: "usd",
                countries: ["us"],
                payment_providers: ["pp_system_default"],
              },
            ],
          },
        })

        const { status, data } = await api.get("/admin/card-service/settings", {
          headers: owner.headers(),
        })

        expect(status).toBe(200)
        expect(data.providers).toHaveLength(1)
        const [settings] = data.providers
        const backend = env.backendUrl()
        expect(settings).toMatchObject({
          id: CARD_SERVICE_PROVIDER_ID,
          is_enabled: true,
          mode: "test",
          service_url: env.sandbox().url,
          merchant_id: "sandbox-merchant",
          verify_id: "sandbox-verify",
          auto_capture: false,
          windowed: false,
          redirect_on_failure: true,
          urls: {
            callback: `${backend}/card-service/callback/{session_id}/`,
            return: `${backend}/card-service/return/{session_id}/`,
            pay_page: `${backend}/card-service/pay/{session_id}`,
            form_fields: `${backend}/store/card-service/sessions/{session_id}/form`,
            storefront_return: "http://localhost:8000/checkout/card-service",
          },
        })
        expect(settings.regions_enabled).toEqual([
          {
            id: store.regionId,
            name: "Region EUR",
            currency_code: "eur",
            countries: ["de"],
            admin_path: `/settings/regions/${store.regionId}`,
          },
        ])
        expect(settings.regions_not_enabled.map((r: any) => r.id)).toEqual([
          other.id,
        ])
        const text = JSON.stringify(data)
        expect(text).not.toContain("sandbox-secret")
        expect(text).not.toContain("sandbox-client")
        // The form's part names the secret options (never their values).
        expect(JSON.stringify(data.providers)).not.toMatch(/secret/i)
      })
    })

    describe("POST /admin/card-service/test-connection", () => {
      it("gets a fresh verification code and reports success and latency, never the code", async () => {
        const before = env.sandbox().transactions().length

        const { status, data } = await api.post(
          "/admin/card-service/test-connection",
          {},
          { headers: owner.headers() }
        )

        expect(status).toBe(200)
        expect(data).toEqual({
          provider_id: CARD_SERVICE_PROVIDER_ID,
          service_url: env.sandbox().url,
          checked_at: expect.any(String),
          ok: true,
          latency_ms: expect.any(Number),
        })
        expect(env.sandbox().transactions()).toHaveLength(before)
      })

      it("reports the failure's category and message when the service fails", async () => {
        env
          .sandbox()
          .injectFault({ type: "status", status: 503, path: "/authorize" })

        const { status, data } = await api.post(
          "/admin/card-service/test-connection",
          { provider_id: CARD_SERVICE_PROVIDER_ID },
          { headers: owner.headers() }
        )

        expect(status).toBe(200)
        expect(data.ok).toBe(false)
        expect(data.error).toMatchObject({
          category: "service_error",
          http_status: 503,
        })
        expect(data.error.message).toMatch(/authorize/)
        expect(JSON.stringify(data)).not.toContain("sandbox-secret")
      })

      it("validates the body", async () => {
        const wrongType = await call(
          api.post(
            "/admin/card-service/test-connection",
            { provider_id: 5 },
            { headers: owner.headers() }
          )
        )
        const otherProvider = await call(
          api.post(
            "/admin/card-service/test-connection",
            { provider_id: "pp_system_default" },
            { headers: owner.headers() }
          )
        )
        const unknownField = await call(
          api.post(
            "/admin/card-service/test-connection",
            { code: "x" },
            { headers: owner.headers() }
          )
        )
        const unknownProvider = await call(
          api.post(
            "/admin/card-service/test-connection",
            { provider_id: "pp_card-service_other" },
            { headers: owner.headers() }
          )
        )

        expect(wrongType.status).toBe(400)
        expect(otherProvider.status).toBe(400)
        expect(unknownField.status).toBe(400)
        expect(unknownProvider.status).toBe(404)
      })
    })

    describe("GET /admin/card-service/payments/:payment_id/transactions", () => {
      it("lists approval, capture and refund from the service's records, with what is voidable", async () => {
        const { payment, refundId } = await capturedAndRefunded()

        const { status, data } = await transactionsOf(payment.id)

        expect(status).toBe(200)
        expect(data.payment).toMatchObject({
          id: payment.id,
          currency_code: "eur",
          amount: 30,
          state: "captured",
          medusa: { captured: 30, refunded: 10 },
          service: { captured: 30, refunded: 10 },
          notes: [],
        })
        const rows = data.transactions
        expect(rows.map((r: any) => [r.operation, r.step, r.amount])).toEqual([
          ["authorization", "AUTHORIZATION", 30],
          ["capture", "CAPTURE", 30],
          ["refund", "REFUND", 10],
        ])
        for (const row of rows) {
          expect(row).toMatchObject({
            status: "successful",
            currency_code: "eur",
            card: { brand: "VISA", masked: "•••• 1000" },
            reason: {
              code: "100",
              flag: "SOK",
              meaning: "Successful transaction",
            },
            problem: null,
          })
        }
        const [approval, capture, refund] = rows
        expect(approval).toMatchObject({
          capture_status: null,
          voidable: false,
        })
        expect(capture).toMatchObject({
          capture_status: "PENDING",
          voidable: false,
          not_voidable_reason: expect.stringMatching(
            /refunds that are not voided/
          ),
        })
        expect(refund).toMatchObject({
          transaction_id: refundId,
          capture_status: "PENDING",
          voidable: true,
          original_transaction_id: capture.transaction_id,
        })
      })

      it("says the service has no record when retrieve finds none, and infers no void from it (issue 32)", async () => {
        const { payment } = await capturedAndRefunded()
        env.sandbox().reset()

        const { status, data } = await transactionsOf(payment.id)

        expect(status).toBe(200)
        expect(data.transactions.map((r: any) => [r.operation, r.no_record])).toEqual([
          ["authorization", true],
          ["capture", true],
          ["refund", true],
        ])
        expect(data.payment.service).toBeNull()
        expect(data.payment.notes).toEqual([
          expect.stringMatching(/^The service has no record of 3 of this payment's transactions.*does not mean a capture was voided/),
        ])
        expect(JSON.stringify(data.payment.notes)).not.toMatch(/taken 0|was voided at the service/)
      })

      it("answers 404 for an unknown payment", async () => {
        const response = await call(transactionsOf("pay_does_not_exist"))
        expect(response.status).toBe(404)
      })

      it("answers 503 with the reason when the service cannot be reached", async () => {
        const { payment } = await checkoutToOrder(api, getContainer())
        env.sandbox().injectFault({ type: "status", status: 503, count: 20 })

        const response = await call(transactionsOf(payment.id))

        expect(response.status).toBe(503)
        expect(response.data).toMatchObject({
          type: "card_service_unavailable",
          category: "service_error",
          message: expect.stringMatching(
            /^The card service is unavailable\. card service retrieve/
          ),
        })
      })
    })

    describe("POST /admin/card-service/payments/:payment_id/void", () => {
      const voidOf = (paymentId: string, body: unknown) =>
        call(
          api.post(`/admin/card-service/payments/${paymentId}/void`, body, {
            headers: owner.headers(),
          })
        )

      it("voids a pending refund at the service and books it in payment.data", async () => {
        const { orderId, payment, refundId } = await capturedAndRefunded()

        const response = await voidOf(payment.id, { transaction_id: refundId })

        expect(response.status).toBe(200)
        expect(response.data.voided).toMatchObject({
          transaction_id: refundId,
          type: "REFUND",
          amount: 10,
          currency_code: "eur",
          void_transaction_id: expect.any(String),
          reason_code: "100",
        })
        expect(env.sandbox().transaction(refundId)?.captureStatus).toBe(
          "VOIDED"
        )
        const stored = await paymentOfOrder(getContainer(), orderId)
        expect(stored.data.refunded_amount).toBe(0)
        expect(
          stored.data.transactions.map((t: any) => [
            t.operation,
            t.voided ?? false,
          ])
        ).toEqual([
          ["authorization", false],
          ["capture", false],
          ["refund", true],
          ["void", false],
        ])
        // Medusa keeps its refund: it has no way to undo one.
        expect(stored.refunds.map((r: any) => Number(r.amount))).toEqual([10])

        const { data } = await transactionsOf(payment.id)
        const byOperation = Object.fromEntries(
          data.transactions.map((r: any) => [r.operation, r])
        )
        expect(byOperation.refund).toMatchObject({
          capture_status: "VOIDED",
          voided: true,
          voidable: false,
        })
        expect(byOperation.void).toMatchObject({
          step: "VOID",
          status: "successful",
          amount: 10,
        })
        // With its only refund voided, the capture is voidable again.
        expect(byOperation.capture.voidable).toBe(true)
        expect(data.payment.service).toEqual({ captured: 30, refunded: 0 })
        expect(data.payment.notes).toEqual([
          expect.stringMatching(
            /Medusa counts 10.00 EUR refunded, the service 0.00 EUR: a voided refund/
          ),
        ])

        const again = await voidOf(payment.id, { transaction_id: refundId })
        expect(again.status).toBe(400)
        expect(again.data.message).toMatch(/already voided/)
      })

      it("refuses a refund the service has already transmitted", async () => {
        const { payment, refundId } = await capturedAndRefunded()
        env.sandbox().advanceClock(SETTLEMENT_MS + 1_000)

        const listed = await transactionsOf(payment.id)
        const refundRow = listed.data.transactions.find(
          (r: any) => r.operation === "refund"
        )
        expect(refundRow).toMatchObject({
          capture_status: "TRANSMITTED",
          voidable: false,
          not_voidable_reason: "Already sent to the processor",
        })

        const response = await voidOf(payment.id, { transaction_id: refundId })

        expect(response.status).toBe(400)
        expect(response.data.message).toMatch(
          /TRANSMITTED.*can no longer be voided/
        )
        expect(env.sandbox().transaction(refundId)?.captureStatus).toBe(
          "TRANSMITTED"
        )
        expect(
          env
            .sandbox()
            .transactions()
            .filter(
              (t) => t.step === "VOID" && t.originalTransactionId === refundId
            )
        ).toHaveLength(0)
      })

      it("voids a pending capture and says what Medusa still shows", async () => {
        const { orderId, payment } = await checkoutToOrder(api, getContainer())
        await api.post(
          `/admin/payments/${payment.id}/capture`,
          {},
          { headers: owner.headers() }
        )
        const captured = await paymentOfOrder(getContainer(), orderId)
        const captureId = captured.data.capture.transaction_id

        const response = await voidOf(payment.id, { transaction_id: captureId })

        expect(response.status).toBe(200)
        expect(response.data.voided).toMatchObject({
          type: "CAPTURE",
          amount: 30,
        })
        expect(response.data.medusa_note).toMatch(
          /still shows this payment as captured/
        )
        expect(env.sandbox().transaction(captureId)?.captureStatus).toBe(
          "VOIDED"
        )
        const stored = await paymentOfOrder(getContainer(), orderId)
        expect(stored.captured_at).toBeTruthy()
        expect(
          stored.data.transactions.find((t: any) => t.operation === "capture")
            .voided
        ).toBe(true)

        const { data } = await transactionsOf(payment.id)
        expect(data.payment.medusa.captured).toBe(30)
        expect(data.payment.service).toEqual({ captured: 0, refunded: 0 })
        expect(data.payment.notes).toEqual([
          expect.stringMatching(
            /The service has taken 0.00 EUR net, Medusa counts 30.00 EUR: a capture was voided/
          ),
        ])

        // Money never taken is not refunded at the service: the refund
        // releases the authorization that stands again, and Medusa books it.
        const refund = await call(
          api.post(
            `/admin/payments/${payment.id}/refund`,
            { amount: 30 },
            { headers: owner.headers() }
          )
        )
        expect(refund.status).toBe(200)
        const authorizationId = stored.data.transaction_id
        const atService = env
          .sandbox()
          .transactions()
          .filter(
            (r) =>
              r.originalTransactionId === authorizationId ||
              r.originalTransactionId === captureId
          )
        expect(atService.filter((r) => r.step === "REFUND")).toHaveLength(0)
        expect(
          atService.filter(
            (r) => r.step === "REVERSAL" && r.status === "successful"
          )
        ).toHaveLength(1)
      })

      it("finds out from the record when the void's answer is lost", async () => {
        const { orderId, payment, refundId } = await capturedAndRefunded()
        env.sandbox().injectFault({ type: "destroy", path: "/void" })

        const response = await voidOf(payment.id, { transaction_id: refundId })

        expect(response.status).toBe(200)
        expect(response.data.voided).toMatchObject({
          transaction_id: refundId,
          void_transaction_id: null,
        })
        const stored = await paymentOfOrder(getContainer(), orderId)
        expect(stored.data.refunded_amount).toBe(0)
      })

      it("keeps a Medusa refund sent while the void is on its way, made after the void's answer", async () => {
        const { orderId, payment, refundId } = await capturedAndRefunded()
        // The service voids at once but holds its answer. A refund the owner
        // sends through Medusa meanwhile waits for the payment's lock, which
        // the void holds until its answer is booked: the refund is sent, and
        // booked, after it (before every capture and refund took that lock,
        // it was booked first and the void's write had to keep it).
        env.sandbox().injectFault({ type: "delay", ms: 1500, path: "/void" })

        const voiding = voidOf(payment.id, { transaction_id: refundId })
        const deadline = Date.now() + 10_000
        while (
          env.sandbox().transaction(refundId)?.captureStatus !== "VOIDED"
        ) {
          if (Date.now() > deadline) throw new Error("the void never arrived")
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
        const refund = await api.post(
          `/admin/payments/${payment.id}/refund`,
          { amount: 5 },
          { headers: owner.headers() }
        )
        expect(refund.status).toBe(200)
        const response = await voiding

        expect(response.status).toBe(200)
        const stored = await paymentOfOrder(getContainer(), orderId)
        expect(
          stored.data.transactions.map((t: any) => [
            t.operation,
            t.amount,
            t.voided ?? false,
          ])
        ).toEqual([
          ["authorization", 30, false],
          ["capture", 30, false],
          ["refund", 10, true],
          ["void", 10, false],
          ["refund", 5, false],
        ])
        // Only the second refund still stands.
        expect(stored.data.refunded_amount).toBe(5)
        expect(stored.refunds.map((r: any) => Number(r.amount)).sort()).toEqual(
          [10, 5].sort()
        )
      })

      it("answers 503 and changes nothing when the service is unavailable", async () => {
        const { orderId, payment, refundId } = await capturedAndRefunded()
        env
          .sandbox()
          .injectFault({ type: "status", status: 503, path: "/void" })

        const response = await voidOf(payment.id, { transaction_id: refundId })

        expect(response.status).toBe(503)
        expect(response.data).toMatchObject({
          type: "card_service_unavailable",
          category: "service_error",
          message: expect.stringMatching(/^The card service is unavailable/),
        })
        expect(env.sandbox().transaction(refundId)?.captureStatus).toBe(
          "PENDING"
        )
        const stored = await paymentOfOrder(getContainer(), orderId)
        expect(stored.data.refunded_amount).toBe(10)
      })

      it("validates the body and refuses transactions that are not this payment's payouts", async () => {
        const { payment } = await capturedAndRefunded()

        const missing = await voidOf(payment.id, {})
        const empty = await voidOf(payment.id, { transaction_id: "" })
        const extra = await voidOf(payment.id, {
          transaction_id: "1",
          amount: 10,
        })
        const approval = await voidOf(payment.id, {
          transaction_id: payment.data.transaction_id,
        })
        const foreign = await voidOf(payment.id, {
          transaction_id: "123456789",
        })
        const noPayment = await voidOf("pay_does_not_exist", {
          transaction_id: "123456789",
        })

        for (const response of [missing, empty, extra]) {
          expect(response.status).toBe(400)
          expect(response.data.type).toBe("invalid_data")
        }
        expect(approval.status).toBe(400)
        expect(approval.data.message).toMatch(
          /is not a capture or refund of this payment/
        )
        expect(foreign.status).toBe(400)
        expect(noPayment.status).toBe(404)
      })
    })
  },
})
