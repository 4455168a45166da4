import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import type { ILockingModule, IOrderModuleService, IPaymentModuleService } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import type { HeldAnswer } from "../../src/sandbox"
import { sweepCardServicePayments } from "../../src/reconciliation/sweep"
import { captureNoteOf, followPayment, listCapturesToFollow, UNLOGGED_AFTER_MS } from "../../src/reconciliation/payment-followups"
import {
  CANCEL_GRACE_MS,
  finishInterruptedCancel,
  listInterruptedCancels,
} from "../../src/reconciliation/interrupted-cancels"
import { cardServiceProvider } from "../../src/checkout/provider-lookup"
import { useCardServiceSandbox } from "../helpers/card-service-env"
import { checkoutToOrder, paymentOfOrder } from "../helpers/checkout-flow"
import {
  expectOrderCountsItsPayments,
  expectServiceHoldsWhatMedusaBooks as holdsWhatMedusaBooks,
  orderCountsOfPayments,
} from "../helpers/order-flows"
import { useStoreOwner } from "../helpers/store-owner"
import { voidMarkOf, writeVoidMark } from "../../src/providers/card-service/void-record"

jest.setTimeout(180_000)

const env = useCardServiceSandbox()

/**
 * Issue 42, bench:crash-points: an instance that dies after the service
 * acted on a capture or refund and before Medusa wrote the answer. Medusa's
 * payment module commits its capture or refund row, calls the provider, and
 * writes the provider's answer only afterwards; the harness killed the
 * instance in between and found the row booked, the payment's data without
 * it, and nothing that would ever learn of it: Medusa refuses to capture
 * again what its rows count, and a refund then finds "nothing captured".
 *
 * Here the instance does not die: the sandbox holds the service's answer
 * after acting and never sends it, so Medusa's call waits for ever, and the
 * database holds exactly what a killed instance leaves behind. The sweep,
 * run as if minutes had passed, settles it.
 */
medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    const owner = useStoreOwner(api, getContainer, env)
    const { post } = owner
    const sandbox = () => env.sandbox()
    const lostCalls: Promise<unknown>[] = []
    const heldAnswers: HeldAnswer[] = []

    afterAll(async () => {
      // The held answers are sent at last: the calls that waited for them end.
      for (const held of heldAnswers) held.release()
      await Promise.allSettled(lostCalls)
    })

    /** The service acts on the next request to `path` and its answer never comes back; resolves when it has acted. */
    const answerNeverComes = (path: string) =>
      new Promise<HeldAnswer>((resolve) =>
        sandbox().holdAnswer({
          path,
          onHold: (held) => {
            heldAnswers.push(held)
            resolve(held)
          },
        })
      )

    /** Runs the admin call whose answer is lost, and waits until the service has acted on it. */
    const diesAfterTheServiceActed = async (path: string, call: () => Promise<unknown>) => {
      const held = answerNeverComes(path)
      lostCalls.push(call())
      const acted = await held
      // The instance is dead: the leases of the locks it held (the payment's) run out.
      await getContainer().resolve<ILockingModule>(Modules.LOCKING).releaseAll()
      return acted
    }

    const sweptFor = (swept: { actions: any[] }, paymentId: string) => swept.actions.filter((a) => a.payment_id === paymentId)
    const sweepLater = () =>
      sweepCardServicePayments(getContainer(), { now: new Date(Date.now() + UNLOGGED_AFTER_MS + 60_000) })

    const expectServiceHoldsWhatMedusaBooks = async (orderId: string) =>
      (await holdsWhatMedusaBooks(getContainer(), sandbox().transactions(), orderId)).payment

    it("takes a capture the service made as made (242 on asking again), marks the payment captured, and refunds it later", async () => {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())
      const held = await diesAfterTheServiceActed("/capture", () => post(`/admin/payments/${payment.id}/capture`, {}))
      expect(held.status).toBe(200)
      const stranded = await paymentOfOrder(getContainer(), orderId)
      // What the killed instance left: Medusa's row, no capture in the payment's data.
      expect(stranded.captures).toHaveLength(1)
      expect(stranded.data.capture ?? null).toBeNull()

      const swept = await sweepLater()

      // Its workflow stopped before the order counted the capture too: recorded on the order.
      expect(swept.actions).toEqual([
        expect.objectContaining({ payment_id: payment.id, status: "order_recorded" }),
        expect.objectContaining({ payment_id: payment.id, status: "follow_on_recovered" }),
      ])
      await expectOrderCountsItsPayments(getContainer(), orderId)
      const settled = await expectServiceHoldsWhatMedusaBooks(orderId)
      expect(settled.captured_at).toBeTruthy()
      expect(settled.data.transactions).toEqual(
        expect.arrayContaining([expect.objectContaining({ operation: "capture", decision: "ACCEPT", key: stranded.captures[0].id })])
      )
      // One capture at the service: the sweep's repeat was refused (242).
      expect(sandbox().transactions().filter((r) => r.step === "CAPTURE" && r.status === "successful")).toHaveLength(1)
      // The owner can go on: a refund of part of it.
      expect((await post(`/admin/payments/${payment.id}/refund`, { amount: 10 })).status).toBe(200)
      await expectServiceHoldsWhatMedusaBooks(orderId)
      // Nothing asks the owner to act, and a second sweep finds nothing to do.
      expect((await sweepLater()).actions.filter((a: any) => a.payment_id === payment.id)).toEqual([])
    })

    it("finishes the void of a whole refund whose capture the service voided, releasing the approval as the refund would have", async () => {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())
      expect((await post(`/admin/payments/${payment.id}/capture`, {})).status).toBe(200)
      const captured = await paymentOfOrder(getContainer(), orderId)
      await diesAfterTheServiceActed("/void", () => post(`/admin/payments/${payment.id}/refund`, { amount: Number(captured.amount) }))

      const swept = await sweepLater()

      expect(swept.actions).toEqual(expect.arrayContaining([expect.objectContaining({ payment_id: payment.id, status: "follow_on_recovered" })]))
      const settled = await expectServiceHoldsWhatMedusaBooks(orderId)
      expect(settled.data.transactions).toEqual(
        expect.arrayContaining([expect.objectContaining({ operation: "void", decision: "ACCEPT", key: settled.refunds[0].id })])
      )
      // The approval stood again after the void; it is released, as the refund's own path does.
      const reversals = sandbox()
        .transactions()
        .filter((r) => r.step === "REVERSAL" && r.status === "successful" && r.originalTransactionId === payment.data.transaction_id)
      expect(reversals).toHaveLength(1)
      // The capture's note says the void was Medusa's, on this and every later sweep: nothing for the owner to do.
      await sweepLater()
      const entries = (await owner.get(`/admin/card-service/reconciliation?payment_id=${payment.id}`)).data.entries
      expect(entries.filter((e: any) => e.needs_action)).toEqual([])
      expect(entries).toEqual(expect.arrayContaining([expect.objectContaining({ status: "capture_voided" })]))
    })

    /**
     * The owner's void through the plugin's route (the order widget), killed
     * after the service voided and before the route booked it
     * (bench:crash-points, `owner-void service:/void#1 kill` and
     * `db:update:payment#1 kill`): the sweep found the capture VOIDED with
     * nothing of Medusa's asking for it, and told the owner it was "voided at
     * the card service, not from Medusa", for good.
     */
    const voidRoute = (paymentId: string, transactionId: string) =>
      post(`/admin/card-service/payments/${paymentId}/void`, { transaction_id: transactionId })
    const attentionFor = async (paymentId: string) =>
      (await owner.get(`/admin/card-service/reconciliation?payment_id=${paymentId}`)).data.entries
    const voidsIn = (data: any) => data.transactions.filter((t: any) => t.operation === "void")
    /** What a route killed right after the service voided leaves: its mark on the payment, the void at the service, nothing booked, no lock held. */
    const voidedThenDied = async (payment: any, transactionId: string) => {
      const record = sandbox().transaction(transactionId)!
      await writeVoidMark(getContainer(), payment.id, {
        transaction_id: transactionId,
        type: record.step as "CAPTURE" | "REFUND",
        amount: record.amount,
        requested_at: new Date().toISOString(),
      })
      await cardServiceProvider(getContainer(), payment.provider_id).client.void({
        merchantReferenceCode: payment.id,
        currency: record.currencyCode,
        amount: record.amount.toFixed(2),
        email: "owner@example.com",
        transactionId,
        type: record.step as "CAPTURE" | "REFUND",
      })
      expect(sandbox().transaction(transactionId)?.captureStatus).toBe("VOIDED")
    }
    const capturedOrder = async () => {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())
      expect((await post(`/admin/payments/${payment.id}/capture`, {})).status).toBe(200)
      const captured = await paymentOfOrder(getContainer(), orderId)
      return { orderId, payment: captured, captureId: captured.data.capture.transaction_id as string }
    }

    it("never tells the owner their own void of a capture, whose answer was lost, was made outside Medusa; books it once", async () => {
      const { orderId, payment, captureId } = await capturedOrder()
      await diesAfterTheServiceActed("/void", () => voidRoute(payment.id, captureId))

      const swept = await sweepLater()

      const mine = swept.actions.filter((a: any) => a.payment_id === payment.id)
      expect(mine.map((a: any) => a.status)).not.toContain("changed_outside_medusa")
      expect(mine).toEqual(expect.arrayContaining([expect.objectContaining({ status: "capture_voided" })]))
      const settled = await paymentOfOrder(getContainer(), orderId)
      expect(settled.data.transactions).toEqual(
        expect.arrayContaining([expect.objectContaining({ operation: "capture", transaction_id: captureId, voided: true })])
      )
      expect(voidsIn(settled.data)).toHaveLength(1)
      expect((await attentionFor(payment.id)).filter((e: any) => e.needs_action)).toEqual([])
    })

    it("never calls the owner's void a change outside Medusa when the sweep listed the payment before the void and follows it after", async () => {
      const { orderId, payment, captureId } = await capturedOrder()
      // The sweep lists the captured payment; the owner's void runs to its end before the sweep comes to it.
      const now = new Date()
      const listed = (await listCapturesToFollow(getContainer(), payment.provider_id, now, 100)).find((p) => p.id === payment.id)
      expect(listed).toBeDefined()
      expect((await voidRoute(payment.id, captureId)).status).toBe(200)

      const actions = await followPayment(getContainer(), listed!, now)

      expect(actions.map((a) => a.status)).not.toContain("changed_outside_medusa")
      const settled = await paymentOfOrder(getContainer(), orderId)
      expect(captureNoteOf(settled.metadata)?.status).not.toBe("changed_outside_medusa")
      expect(voidsIn(settled.data)).toHaveLength(1)
      expect((await attentionFor(payment.id)).filter((e: any) => e.needs_action)).toEqual([])
    })

    it("books the owner's void of a capture whose route died after the service voided it, as the route would have: not a change outside Medusa", async () => {
      const { orderId, payment, captureId } = await capturedOrder()
      await voidedThenDied(payment, captureId)
      // Within its grace the route may still be at work: nothing is said about the capture.
      expect(sweptFor(await sweepCardServicePayments(getContainer()), payment.id)).toEqual([])

      const swept = await sweepLater()

      expect(sweptFor(swept, payment.id)).toEqual([
        expect.objectContaining({ status: "follow_on_recovered" }),
        expect.objectContaining({ status: "capture_voided" }),
      ])
      const settled = await paymentOfOrder(getContainer(), orderId)
      expect(settled.data.transactions).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ operation: "capture", transaction_id: captureId, voided: true }),
          expect.objectContaining({ operation: "void", decision: "ACCEPT" }),
        ])
      )
      expect(voidsIn(settled.data)).toHaveLength(1)
      expect(voidMarkOf(settled.metadata)).toBeNull()
      const entries = await attentionFor(payment.id)
      expect(entries.filter((e: any) => e.needs_action)).toEqual([])
      expect(entries).toEqual(expect.arrayContaining([expect.objectContaining({ status: "capture_voided" })]))
      // The owner presses the button again: told it is voided, and nothing is booked twice.
      expect((await voidRoute(payment.id, captureId)).status).toBe(400)
      expect(voidsIn((await paymentOfOrder(getContainer(), orderId)).data)).toHaveLength(1)
      expect(sweptFor(await sweepLater(), payment.id)).toEqual([])
    })

    it("refuses the owner's refund of a capture whose void's route died after the service voided it, books nothing, and the sweep books the void", async () => {
      const { orderId, payment, captureId } = await capturedOrder()
      await voidedThenDied(payment, captureId)

      const refund = await post(`/admin/payments/${payment.id}/refund`, { amount: 5 })

      expect(refund.status).toBeGreaterThanOrEqual(400)
      const afterRefund = await paymentOfOrder(getContainer(), orderId)
      expect(afterRefund.data.refunded_amount ?? 0).toBe(0)
      expect(afterRefund.refunds ?? []).toEqual([])
      // The service declines it (247: the capture was voided): no money moves.
      expect(sandbox().transactions().filter((r) => r.step === "REFUND" && r.originalTransactionId === captureId).map((r) => r.reasonCode)).toEqual(["247"])
      expect(sweptFor(await sweepLater(), payment.id)).toEqual(
        expect.arrayContaining([expect.objectContaining({ status: "follow_on_recovered" }), expect.objectContaining({ status: "capture_voided" })])
      )
      const settled = await paymentOfOrder(getContainer(), orderId)
      expect(voidsIn(settled.data)).toHaveLength(1)
      expect(voidMarkOf(settled.metadata)).toBeNull()
      expect((await attentionFor(payment.id)).filter((e: any) => e.needs_action)).toEqual([])
    })

    it("books the owner's void of a refund whose route died after the service voided it: the refund no longer counts as given back", async () => {
      const { orderId, payment } = await capturedOrder()
      expect((await post(`/admin/payments/${payment.id}/refund`, { amount: 7 })).status).toBe(200)
      const refunded = await paymentOfOrder(getContainer(), orderId)
      const refundId = refunded.data.transactions.find((t: any) => t.operation === "refund").transaction_id
      expect(refunded.data.refunded_amount).toBe(7)
      await voidedThenDied(refunded, refundId)

      expect(sweptFor(await sweepLater(), payment.id)).toEqual(
        expect.arrayContaining([expect.objectContaining({ status: "follow_on_recovered" })])
      )

      const settled = await paymentOfOrder(getContainer(), orderId)
      expect(settled.data.transactions).toEqual(
        expect.arrayContaining([expect.objectContaining({ operation: "refund", transaction_id: refundId, voided: true })])
      )
      expect(settled.data.refunded_amount).toBe(0)
      expect(voidMarkOf(settled.metadata)).toBeNull()
      expect((await attentionFor(payment.id)).filter((e: any) => e.needs_action)).toEqual([])
    })

    it("forgets the owner's void the service never made: nothing voided, nothing booked, nothing for the owner, and the owner can void it still", async () => {
      const { orderId, payment, captureId } = await capturedOrder()
      // The service answers the void 503 without acting: the route has marked the void and leaves it standing.
      sandbox().injectFault({ type: "status", status: 503, path: "/void" })
      expect((await voidRoute(payment.id, captureId)).status).toBeGreaterThanOrEqual(500)
      sandbox().clearFaults()
      expect(voidMarkOf((await paymentOfOrder(getContainer(), orderId)).metadata)).not.toBeNull()

      await sweepLater()

      const settled = await paymentOfOrder(getContainer(), orderId)
      expect(sandbox().transaction(captureId)?.captureStatus).toBe("PENDING")
      expect(settled.data.transactions.filter((t: any) => t.voided || t.operation === "void")).toEqual([])
      expect(voidMarkOf(settled.metadata)).toBeNull()
      expect((await attentionFor(payment.id)).filter((e: any) => e.needs_action)).toEqual([])
      expect((await voidRoute(payment.id, captureId)).status).toBe(200)
    })

    /**
     * What a failed write of Medusa's leaves after the service acted: the
     * provider's answer is on the payment (the provider writes it first,
     * payment-record.ts), and Medusa deleted its row when its own write of
     * that answer failed (bench:crash-points: the connection dropped there).
     */
    const medusaLostItsBooking = async (table: "capture" | "refund", paymentId: string) => {
      const pg = getContainer().resolve("__pg_connection__")
      await pg.raw(`delete from ${table} where payment_id = ?`, [paymentId])
      if (table === "capture") await pg.raw(`update payment set captured_at = null where id = ?`, [paymentId])
    }

    it("books a refund whose booking Medusa lost when the owner refunds again, and refunds nothing twice", async () => {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())
      expect((await post(`/admin/payments/${payment.id}/capture`, {})).status).toBe(200)
      const refundsAtService = () => sandbox().transactions().filter((r) => r.step === "REFUND" && r.status === "successful").length
      const before = refundsAtService()
      expect((await post(`/admin/payments/${payment.id}/refund`, { amount: 8 })).status).toBe(200)
      await medusaLostItsBooking("refund", payment.id)

      // Another amount is refused, naming the refund to book; the same amount books it.
      const other = await post(`/admin/payments/${payment.id}/refund`, { amount: 5 })
      expect(other.status).toBe(400)
      expect(other.data.message).toContain("Refund exactly 8.00 EUR to book it")
      expect((await post(`/admin/payments/${payment.id}/refund`, { amount: 8 })).status).toBe(200)

      expect(refundsAtService()).toBe(before + 1)
      await expectServiceHoldsWhatMedusaBooks(orderId)
    })

    it("books a capture whose booking Medusa lost when the owner captures again, instead of refusing it as a second capture", async () => {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())
      expect((await post(`/admin/payments/${payment.id}/capture`, {})).status).toBe(200)
      await medusaLostItsBooking("capture", payment.id)

      const again = await post(`/admin/payments/${payment.id}/capture`, {})

      expect(again.status).toBe(200)
      const settled = await expectServiceHoldsWhatMedusaBooks(orderId)
      expect(settled.captures).toHaveLength(1)
      expect(sandbox().transactions().filter((r) => r.step === "CAPTURE" && r.originalTransactionId === payment.data.transaction_id)).toHaveLength(1)
    })

    it.each([["refund"], ["capture"]] as const)("books a %s whose booking Medusa lost on the sweep when the owner does nothing, sending nothing again", async (kind) => {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())
      expect((await post(`/admin/payments/${payment.id}/capture`, {})).status).toBe(200)
      if (kind === "refund") expect((await post(`/admin/payments/${payment.id}/refund`, { amount: 6 })).status).toBe(200)
      const atService = () => sandbox().transactions().filter((r) => r.status === "successful").length
      const before = atService()
      await medusaLostItsBooking(kind, payment.id)

      const swept = await sweepLater()

      expect(swept.actions).toEqual(expect.arrayContaining([expect.objectContaining({ payment_id: payment.id, status: "booking_recovered" })]))
      expect(atService()).toBe(before)
      const settled = await expectServiceHoldsWhatMedusaBooks(orderId)
      expect(settled[kind === "capture" ? "captures" : "refunds"]).toHaveLength(1)
      // Booked once: the next sweep only follows the capture, as for any other payment.
      expect((await sweepLater()).actions.filter((a: any) => a.payment_id === payment.id && a.status === "booking_recovered")).toEqual([])
    })

    it("books a part refund the service made as of unknown outcome, never sends it again, and asks the owner", async () => {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())
      expect((await post(`/admin/payments/${payment.id}/capture`, {})).status).toBe(200)
      const refundsAtService = () => sandbox().transactions().filter((r) => r.step === "REFUND").length
      const before = refundsAtService()
      await diesAfterTheServiceActed("/refund", () => post(`/admin/payments/${payment.id}/refund`, { amount: 7 }))
      expect(refundsAtService()).toBe(before + 1)

      const swept = await sweepLater()

      expect(swept.actions).toEqual(expect.arrayContaining([expect.objectContaining({ payment_id: payment.id, status: "refund_unknown" })]))
      expect(refundsAtService()).toBe(before + 1)
      const entries = (await owner.get(`/admin/card-service/reconciliation?payment_id=${payment.id}`)).data.entries
      // Medusa counts the refund, and so does the order now (its workflow stopped before recording it there).
      expect(entries).toEqual([
        expect.objectContaining({ status: "refund_unknown", needs_action: true }),
        expect.objectContaining({ status: "order_recorded", needs_action: false }),
      ])
      await expectOrderCountsItsPayments(getContainer(), orderId)
      // The owner looks the reference up at the card service, finds it, and says so.
      const stranded = await paymentOfOrder(getContainer(), orderId)
      const answered = await post(`/admin/card-service/payments/${payment.id}/unknown-refunds`, {
        refund_id: stranded.refunds[0].id,
        made: true,
      })
      expect(answered.status).toBe(200)
      await expectServiceHoldsWhatMedusaBooks(orderId)
    })
    /**
     * An order cancel that stops midway (bench:crash-points, the `reverse`
     * operation): Medusa's cancelOrderWorkflow has no compensation of the
     * steps before the one that failed, and nothing runs it again.
     */
    const reversalsOf = (payment: { data: { transaction_id: string } }) =>
      sandbox()
        .transactions()
        .filter((r) => r.step === "REVERSAL" && r.status === "successful" && r.originalTransactionId === payment.data.transaction_id)
    const orderStatus = async (orderId: string) => {
      const { data } = await getContainer().resolve("query").graph({ entity: "order", fields: ["status"], filters: { id: orderId } })
      return data[0].status
    }
    const sweepAfterCancelGrace = () =>
      sweepCardServicePayments(getContainer(), { now: new Date(Date.now() + CANCEL_GRACE_MS + 5_000) })
    /** What an instance killed right after the provider released the approval leaves: the release, and nothing of Medusa's. */
    const releasedThenDied = async (payment: any) => {
      await cardServiceProvider(getContainer(), payment.provider_id).cancelPayment({
        data: payment.data,
        context: { idempotency_key: payment.id },
      })
    }
    const sql = (text: string, bindings: string[]) => getContainer().resolve("__pg_connection__").raw(text, bindings)
    /** The payment row's canceled_at (an edited order has two collections: found by the payment's id). */
    const canceledAt = async (paymentId: string) => (await sql(`select "canceled_at" from "payment" where "id" = ?`, [paymentId])).rows[0].canceled_at

    it("leaves open an order the owner edited before capture: Medusa canceled its first payment for the edit, which is no cancel of the order", async () => {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())
      await owner.editFirstItem(orderId, { quantity: 2 })
      // Medusa's edit of an order only authorized cancels its payment (the approval released) and asks for the new total in a new collection.
      expect(reversalsOf(payment)).toHaveLength(1)
      expect(await canceledAt(payment.id)).toBeTruthy()

      const swept = await sweepAfterCancelGrace()

      expect(sweptFor(swept, payment.id)).toEqual([])
      expect(await orderStatus(orderId)).not.toBe("canceled")
      expect((await attentionFor(payment.id)).filter((e: any) => e.needs_action)).toEqual([])
    })

    it("finishes the release of the payment an order edit replaced when it stopped before Medusa canceled the payment: the payment canceled, the order left open", async () => {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())
      await owner.editFirstItem(orderId, { quantity: 2 })
      // What an instance killed after the release and before Medusa's write leaves: the payment authorized on a released approval.
      await sql(`update "payment" set "canceled_at" = null where "id" = ?`, [payment.id])

      const swept = await sweepAfterCancelGrace()

      expect(sweptFor(swept, payment.id)).toEqual([expect.objectContaining({ status: "cancel_recovered" })])
      expect(await canceledAt(payment.id)).toBeTruthy()
      expect(await orderStatus(orderId)).not.toBe("canceled")
      expect(reversalsOf(payment)).toHaveLength(1)
      expect((await attentionFor(payment.id)).filter((e: any) => e.needs_action)).toEqual([])
      expect(sweptFor(await sweepAfterCancelGrace(), payment.id)).toEqual([])
    })

    it("finishes an order cancel whose instance died after the service released the approval: order and payment canceled, released once", async () => {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())
      await releasedThenDied(payment)
      const stranded = await paymentOfOrder(getContainer(), orderId)
      expect(stranded.canceled_at).toBeNull()
      expect(await orderStatus(orderId)).not.toBe("canceled")
      expect(reversalsOf(payment)).toHaveLength(1)
      // Within the grace a cancel may still be running: left alone.
      expect(sweptFor(await sweepCardServicePayments(getContainer()), payment.id)).toEqual([])

      const swept = await sweepAfterCancelGrace()

      expect(sweptFor(swept, payment.id)).toEqual([expect.objectContaining({ status: "cancel_recovered" })])
      expect(await orderStatus(orderId)).toBe("canceled")
      const settled = await paymentOfOrder(getContainer(), orderId)
      expect(settled.canceled_at).toBeTruthy()
      expect(settled.data.state).toBe("canceled")
      expect(reversalsOf(payment)).toHaveLength(1)
      const entries = (await owner.get(`/admin/card-service/reconciliation?payment_id=${payment.id}`)).data.entries
      expect(entries).toEqual([expect.objectContaining({ status: "cancel_recovered", needs_action: false })])
      expect(sweptFor(await sweepAfterCancelGrace(), payment.id)).toEqual([])
    })

    it("cancels the payment of a canceled order whose canceled payment Medusa failed to write (cancelPaymentStep only logs that)", async () => {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())
      expect((await post(`/admin/orders/${orderId}/cancel`, {})).status).toBe(200)
      // The connection dropped at Medusa's write of the canceled payment: the provider's own record of the release stays.
      await sql(`update "payment" set "canceled_at" = null where "id" = ?`, [payment.id])
      const again = await post(`/admin/orders/${orderId}/cancel`, {})
      expect(again.status).toBe(400)

      const swept = await sweepAfterCancelGrace()

      expect(sweptFor(swept, payment.id)).toEqual([expect.objectContaining({ status: "cancel_recovered" })])
      expect((await paymentOfOrder(getContainer(), orderId)).canceled_at).toBeTruthy()
      expect(reversalsOf(payment)).toHaveLength(1)
    })

    it("finishes a cancel that died after its credit-line change was made, which every later cancel of the owner's is refused over", async () => {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())
      expect((await post(`/admin/orders/${orderId}/cancel`, {})).status).toBe(200)
      // Back to what the instance killed before confirming the change left: the order open, its change active.
      await sql(`update "order" set "status" = 'pending' where "id" = ?`, [orderId])
      const change = await getContainer().resolve("order").createOrderChange({ order_id: orderId, change_type: "credit_line" })
      await sql(`update "order_change" set "created_at" = now() - interval '1 minute' where "id" = ?`, [change.id])
      const again = await post(`/admin/orders/${orderId}/cancel`, {})
      expect(again.status).toBe(400)
      expect(again.data.message).toContain("active order change")

      const swept = await sweepAfterCancelGrace()

      expect(sweptFor(swept, payment.id)).toEqual([expect.objectContaining({ status: "cancel_recovered" })])
      expect(await orderStatus(orderId)).toBe("canceled")
      expect(reversalsOf(payment)).toHaveLength(1)
    })

    it("leaves alone a cancel that died before the release when the owner has captured since: nothing canceled, nothing refunded", async () => {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())
      // The mark of a cancel whose instance died before it sent the reversal, an hour ago.
      const requestedAt = new Date(Date.now() - 60 * 60_000).toISOString()
      await sql(
        `update "payment" set "metadata" = jsonb_build_object('card_service', jsonb_build_object('cancel', jsonb_build_object('requested_at', ?::text))) where "id" = ?`,
        [requestedAt, payment.id]
      )
      // The owner went on with the order: a partial capture.
      expect((await post(`/admin/payments/${payment.id}/capture`, { amount: 10 })).status).toBe(200)

      const swept = await sweepAfterCancelGrace()

      expect(sweptFor(swept, payment.id).filter((a) => String(a.status).startsWith("cancel_"))).toEqual([])
      expect(await orderStatus(orderId)).not.toBe("canceled")
      expect(reversalsOf(payment)).toHaveLength(0)
      const kept = await paymentOfOrder(getContainer(), orderId)
      expect(kept.canceled_at).toBeNull()
      expect(kept.refunds).toHaveLength(0)
    })

    it("counts a cancel the owner's own second cancel finished while the sweep was at it as finished, not as one left to the owner", async () => {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())
      await releasedThenDied(payment)
      const now = new Date(Date.now() + CANCEL_GRACE_MS + 5_000)
      const [listed] = (await listInterruptedCancels(getContainer(), payment.provider_id, now)).filter((c) => c.payment.id === payment.id)
      expect(listed).toEqual(expect.objectContaining({ orderId, orderCanceled: false }))
      // Between the sweep's list and its cancel, the owner cancels again, and Medusa finishes it.
      expect((await post(`/admin/orders/${orderId}/cancel`, {})).status).toBe(200)

      const actions = await finishInterruptedCancel(getContainer(), listed, now)

      expect(actions).toEqual([expect.objectContaining({ payment_id: payment.id, status: "cancel_recovered" })])
      expect(await orderStatus(orderId)).toBe("canceled")
      expect((await paymentOfOrder(getContainer(), orderId)).canceled_at).toBeTruthy()
      expect(reversalsOf(payment)).toHaveLength(1)
      const entries = (await owner.get(`/admin/card-service/reconciliation?payment_id=${payment.id}`)).data.entries
      expect(entries.filter((e: { needs_action: boolean }) => e.needs_action)).toEqual([])
    })

    it("leaves to the owner a cancel Medusa will no longer finish, booking the released approval as released", async () => {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())
      await releasedThenDied(payment)
      await sql(`update "order" set "status" = 'completed' where "id" = ?`, [orderId])

      const swept = await sweepAfterCancelGrace()

      expect(sweptFor(swept, payment.id)).toEqual([expect.objectContaining({ status: "cancel_not_finished" })])
      expect(await orderStatus(orderId)).toBe("completed")
      expect((await paymentOfOrder(getContainer(), orderId)).canceled_at).toBeTruthy()
      const entries = (await owner.get(`/admin/card-service/reconciliation?payment_id=${payment.id}`)).data.entries
      expect(entries).toEqual([expect.objectContaining({ status: "cancel_not_finished", needs_action: true })])
      expect(entries[0].message).toContain("collect the payment another way")
      // Said once: the next sweep leaves it.
      expect(sweptFor(await sweepAfterCancelGrace(), payment.id)).toEqual([])
    })

    describe("money Medusa booked on the payment whose workflow stopped before the order counted it", () => {
      // Medusa's capture and refund workflows book on the payment first (the
      // payment module's capturePayment / refundPayment, the provider's call)
      // and record on the order in later steps. Running the payment module's
      // step alone leaves what an instance killed between them leaves.
      const paymentModule = () => getContainer().resolve<IPaymentModuleService>(Modules.PAYMENT)
      const capturedOrder = async (seeded?: Parameters<typeof checkoutToOrder>[2]) => {
        const { orderId, payment, store } = await checkoutToOrder(api, getContainer(), seeded)
        expect((await post(`/admin/payments/${payment.id}/capture`, {})).status).toBe(200)
        return { orderId, payment, store }
      }
      const recordedFor = (swept: { actions: any[] }, paymentId: string) =>
        sweptFor(swept, paymentId).filter((a) => a.status.startsWith("order_"))

      /** The repaired order counts its payments as the owner's own control order does, the service agrees, and the next sweep does nothing. */
      const expectRepairedAsOwners = async (orderId: string, controlOrderId: string, paymentId: string) => {
        const repaired = await expectOrderCountsItsPayments(getContainer(), orderId)
        const owners = await expectOrderCountsItsPayments(getContainer(), controlOrderId)
        expect(repaired.creditLines).toEqual(owners.creditLines)
        expect(repaired.summary).toEqual(owners.summary)
        await expectServiceHoldsWhatMedusaBooks(orderId)
        expect(recordedFor(await sweepLater(), paymentId)).toEqual([])
      }

      it("records a capture on its order, once, as Medusa's capture would have", async () => {
        const { orderId, payment } = await checkoutToOrder(api, getContainer())
        await paymentModule().capturePayment({ payment_id: payment.id })
        expect(await orderCountsOfPayments(getContainer(), orderId)).toMatchObject({ booked: { captured: 30 }, onOrder: { captured: 0 } })

        const swept = await sweepLater()

        expect(recordedFor(swept, payment.id)).toEqual([expect.objectContaining({ status: "order_recorded" })])
        expect(recordedFor(swept, payment.id)[0].message).toContain(`recorded on the order now, nothing sent to the service`)
        await expectOrderCountsItsPayments(getContainer(), orderId)
        await expectServiceHoldsWhatMedusaBooks(orderId)
        expect(recordedFor(await sweepLater(), payment.id)).toEqual([])
        await expectOrderCountsItsPayments(getContainer(), orderId)
      })

      it("records a refund on its order with the credit line Medusa's refund adds: the order ends as the owner's own refund leaves one", async () => {
        const control = await capturedOrder()
        expect((await post(`/admin/payments/${control.payment.id}/refund`, { amount: 10 })).status).toBe(200)
        const { orderId, payment } = await capturedOrder(control.store)
        await paymentModule().refundPayment({ payment_id: payment.id, amount: 10 })
        expect(await orderCountsOfPayments(getContainer(), orderId)).toMatchObject({ booked: { refunded: 10 }, onOrder: { refunded: 0 } })

        const swept = await sweepLater()

        expect(recordedFor(swept, payment.id)).toEqual([expect.objectContaining({ status: "order_recorded" })])
        const repaired = await expectOrderCountsItsPayments(getContainer(), orderId)
        const owners = await expectOrderCountsItsPayments(getContainer(), control.orderId)
        expect(repaired.creditLines).toEqual([10])
        expect(repaired.creditLines).toEqual(owners.creditLines)
        expect(repaired.summary).toEqual(owners.summary)
        expect(recordedFor(await sweepLater(), payment.id)).toEqual([])
      })

      it("leaves a refund that needs a credit line while the owner has an order edit open, says so once, and records it when the edit is canceled", async () => {
        const { orderId, payment } = await capturedOrder()
        await paymentModule().refundPayment({ payment_id: payment.id, amount: 10 })
        expect((await post(`/admin/order-edits`, { order_id: orderId })).status).toBe(200)

        const waiting = recordedFor(await sweepLater(), payment.id)

        expect(waiting).toEqual([expect.objectContaining({ status: "order_not_recorded" })])
        expect(waiting[0].message).toMatch(/waits for order edit ordch_\w+ to be confirmed or canceled/)
        expect(await orderCountsOfPayments(getContainer(), orderId)).toMatchObject({ onOrder: { refunded: 0 } })
        const entries = (await owner.get(`/admin/card-service/reconciliation?payment_id=${payment.id}`)).data.entries
        expect(entries).toEqual(expect.arrayContaining([expect.objectContaining({ status: "order_not_recorded", needs_action: true })]))
        expect(recordedFor(await sweepLater(), payment.id)).toEqual([])

        expect((await owner.delete(`/admin/order-edits/${orderId}`)).status).toBe(200)
        const recorded = recordedFor(await sweepLater(), payment.id)

        expect(recorded).toEqual([expect.objectContaining({ status: "order_recorded" })])
        expect((await expectOrderCountsItsPayments(getContainer(), orderId)).creditLines).toEqual([10])
        const after = (await owner.get(`/admin/card-service/reconciliation?payment_id=${payment.id}`)).data.entries
        expect(after).toEqual(expect.arrayContaining([expect.objectContaining({ status: "order_recorded", needs_action: false })]))
        expect(after.filter((e: any) => e.needs_action)).toEqual([])
      })

      it("refuses the owner's next refund, sending nothing, while an earlier one is not yet recorded on the order; refunds once the sweep recorded it", async () => {
        const { orderId, payment } = await capturedOrder()
        await paymentModule().refundPayment({ payment_id: payment.id, amount: 5 })
        const refundsSent = () => sandbox().requests().filter((r) => r.path === "/refund").length
        const sentBefore = refundsSent()

        const refused = await post(`/admin/payments/${payment.id}/refund`, { amount: 7 })

        expect(refused.status).toBe(400)
        expect(refused.data.message).toMatch(/refund ref_\w+ of this payment is not yet recorded on order order_\w+ .*Nothing was refunded: refund again in a moment/)
        expect(refundsSent()).toBe(sentBefore)
        await expectServiceHoldsWhatMedusaBooks(orderId)
        expect((await orderCountsOfPayments(getContainer(), orderId)).booked.refunded).toBe(5)

        expect(recordedFor(await sweepLater(), payment.id)).toEqual([expect.objectContaining({ status: "order_recorded" })])
        expect((await post(`/admin/payments/${payment.id}/refund`, { amount: 7 })).status).toBe(200)
        expect((await expectOrderCountsItsPayments(getContainer(), orderId)).creditLines.sort()).toEqual([5, 7])
        await expectServiceHoldsWhatMedusaBooks(orderId)
      })

      it("replaces a transaction Medusa wrote for a stopped refund with another refund's amount: the order ends as two refunds of the owner's leave one", async () => {
        const control = await capturedOrder()
        expect((await post(`/admin/payments/${control.payment.id}/refund`, { amount: 7 })).status).toBe(200)
        expect((await post(`/admin/payments/${control.payment.id}/refund`, { amount: 5 })).status).toBe(200)
        const { orderId, payment } = await capturedOrder(control.store)
        expect((await post(`/admin/payments/${payment.id}/refund`, { amount: 7 })).status).toBe(200)
        await paymentModule().refundPayment({ payment_id: payment.id, amount: 5 })
        const stopped = (await paymentOfOrder(getContainer(), orderId)).refunds.find((r: any) => Number(r.amount) === 5)
        // What Medusa's refund workflow writes for a refund its order lacks
        // when it records another (the two sent at once): the other's amount.
        await getContainer()
          .resolve<IOrderModuleService>(Modules.ORDER)
          .addOrderTransactions({ order_id: orderId, amount: -7, currency_code: "eur", reference: "refund", reference_id: stopped.id })
        expect(await orderCountsOfPayments(getContainer(), orderId)).toMatchObject({ booked: { refunded: 12 }, onOrder: { refunded: 14 } })

        const swept = await sweepLater()

        expect(recordedFor(swept, payment.id)).toEqual([expect.objectContaining({ status: "order_recorded" })])
        expect(recordedFor(swept, payment.id)[0].message).toContain("(the order had it for another amount)")
        await expectRepairedAsOwners(orderId, control.orderId, payment.id)
      })

      it("takes out the second transaction two of Medusa's workflows wrote for one capture and one refund at once: the order ends as the owner's own leave one", async () => {
        // Medusa's step that records them reads which rows the order counts,
        // then writes the others: two capture workflows at once (the owner
        // pressed capture twice; the crash-point pass saw the order count
        // 34.8 captured for 17.4) both write the capture. What they leave:
        const control = await capturedOrder()
        expect((await post(`/admin/payments/${control.payment.id}/refund`, { amount: 10 })).status).toBe(200)
        const { orderId, payment } = await capturedOrder(control.store)
        expect((await post(`/admin/payments/${payment.id}/refund`, { amount: 10 })).status).toBe(200)
        const { captures, refunds } = await paymentOfOrder(getContainer(), orderId)
        await getContainer()
          .resolve<IOrderModuleService>(Modules.ORDER)
          .addOrderTransactions([
            { order_id: orderId, amount: Number(captures[0].amount), currency_code: "eur", reference: "capture", reference_id: captures[0].id },
            { order_id: orderId, amount: -10, currency_code: "eur", reference: "refund", reference_id: refunds[0].id },
          ] as never)
        const booked = Number(captures[0].amount)
        expect(await orderCountsOfPayments(getContainer(), orderId)).toMatchObject({
          booked: { captured: booked, refunded: 10 },
          onOrder: { captured: 2 * booked, refunded: 20 },
        })

        const swept = await sweepLater()

        expect(recordedFor(swept, payment.id)).toEqual([expect.objectContaining({ status: "order_recorded" })])
        expect(recordedFor(swept, payment.id)[0].message).toMatch(/counted money of the payment twice .*: its transaction\(s\) ordtrx_\w+, ordtrx_\w+ taken out, nothing sent to the service/)
        await expectRepairedAsOwners(orderId, control.orderId, payment.id)
      })

      /** What a refund's workflow killed inside its credit line leaves: the refund booked and recorded, the credit-line change open. */
      const refundDiedInItsCreditLine = async (orderId: string, paymentId: string, withAction: boolean) => {
        await paymentModule().refundPayment({ payment_id: paymentId, amount: 10 })
        const refund = (await paymentOfOrder(getContainer(), orderId)).refunds[0]
        const orders = getContainer().resolve<IOrderModuleService>(Modules.ORDER)
        await orders.addOrderTransactions({ order_id: orderId, amount: -10, currency_code: "eur", reference: "refund", reference_id: refund.id })
        const change = await orders.createOrderChange({ order_id: orderId, change_type: "credit_line" } as never)
        if (withAction) {
          await orders.addOrderAction({
            order_change_id: change.id,
            order_id: orderId,
            version: change.version,
            action: "CREDIT_LINE_ADD",
            reference: "payment_collection",
            amount: 10,
          } as never)
        }
        // Medusa refuses the owner's every change of the order meanwhile.
        expect((await post(`/admin/order-edits`, { order_id: orderId })).status).toBe(400)
        return change
      }

      it.each([
        ["confirms the credit-line change a refund's workflow made and never confirmed", true],
        ["withdraws the empty credit-line change a refund's workflow left and records the refund's credit line again", false],
      ])("%s: the order ends as the owner's own refund leaves one, and takes changes again", async (_, withAction) => {
        const control = await capturedOrder()
        expect((await post(`/admin/payments/${control.payment.id}/refund`, { amount: 10 })).status).toBe(200)
        const { orderId, payment } = await capturedOrder(control.store)
        await refundDiedInItsCreditLine(orderId, payment.id, withAction)

        const swept = await sweepLater()

        expect(recordedFor(swept, payment.id)).toEqual([expect.objectContaining({ status: "order_recorded" })])
        const repaired = await expectOrderCountsItsPayments(getContainer(), orderId)
        const owners = await expectOrderCountsItsPayments(getContainer(), control.orderId)
        expect(repaired.creditLines).toEqual([10])
        expect(repaired.summary).toEqual(owners.summary)
        expect((await post(`/admin/order-edits`, { order_id: orderId })).status).toBe(200)
        expect(recordedFor(await sweepLater(), payment.id)).toEqual([])
      })
    })
  },
})
