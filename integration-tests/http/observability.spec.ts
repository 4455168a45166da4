import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { cardServiceProvider } from "../../src/checkout/provider-lookup"
import { resetReconcileBackoff, runReconcileSweep } from "../../src/jobs/card-service-reconcile"
import { CARD_SERVICE_ACTIVITY_MODULE } from "../../src/modules/card-service-activity"
import type CardServiceActivityModuleService from "../../src/modules/card-service-activity/service"
import { flushActivity } from "../../src/observability/activity-buffer"
import { METRICS, SPANS } from "../../src/observability/telemetry-names"
import { payLikeABrowser } from "../helpers/browser-step"
import { postCallback, useCardServiceSandbox } from "../helpers/card-service-env"
import { adminHeaders, CARDS, cartWithSession, orderOfCart } from "../helpers/checkout-flow"
import { CARD_SERVICE_PROVIDER_ID, seedStore } from "../helpers/seed-store"
import { captureTelemetry, type MetricPoint } from "../helpers/telemetry-capture"

jest.setTimeout(180_000)

const env = useCardServiceSandbox()
// Registered before Medusa boots, as a store's instrumentation.ts does.
const telemetry = captureTelemetry()
afterAll(() => telemetry.stop())

const THREE_DS_FAILS = { number: "4000000000004764", cardType: "VISA" }
const REVIEW = { number: "4000000000004806", cardType: "VISA" }

/**
 * Issue 32: a checkout, a decline, a failed 3DS, an order held for review,
 * a forged callback, a callback answered 503 and the sweep that settles it,
 * seen through an in-memory span exporter and metric reader (what a store's
 * instrumentation.ts registers) and through the admin's "Payments at a
 * glance" figures, which come from the database.
 */
medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    it("emits the documented spans and metrics, with no card data, code, secret or personal data in any attribute, and the figures count the same payments", async () => {
      const sandbox = env.sandbox()
      const store = await seedStore(getContainer())
      const forbidden = new Set<string>([
        sandbox.credentials.clientSecret,
        sandbox.credentials.clientCode,
        "shopper@example.com",
        "Lovelace",
        "Unter den Linden",
        "+4930123456",
      ])
      const pay = async (sessionId: string, card: { number: string; cardType: string }) => {
        const paid = await payLikeABrowser(api, store.publishableKey, sessionId, card)
        forbidden.add(card.number)
        forbidden.add(paid.fields.authorization)
        forbidden.add(paid.fields.merchantReferenceCode)
        const transactionId = new URL(paid.serviceLocation as string).searchParams.get("transactionId") as string
        forbidden.add(transactionId)
        // The service's callback has been answered too.
        await sandbox.waitForCallbacks(
          (deliveries) => deliveries.some((d) => d.transactionId === transactionId && d.status !== undefined),
          20_000
        )
        return { ...paid, transactionId }
      }

      // A checkout to an order.
      const approved = await cartWithSession(api, getContainer(), store)
      forbidden.add(approved.session.id)
      const approvedPaid = await pay(approved.session.id, CARDS.approved)
      expect(approvedPaid.storefrontLocation?.searchParams.get("status")).toBe("paid")
      // A decline, then a failed 3DS on the same session.
      const declined = await cartWithSession(api, getContainer(), store)
      forbidden.add(declined.session.id)
      expect((await pay(declined.session.id, CARDS.declined)).storefrontLocation?.searchParams.get("status")).toBe("failed")
      expect((await pay(declined.session.id, THREE_DS_FAILS)).storefrontLocation?.searchParams.get("status")).toBe("failed")
      // A payment the decision manager holds for review (reason 480).
      const review = await cartWithSession(api, getContainer(), store)
      forbidden.add(review.session.id)
      await pay(review.session.id, REVIEW)

      // A forged callback (a transaction the service does not know) and a body that is no result.
      const forged = await callback(declined.session.id, { decision: "ACCEPT", reasonCode: "100", transactionId: "forged-0001", originalTransactionId: "" })
      expect(forged).toBe(200)
      expect(await callback(declined.session.id, { hello: "world" })).toBe(400)

      // A callback answered 503 (retrieve down), settled by the sweep.
      const lost = await cartWithSession(api, getContainer(), store)
      forbidden.add(lost.session.id)
      sandbox.setCallbackKnobs({ retries: 0 })
      sandbox.injectFault({ type: "status", status: 503, count: 20, path: "/payment/retrieve" })
      const lostPaid = await payLikeABrowser(api, store.publishableKey, lost.session.id, CARDS.approved, { followReturn: false })
      forbidden.add(lostPaid.fields.authorization)
      await sandbox.waitForCallbacks((d) => d.some((c) => c.url.includes(lost.session.id) && c.status === 503), 20_000)
      sandbox.clearFaults()
      sandbox.resetKnobs()
      resetReconcileBackoff()
      const swept = await runReconcileSweep(getContainer())
      // It also answers the declined session's noted hint: its payment's decline. The forged
      // callback left no hint (issue 39: it names no reference of the session's, and the service
      // knew no such transaction), so nothing is listed for it. Oldest session first: the declined
      // one was made before the lost one.
      expect(swept?.actions).toEqual([
        expect.objectContaining({ session_id: declined.session.id, status: "failed" }),
        expect.objectContaining({ session_id: lost.session.id, status: "order_created" }),
      ])
      expect(await orderOfCart(getContainer(), lost.cart.id)).toMatch(/^order_/)

      const provider = cardServiceProvider(getContainer(), CARD_SERVICE_PROVIDER_ID)
      forbidden.add(await provider.client.getVerificationCode())
      await flushActivity()
      // Another instance that read the same result writes nothing: it is counted once, in the database.
      const activity = getContainer().resolve<CardServiceActivityModuleService>(CARD_SERVICE_ACTIVITY_MODULE)
      const again = { kind: "result" as const, name: "approved", reason_code: "100", flag: "SOK" }
      expect(await activity.insertActivity([{ ...again, transaction_id: approvedPaid.transactionId }])).toEqual([])

      // Spans: the documented names, and only the documented attributes.
      const spans = telemetry.spans().filter((s) => s.instrumentationScope.name === "medusa-payment-card-service")
      const documented = new Map<string, readonly string[]>([
        [SPANS.settle.name, SPANS.settle.attributes],
        [SPANS.sweep.name, SPANS.sweep.attributes],
        ...["authorize", "retrieve", "capture", "refund", "reverse", "void"].map(
          (op) => [`card_service.${op}`, SPANS.call.attributes] as [string, readonly string[]]
        ),
      ])
      for (const span of spans) {
        expect(documented.has(span.name)).toBe(true)
        for (const key of Object.keys(span.attributes)) {
          expect(documented.get(span.name)).toContain(key)
        }
      }
      const named = (name: string) => spans.filter((s) => s.name === name)
      const settles = named("card_service.settle")
      expect(new Set(settles.map((s) => s.attributes["card_service.settle.source"]))).toEqual(
        new Set(["callback", "return", "sweep"])
      )
      // Each ended with an outcome, or failed with the error's type (the 503'd callback).
      for (const settle of settles) {
        expect([typeof settle.attributes["card_service.settle.outcome"], settle.attributes["error.type"]]).toContainEqual(
          settle.attributes["error.type"] ? "service_error" : "string"
        )
      }
      expect(settles.filter((s) => s.attributes["error.type"])).toHaveLength(1)
      expect(settles.map((s) => s.attributes["card_service.failure"])).toEqual(expect.arrayContaining(["203", "476"]))
      const retrieves = named("card_service.retrieve")
      expect(retrieves.map((s) => s.attributes["card_service.reason_code"])).toEqual(
        expect.arrayContaining(["100", "203", "476", "480"])
      )
      const declinedRead = retrieves.find((s) => s.attributes["card_service.reason_code"] === "203")!
      expect(declinedRead.attributes).toMatchObject({
        "card_service.operation": "retrieve",
        "http.response.status_code": 200,
        "card_service.reason_flag": "DCARDREFUSED",
        "card_service.attempts": 1,
      })
      // A service call made while settling is the settlement's child.
      const settleIds = new Set(settles.map((s) => s.spanContext().spanId))
      expect(retrieves.some((s) => settleIds.has(s.parentSpanContext?.spanId ?? ""))).toBe(true)
      const forgedReads = retrieves.filter((s) => s.attributes["http.response.status_code"] === 404)
      // Read once, by the callback: nothing was noted, so the sweep does not read it again (issue 39).
      expect(forgedReads.map((s) => s.attributes["error.type"])).toEqual(["invalid_request"])
      const [sweepSpan] = named("card_service.sweep")
      expect(sweepSpan.attributes).toMatchObject({ "card_service.sweep.actions": 2, "card_service.sweep.service_down": false })
      expect(
        settles.some(
          (s) => s.attributes["card_service.settle.source"] === "sweep" && s.parentSpanContext?.spanId === sweepSpan.spanContext().spanId
        )
      ).toBe(true)
      expect(named("card_service.authorize").length).toBeGreaterThan(0)

      // Metrics.
      const points = await telemetry.points()
      const sum = (name: string, attributes: Record<string, unknown> = {}) =>
        points
          .filter((p) => p.name === name && Object.entries(attributes).every(([k, v]) => p.attributes[k] === v))
          .reduce((total, p) => total + (p.count ?? p.value), 0)
      expect(sum(METRICS.paymentResults.name, { "card_service.result": "approved", "card_service.reason_code": "100", "card_service.reason_flag": "SOK" })).toBe(2)
      expect(sum(METRICS.paymentResults.name, { "card_service.result": "declined", "card_service.reason_code": "203" })).toBe(1)
      expect(sum(METRICS.paymentResults.name, { "card_service.result": "3ds_failed", "card_service.reason_code": "476" })).toBe(1)
      expect(sum(METRICS.paymentResults.name, { "card_service.result": "review", "card_service.reason_code": "480" })).toBe(1)
      expect(sum(METRICS.paymentResults.name)).toBe(5)
      expect(sum(METRICS.callDuration.name, { "card_service.operation": "retrieve" })).toBeGreaterThan(5)
      expect(sum(METRICS.callDuration.name, { "card_service.operation": "retrieve", "card_service.call.outcome": "invalid_request" })).toBe(1)
      expect(sum(METRICS.callbacks.name, { "card_service.callback.outcome": "ignored" })).toBe(1)
      expect(sum(METRICS.callbacks.name, { "card_service.callback.outcome": "refused" })).toBe(1)
      expect(sum(METRICS.callbacks.name, { "card_service.callback.outcome": "unavailable" })).toBe(1)
      expect(sum(METRICS.callbacks.name, { "card_service.callback.outcome": "settled" })).toBeGreaterThanOrEqual(4)
      expect(sum(METRICS.sweepActions.name, { "card_service.sweep.action": "order_created" })).toBe(1)
      expect(sum(METRICS.sweepActions.name, { "card_service.sweep.action": "failed" })).toBe(1)
      for (const point of points) {
        const spec = Object.values(METRICS).find((m) => m.name === point.name)!
        for (const key of Object.keys(point.attributes)) expect(spec.attributes).toContain(key)
      }

      // No attribute anywhere holds what must stay out of telemetry.
      const texts = [
        ...spans.flatMap((s) => [s.name, ...Object.entries(s.attributes).flat().map(String)]),
        ...points.flatMap((p: MetricPoint) => Object.entries(p.attributes).flat().map(String)),
      ]
      expect(texts.length).toBeGreaterThan(50)
      for (const value of forbidden) {
        expect(value.length).toBeGreaterThan(3)
        expect(texts.filter((text) => text.includes(value))).toEqual([])
      }
      expect(texts.filter((text) => /payses_|\b\d{13,19}\b/.test(text))).toEqual([])

      // The admin's figures, from the database: the same payments.
      const { data } = await api.get("/admin/card-service/figures", { headers: await adminHeaders(getContainer()) })
      expect(data.recording).toBe(true)
      const day = data.windows.find((w: any) => w.window === "24h")
      expect(day).toMatchObject({
        started: 4,
        approved: 2,
        declined: 1,
        three_ds_failed: 1,
        errors: 0,
        decided: 4,
        on_hold: 1,
        review_expired: 0,
        top_declines: [{ reason_code: "203", reason: "General card decline", count: 1 }],
        abandoned: 0,
        approval_rate: 2 / 4,
        callbacks_refused: 1,
        callbacks_ignored: 1,
        callbacks_unavailable: 1,
        sweep_actions: 2,
        sweep_by_status: [
          { status: "failed", count: 1 },
          { status: "order_created", count: 1 },
        ],
      })
      expect(day.latency.map((l: any) => l.operation)).toEqual(expect.arrayContaining(["authorize", "retrieve"]))
      const retrieveLatency = day.latency.find((l: any) => l.operation === "retrieve")
      expect(retrieveLatency.calls).toBe(sum(METRICS.callDuration.name, { "card_service.operation": "retrieve" }))
      expect(retrieveLatency.p95_ms).toBeGreaterThanOrEqual(retrieveLatency.p50_ms)
      expect(data.windows.find((w: any) => w.window === "7d")).toMatchObject({ started: 4, approved: 2, declined: 1 })
    })

    it("counts a session abandoned once the grace period has passed with no result, not before (issue 39)", async () => {
      const store = await seedStore(getContainer())
      const figures = async () =>
        (await api.get("/admin/card-service/figures", { headers: await adminHeaders(getContainer()) })).data.windows.find(
          (w: any) => w.window === "24h"
        )
      const before = await figures()
      const grace = cardServiceProvider(getContainer(), CARD_SERVICE_PROVIDER_ID).options.reconcileGraceMs
      const pg = getContainer().resolve("__pg_connection__")
      // Two carts left at the payment step: one just inside the grace
      // period, one just past it (a minute either way, well within the day).
      for (const ageMs of [grace - 60_000, grace + 60_000]) {
        const { session } = await cartWithSession(api, getContainer(), store)
        await pg.raw(`update "payment_session" set "created_at" = ? where "id" = ?`, [
          new Date(Date.now() - ageMs).toISOString(),
          session.id,
        ])
      }
      const after = await figures()
      expect(after.started - before.started).toBe(2)
      expect(after.abandoned - before.abandoned).toBe(1)
    })

    const callback = (sessionId: string, body: unknown) => postCallback(env.backendUrl(), sessionId, body)
  },
})
