import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { randomBytes } from "node:crypto"
import { request } from "undici"
import { SESSION_BURST, SESSION_REFILL_MS } from "../../src/checkout/call-budget"
import { FORM_CODE_REUSE_MS } from "../../src/checkout/form-codes"
import { sessionLogTag } from "../../src/lib/log-redaction"
import { flushActivity } from "../../src/observability/activity-buffer"
import { payLikeABrowser } from "../helpers/browser-step"
import { useCardServiceSandbox } from "../helpers/card-service-env"
import {
  adminHeaders,
  CARDS,
  cartWithSession,
  checkoutToOrder,
  orderOfCart,
  paymentOfOrder,
} from "../helpers/checkout-flow"

jest.setTimeout(180_000)

const env = useCardServiceSandbox({ settlementMs: 60_000 })

/** Calls the sandbox received, summed over every endpoint a merchant calls (not the browser's). */
function serviceCalls(counts: Record<string, number>): number {
  return Object.entries(counts)
    .filter(([endpoint]) => !endpoint.includes("/order/start") && !endpoint.includes("/3ds"))
    .reduce((sum, [, n]) => sum + n, 0)
}

/** A well-shaped session id Medusa never made. */
const madeUpSessionId = () => `payses_01${randomBytes(12).toString("hex").toUpperCase()}`
const madeUpTransactionId = () => `${Date.now()}${randomBytes(8).readBigUInt64BE()}`

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    const sandbox = () => env.sandbox()
    const url = (path: string) => `${env.backendUrl()}${path}`
    const callback = (sessionId: string, body: Record<string, unknown>) =>
      request(url(`/card-service/callback/${sessionId}/`), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.statusCode, body: await r.body.text() }))
    const get = (path: string) =>
      request(url(path)).then(async (r) => ({ status: r.statusCode, body: await r.body.text() }))
    const result = (transactionId: string) => ({
      decision: "ACCEPT",
      reasonCode: "100",
      transactionId,
      originalTransactionId: "",
    })

    beforeEach(() => {
      sandbox().resetKnobs()
      sandbox().reset()
    })

    describe("bounded, validated input", () => {
      it("answers a 60 kB transactionId in a callback with 400 and sends nothing to the service", async () => {
        const { session } = await cartWithSession(api, getContainer())

        const answer = await callback(session.id, result("1".repeat(60_000)))

        expect(answer.status).toBe(400)
        expect(JSON.parse(answer.body).message).toMatch(/transactionId/)
        expect(serviceCalls(sandbox().requestCounts())).toBe(0)
      })

      it("answers identifiers with characters no id has with 400, on every route", async () => {
        const { session, store } = await cartWithSession(api, getContainer())
        const key = { "x-publishable-api-key": store.publishableKey }

        const answers = await Promise.all([
          callback(session.id, result("../../authorize")),
          callback(session.id, result("123 456")),
          callback(session.id, { ...result("123"), merchantReferenceCode: "<script>" }),
          callback(session.id, { ...result("123"), cavv: "x".repeat(5000) }),
          get(`/card-service/return/${session.id}/?transactionId=${encodeURIComponent("1/../2")}`),
          get(`/card-service/return/${session.id}/?transactionId=1&transactionId=2`),
          get(`/card-service/pay/payses_${"A".repeat(200)}`),
          get("/card-service/pay/cart_123"),
          request(url("/store/card-service/sessions/payses_x%20y/form"), { headers: key }).then(async (r) => ({
            status: r.statusCode,
            body: await r.body.text(),
          })),
        ])

        expect(answers.map((a) => a.status)).toEqual(Array(answers.length).fill(400))
        expect(serviceCalls(sandbox().requestCounts())).toBe(0)
      })

      it("answers a malformed path escape with 400, not a server error", async () => {
        const answers = await Promise.all([
          callback("payses_%E0%A4%A", result("123")),
          get("/card-service/return/payses_%E0%A4%A/?transactionId=1"),
          get("/card-service/pay/%E0%A4%A"),
        ])

        expect(answers.map((a) => a.status)).toEqual([400, 400, 400])
        expect(answers[0].body).toMatch(/percent-encoded/)
      })
    })

    describe("outbound amplification", () => {
      it("500 anonymous requests cost the service a bounded number of calls", async () => {
        const { session } = await cartWithSession(api, getContainer())
        const started = Date.now()
        const views = Array.from({ length: 100 }, () => get(`/card-service/pay/${session.id}`))
        const fakeCallbacks = Array.from({ length: 200 }, () =>
          callback(madeUpSessionId(), result(madeUpTransactionId()))
        )
        const fakeReturns = Array.from({ length: 170 }, () =>
          get(`/card-service/return/${madeUpSessionId()}/?transactionId=${madeUpTransactionId()}`)
        )
        // Made-up results for the real session: each would be a retrieve.
        const fakeHints = Array.from({ length: 30 }, () => callback(session.id, result(madeUpTransactionId())))

        const answers = await Promise.all([...views, ...fakeCallbacks, ...fakeReturns, ...fakeHints])
        const elapsed = Date.now() - started

        const counts = sandbox().requestCounts()
        // One form code per reuse window with the spare minted behind it
        // (form-codes.ts), and the server's own code once.
        const codes = 2 * Math.ceil(elapsed / FORM_CODE_REUSE_MS) + 1
        // The session's burst, plus what it earns back while the requests run.
        const retrieves = SESSION_BURST + Math.ceil(elapsed / SESSION_REFILL_MS)
        console.log(`500 anonymous requests in ${elapsed} ms: service calls ${JSON.stringify(counts)}`)
        expect(counts["GET /authorize"] ?? 0).toBeLessThanOrEqual(codes)
        expect(counts["GET /payment/retrieve"] ?? 0).toBeLessThanOrEqual(retrieves)
        expect(serviceCalls(counts)).toBeLessThanOrEqual(codes + retrieves)
        expect(answers.slice(0, 100).every((a) => a.status === 200)).toBe(true)
        expect(answers.slice(100, 470).every((a) => a.status === 404)).toBe(true)
        // Beyond the burst, the real session's callbacks are asked to come again.
        expect(answers.slice(470).map((a) => a.status)).toContain(503)
        // The views share one form code; each has its own reference.
        const forms = answers.slice(0, 3).map((a) => ({
          code: /name="authorization" value="([^"]+)"/.exec(a.body)?.[1],
          reference: /name="merchantReferenceCode" value="([^"]+)"/.exec(a.body)?.[1],
        }))
        expect(forms[0].code).toBeTruthy()
        expect(new Set(forms.map((f) => f.code)).size).toBe(1)
        expect(new Set(forms.map((f) => f.reference)).size).toBe(3)
      })

      it("a callback for a session Medusa does not have costs the service nothing", async () => {
        const paid = sandbox().seedAuthorization({ amount: "30" })

        const answer = await callback(madeUpSessionId(), result(paid.transactionId))

        expect(answer.status).toBe(404)
        expect(serviceCalls(sandbox().requestCounts())).toBe(0)
      })
    })

    describe("what anonymous traffic leaves behind", () => {
      const eventRows = async (): Promise<number> => {
        await flushActivity()
        const { rows } = await getContainer()
          .resolve("__pg_connection__")
          .raw(`select count(*)::int as "n" from "card_service_event"`)
        return rows[0].n
      }
      const dayFigures = async () => {
        const { data } = await api.get("/admin/card-service/figures", { headers: await adminHeaders(getContainer()) })
        return data.windows.find((w: any) => w.window === "24h")
      }

      it("200 malformed and 50 forged callbacks add a handful of event rows, counted in full, and no log line names the session", async () => {
        const { session } = await cartWithSession(api, getContainer())
        const logger = getContainer().resolve("logger") as Record<string, any>
        const spies = ["info", "warn", "error", "debug", "log"]
          .filter((level) => typeof logger[level] === "function")
          .map((level) => jest.spyOn(logger, level))
        const before = { rows: await eventRows(), figures: await dayFigures() }

        const malformed = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            callback(i % 2 ? session.id : madeUpSessionId(), { decision: "ACCEPT", note: i })
          )
        )
        const forged = await Promise.all(
          Array.from({ length: 50 }, () => callback(session.id, result(madeUpTransactionId())))
        )
        const rowsAdded = (await eventRows()) - before.rows
        const after = await dayFigures()
        const logged = spies.flatMap((spy) => spy.mock.calls.map((args) => args.map(String).join(" ")))
        spies.forEach((spy) => spy.mockRestore())

        const ignored = logged.filter((line) => line.includes("ignored a callback")).length
        const answered = (status: number) => forged.filter((a) => a.status === status).length
        console.log(
          `250 anonymous callbacks: ${rowsAdded} event rows; forged ones answered 200 ${answered(200)} (ignored ${ignored}), 404 ${answered(404)}, 503 ${answered(503)}`
        )
        expect(malformed.every((a) => a.status === 400)).toBe(true)
        // One row per callback answer given (five kinds) and a sample of the retrieves (activity-buffer.ts).
        expect(rowsAdded).toBeLessThanOrEqual(10)
        // The figures count every callback, as they did with a row each.
        expect(after.callbacks_refused - before.figures.callbacks_refused).toBe(200 + answered(404))
        expect(after.callbacks_ignored - before.figures.callbacks_ignored).toBe(ignored)
        expect(after.callbacks_unavailable - before.figures.callbacks_unavailable).toBe(answered(503))
        // And every retrieve the forged ones caused, though only a sample of them is a row.
        const retrieves = (figures: any) => figures.latency.find((l: any) => l.operation === "retrieve")?.calls ?? 0
        expect(retrieves(after) - retrieves(before.figures)).toBe(sandbox().requestCounts()["GET /payment/retrieve"])
        // The lines about the session name it as the admin can match it, not as the pay page opens.
        expect(logged.filter((line) => line.includes(session.id))).toEqual([])
        expect(logged.filter((line) => line.includes(sessionLogTag(session.id))).length).toBe(ignored)
      })
    })

    describe.each(["permissive", "scoped"] as const)("a %s card service", (kind) => {
      beforeEach(() => {
        sandbox().codeScoping = kind
      })
      afterAll(() => {
        sandbox().codeScoping = "permissive"
      })

      it("checkout, capture, refund and void never use a form's code as the server's credential", async () => {
        const admin = await adminHeaders(getContainer())
        const { orderId, payment } = await checkoutToOrder(api, getContainer())
        await api.post(`/admin/payments/${payment.id}/capture`, {}, { headers: admin })
        await api.post(`/admin/payments/${payment.id}/refund`, { amount: 10 }, { headers: admin })
        const refunded = await paymentOfOrder(getContainer(), orderId)
        const refundId = refunded.data.transactions.find((t: any) => t.operation === "refund").transaction_id
        const voided = await api.post(
          `/admin/card-service/payments/${payment.id}/void`,
          { transaction_id: refundId },
          { headers: admin }
        )
        const listed = await api.get(`/admin/card-service/payments/${payment.id}/transactions`, {
          headers: admin,
        })

        expect(voided.status).toBe(200)
        expect(sandbox().transaction(refundId)?.captureStatus).toBe("VOIDED")
        expect(listed.data.transactions.map((t: any) => t.operation)).toEqual(
          expect.arrayContaining(["authorization", "capture", "refund", "void"])
        )
        expect(sandbox().formCodeUses()).toEqual([])
        // No refused credential and no replay either: each follow-on was one call.
        expect(sandbox().requestCounts()["POST /capture"]).toBe(1)
        expect(sandbox().requestCounts()["POST /refund"]).toBe(1)
        expect(sandbox().requestCounts()["POST /void"]).toBe(1)
      })

      it(`a form's code ${kind === "scoped" ? "cannot" : "can"} retrieve at the service`, async () => {
        const { store, session } = await cartWithSession(api, getContainer())
        const paid = await payLikeABrowser(api, store.publishableKey, session.id, CARDS.approved)
        const transactionId = new URL(paid.serviceLocation as string).searchParams.get("transactionId")

        // What a shopper read from the form and posted.
        const asShopper = await request(
          `${sandbox().url}/payment/retrieve/${sandbox().credentials.merchantId}/${transactionId}`,
          {
            headers: {
              "content-type": "application/json",
              verifyId: paid.fields.verifyId,
              Authorization: paid.fields.authorization,
            },
          }
        )
        await asShopper.body.dump()

        expect(asShopper.statusCode).toBe(kind === "scoped" ? 401 : 200)
      })
    })

    describe("cart completion", () => {
      it("refuses sealed terms that Medusa's own record of the session no longer has", async () => {
        const { store, storefront, cart, session } = await cartWithSession(api, getContainer())
        sandbox().setCallbackKnobs({ drop: true })
        const paid = await payLikeABrowser(api, store.publishableKey, session.id, CARDS.approved, {
          followReturn: false,
        })
        const transactionId = new URL(paid.serviceLocation as string).searchParams.get("transactionId")
        const payment = getContainer().resolve("payment")
        const stored = await payment.retrievePaymentSession(session.id)
        await payment.updatePaymentSession({
          id: session.id,
          amount: stored.amount,
          currency_code: stored.currency_code,
          data: { ...stored.data, transaction_id: transactionId },
        })
        // Medusa's record moves while the sealed data keeps the old terms.
        await (payment as any).paymentSessionService_.update({ id: session.id, amount: 25 })

        const completed = await storefront
          .post(`/store/carts/${cart.id}/complete`)
          .catch((error: any) => error.response?.data)

        expect(completed?.type).not.toBe("order")
        expect(await orderOfCart(getContainer(), cart.id)).toBeNull()
        const after = await payment.retrievePaymentSession(session.id)
        expect((after.data as any).failure?.code).toBe("tampered")
      })
    })
  },
})
