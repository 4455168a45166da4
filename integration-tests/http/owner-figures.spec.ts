import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { resetReconcileBackoff } from "../../src/jobs/card-service-reconcile"
import { flushActivity } from "../../src/observability/activity-buffer"
import { TEST_CARDS } from "../../src/sandbox"
import { payLikeABrowser } from "../helpers/browser-step"
import { postCallback, useCardServiceSandbox } from "../helpers/card-service-env"
import { adminHeaders, CARDS, cartWithSession, orderOfCart } from "../helpers/checkout-flow"
import { seedStore, type SeededStore } from "../helpers/seed-store"
import { captureTelemetry } from "../helpers/telemetry-capture"

jest.setTimeout(300_000)

const REVIEW_TIMEOUT_MS = 60 * 60 * 1000
process.env.CARD_SERVICE_REVIEW_TIMEOUT_MS = String(REVIEW_TIMEOUT_MS)
// A checkout counts as abandoned, and its attempt as of unknown outcome, a second after it.
const GRACE_MS = 1000
process.env.CARD_SERVICE_RECONCILE_GRACE_MS = String(GRACE_MS)

const env = useCardServiceSandbox()
// Registered before Medusa boots, as a store's instrumentation.ts does: the
// metrics and spans must name what the figures name.
const telemetry = captureTelemetry()
afterAll(() => telemetry.stop())
const THREE_DS_FAILS = { number: "4000000000004764", cardType: "VISA" }
const reviewCard = (verdict: "approve" | "reject") => {
  const card = TEST_CARDS.find((c) => c.reviewVerdict === verdict)!
  return { number: card.number, cardType: card.cardType }
}

/**
 * Issue 41: "Payments at a glance" as a store owner reads it, after every
 * kind of payment the owner's figures must count: approvals, a decline, a
 * failed 3-D Secure, reviews approved and rejected (on their callbacks, and
 * with the callback lost, by the sweep), a review still on hold, one that
 * expired, a payment whose callback was answered 503, an abandoned session,
 * and forged callbacks (one while the service could not check it, on a
 * session the shopper then paid). Every figure of GET
 * /admin/card-service/figures is checked against what the test did, and the
 * sweep's actions against Needs attention's words.
 */
medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    let store: SeededStore
    beforeAll(async () => {
      store = await seedStore(getContainer(), { stocked: 100 })
    })

    const sandbox = () => env.sandbox()
    const transactionOf = (paid: { serviceLocation: string | null }) =>
      new URL(paid.serviceLocation as string).searchParams.get("transactionId") as string
    const pay = async (card: { number: string; cardType: string }, options: { followReturn?: boolean } = {}) => {
      const { cart, session } = await cartWithSession(api, getContainer(), store)
      const paid = await payLikeABrowser(api, store.publishableKey, session.id, card, options)
      return { cart, session, paid, transactionId: transactionOf(paid) }
    }
    const referenceOf = (transactionId: string) => sandbox().transaction(transactionId)!.merchantReferenceCode
    const callback = (sessionId: string, body: unknown) => postCallback(env.backendUrl(), sessionId, body)
    /** "Sweep now" in Needs attention, as the store owner presses it. */
    const sweepNow = async () => {
      resetReconcileBackoff()
      const { data } = await api.post("/admin/card-service/reconciliation", {}, { headers: await adminHeaders(getContainer()) })
      expect(data.ran).toBe(true)
      return data as { actions: { session_id?: string; status: string }[] }
    }

    it("counts every payment once by what it finally was, and names the sweep's actions as Needs attention does", async () => {
      // Three approvals, a decline, a failed 3-D Secure.
      for (let i = 0; i < 3; i++) {
        expect((await pay(CARDS.approved)).paid.storefrontLocation?.searchParams.get("status")).toBe("paid")
      }
      expect((await pay(CARDS.declined)).paid.storefrontLocation?.searchParams.get("status")).toBe("failed")
      expect((await pay(THREE_DS_FAILS)).paid.storefrontLocation?.searchParams.get("status")).toBe("failed")

      // Reviews: approved and rejected on their callbacks; approved and
      // rejected with the verdict's callback lost (the sweep finds them);
      // one still on hold; one that gets no verdict in time.
      const approvedOnCallback = await pay(reviewCard("approve"))
      await sandbox().concludeReview(approvedOnCallback.transactionId, "approve")
      const rejectedOnCallback = await pay(reviewCard("reject"))
      await sandbox().concludeReview(rejectedOnCallback.transactionId)
      const approvedLost = await pay(reviewCard("approve"))
      sandbox().setCallbackKnobs({ drop: true }, referenceOf(approvedLost.transactionId))
      await sandbox().concludeReview(approvedLost.transactionId, "approve")
      const rejectedLost = await pay(reviewCard("reject"))
      sandbox().setCallbackKnobs({ drop: true }, referenceOf(rejectedLost.transactionId))
      await sandbox().concludeReview(rejectedLost.transactionId)
      const stillOnHold = await pay(reviewCard("approve"))
      const expiring = await pay(reviewCard("approve"))
      for (const held of [approvedOnCallback, rejectedOnCallback, approvedLost, rejectedLost, stillOnHold, expiring]) {
        expect(held.paid.storefrontLocation?.searchParams.get("payment")).toBe("under_review")
      }

      // An approval whose callback is answered 503 (the service could not be asked); the sweep settles it.
      sandbox().setCallbackKnobs({ retries: 0 })
      sandbox().injectFault({ type: "status", status: 503, count: 20, path: "/payment/retrieve" })
      const unavailable = await pay(CARDS.approved, { followReturn: false })
      await sandbox().waitForCallbacks((d) => d.some((c) => c.transactionId === unavailable.transactionId && c.status === 503), 20_000)
      // A forged callback naming a real reference of a session whose shopper
      // has not paid yet, while the service cannot check it: 503, noted for the sweep.
      const forgedOn = await cartWithSession(api, getContainer(), store)
      const { data: form } = await api.get(`/store/card-service/sessions/${forgedOn.session.id}/form`, {
        headers: { "x-publishable-api-key": store.publishableKey },
      })
      const forgedReference = String(form.form.fields.merchantReferenceCode)
      const forged = { decision: "ACCEPT", reasonCode: "100", transactionId: "7999999999999999999999", merchantReferenceCode: forgedReference }
      expect(await callback(forgedOn.session.id, forged)).toBe(503)
      sandbox().clearFaults()
      sandbox().resetKnobs()
      // Forged callbacks the service can check: one naming a transaction it
      // does not know (ignored), a body that is no result (400), a session
      // that does not exist (404).
      expect(await callback(forgedOn.session.id, { ...forged, transactionId: "7999999999999999999998" })).toBe(200)
      expect(await callback(forgedOn.session.id, { hello: "world" })).toBe(400)
      expect(await callback("payses_01KZZZZZZZZZZZZZZZZZZZZZZZ", forged)).toBe(404)

      // An abandoned checkout: the pay page opened, no result, the grace period over.
      const abandoned = await cartWithSession(api, getContainer(), store)
      await api.get(`/store/card-service/sessions/${abandoned.session.id}/form`, {
        headers: { "x-publishable-api-key": store.publishableKey },
      })
      // The review with no verdict: its order placed longer ago than the review time allows.
      const pg = getContainer().resolve("__pg_connection__")
      await pg.raw(`update "order" set "created_at" = ? where "id" = ?`, [
        new Date(Date.now() - REVIEW_TIMEOUT_MS - 60_000).toISOString(),
        await orderOfCart(getContainer(), expiring.cart.id),
      ])
      await new Promise((resolve) => setTimeout(resolve, GRACE_MS + 100))

      // One sweep: the lost verdicts, the 503'd approval, the forged hint (no
      // payment: dropped, nothing noted), the abandoned attempt, the expired
      // review. The review still on hold is within its time.
      const { actions } = await sweepNow()
      expect(actions.filter((a) => a.session_id === forgedOn.session.id)).toEqual([])
      expect(actions.filter((a) => a.session_id === stillOnHold.session.id)).toEqual([])

      // The shopper whose session a forger named pays now.
      const forgedPaid = await payLikeABrowser(api, store.publishableKey, forgedOn.session.id, CARDS.approved)
      expect(forgedPaid.storefrontLocation?.searchParams.get("status")).toBe("paid")
      expect(await orderOfCart(getContainer(), unavailable.cart.id)).toMatch(/^order_/)
      await flushActivity()

      const headers = await adminHeaders(getContainer())
      const { data } = await api.get("/admin/card-service/figures", { headers })
      const [day, week] = ["24h", "7d"].map((window) => data.windows.find((w: any) => w.window === window))
      // What the test did: 14 sessions started. Approved: 3, the two reviews
      // approved, the 503'd one and the forged-on session its shopper paid.
      // Declined: the 203 and the two rejected reviews (481). One on hold,
      // one expired, none counted twice: 7 + 3 + 1 + 0 + 1 + 1 = 13 results.
      const expected = {
        started: 14,
        approved: 7,
        declined: 3,
        three_ds_failed: 1,
        errors: 0,
        decided: 11,
        on_hold: 1,
        review_expired: 1,
        top_declines: [
          { reason_code: "481", reason: "Order rejected by the decision manager", count: 2 },
          { reason_code: "203", reason: "General card decline", count: 1 },
        ],
        abandoned: 1,
        approval_rate: 7 / 11,
        // 400 (no result) and 404 (no such session).
        callbacks_refused: 2,
        // The transaction the service did not know.
        callbacks_ignored: 1,
        // The 503'd approval's callback and the forged one while the service could not check it.
        callbacks_unavailable: 2,
        // The approval and the rejection whose verdict callbacks were lost, the expired review;
        // the 503'd approval; the abandoned attempt.
        sweep_actions: 5,
        sweep_by_status: [
          { status: "review_closed", count: 3 },
          { status: "order_created", count: 1 },
          { status: "outcome_unknown", count: 1 },
        ],
      }
      expect(day).toMatchObject(expected)
      expect(week).toMatchObject(expected)
      expect(day.latency.map((l: any) => l.operation)).toEqual(expect.arrayContaining(["authorize", "retrieve"]))

      // The metrics and spans say the same: a verdict is a payment result
      // (each review counted as review when held, then by its verdict); the
      // sweep's approval of a review is review_closed, as is the span's outcome.
      const points = await telemetry.points()
      const sum = (name: string, attributes: Record<string, unknown> = {}) =>
        points
          .filter((p) => p.name === name && Object.entries(attributes).every(([k, v]) => p.attributes[k] === v))
          .reduce((total, p) => total + (p.count ?? p.value), 0)
      const results = (result: string, reason_code?: string) =>
        sum("card_service.payment.results", { "card_service.result": result, ...(reason_code ? { "card_service.reason_code": reason_code } : {}) })
      expect(results("approved")).toBe(7)
      expect(results("declined", "481")).toBe(2)
      expect(results("declined", "203")).toBe(1)
      expect(results("3ds_failed")).toBe(1)
      expect(results("review")).toBe(6)
      // Decided: the sum without review, as docs/observability.md says.
      expect(sum("card_service.payment.results") - results("review")).toBe(expected.decided)
      for (const { status, count } of expected.sweep_by_status) {
        expect(sum("card_service.sweep.actions", { "card_service.sweep.action": status })).toBe(count)
      }
      for (const outcome of ["callbacks_refused", "callbacks_ignored", "callbacks_unavailable"] as const) {
        const name = { callbacks_refused: "refused", callbacks_ignored: "ignored", callbacks_unavailable: "unavailable" }[outcome]
        expect(sum("card_service.callbacks", { "card_service.callback.outcome": name })).toBe(expected[outcome])
      }
      const settles = telemetry.spans().filter((span) => span.name === "card_service.settle")
      const verdicts = settles
        .filter((span) => span.attributes["card_service.settle.outcome"] === "review_closed")
        .map((span) => `${span.attributes["card_service.settle.source"]}:${span.attributes["card_service.review.verdict"]}`)
        .sort()
      expect(verdicts).toEqual(["callback:approved", "callback:rejected", "sweep:approved", "sweep:expired", "sweep:rejected"])
      // Each review's callback and return found its order on hold (and the sweep the one still waiting): on_hold, not order.
      const onHold = settles.filter((span) => span.attributes["card_service.settle.outcome"] === "on_hold")
      expect(onHold.filter((span) => span.attributes["card_service.settle.source"] === "callback").length).toBeGreaterThanOrEqual(6)
      // A retrieve answered 503 decided nothing: no decision, no reason code on its span.
      const unavailableReads = telemetry
        .spans()
        .filter((span) => span.name === "card_service.retrieve" && span.attributes["http.response.status_code"] === 503)
      expect(unavailableReads.length).toBeGreaterThan(0)
      for (const span of unavailableReads) {
        expect(span.attributes["card_service.decision"]).toBeUndefined()
        expect(span.attributes["card_service.reason_code"]).toBeUndefined()
      }

      // Needs attention: the same actions by the sweep, in the same words;
      // the verdicts that came on their callbacks say so, and are not the sweep's.
      const { data: attention } = await api.get("/admin/card-service/reconciliation", { headers })
      const entries = attention.entries as any[]
      const bySweep = entries.filter((e) => e.acted_by === "sweep")
      const tally = new Map<string, number>()
      for (const e of bySweep) tally.set(e.status, (tally.get(e.status) ?? 0) + 1)
      expect(Object.fromEntries(tally)).toEqual(Object.fromEntries(day.sweep_by_status.map((s: any) => [s.status, s.count])))
      expect(entries.filter((e) => e.acted_by !== "sweep")).toEqual([
        expect.objectContaining({ id: rejectedOnCallback.session.id, status: "review_closed", review: "rejected", acted_by: "callback" }),
        expect.objectContaining({ id: approvedOnCallback.session.id, status: "review_closed", review: "approved", acted_by: "callback" }),
      ])
      expect(bySweep.find((e) => e.id === approvedLost.session.id)).toMatchObject({ status: "review_closed", review: "approved" })
      expect(bySweep.find((e) => e.id === expiring.session.id)).toMatchObject({ status: "review_closed", review: "expired" })
      expect(bySweep.find((e) => e.id === abandoned.session.id)).toMatchObject({ status: "outcome_unknown", needs_action: true })
      // No failed payment is listed for the session a forger named, before or after its shopper paid.
      expect(entries.filter((e) => e.id === forgedOn.session.id)).toEqual([])
      // Orders by display number, as the owner knows them; no raw order id.
      for (const e of entries) expect(e.message).not.toMatch(/order_[0-9A-Z]{26}/)
      expect(bySweep.find((e) => e.id === approvedLost.session.id).message).toMatch(/order #\d+/)

      // The order widget's review panel: the verdict's time once it is in; no raw timestamp in its text.
      const reviewOf = async (cartId: string) =>
        (await api.get(`/admin/card-service/orders/${await orderOfCart(getContainer(), cartId)}/review`, { headers })).data.review
      const approvedReview = await reviewOf(approvedOnCallback.cart.id)
      expect(approvedReview).toMatchObject({ state: "approved", decided_at: expect.any(String) })
      expect(Date.parse(approvedReview.decided_at)).toBeGreaterThanOrEqual(Date.parse(approvedReview.since))
      const waiting = await reviewOf(stillOnHold.cart.id)
      expect(waiting).toMatchObject({ state: "on_hold", decided_at: null })
      for (const review of [approvedReview, waiting]) {
        expect(review.message).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:/)
        expect(review.message).not.toMatch(/order_[0-9A-Z]{26}/)
      }
    })
  },
})
