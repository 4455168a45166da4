import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import type { HeldAnswer } from "../../src/sandbox"
import { sweepCardServicePayments } from "../../src/reconciliation/sweep"
import { UNLOGGED_AFTER_MS } from "../../src/reconciliation/payment-followups"
import { useCardServiceSandbox } from "../helpers/card-service-env"
import { checkoutToOrder, paymentOfOrder } from "../helpers/checkout-flow"
import { expectServiceHoldsWhatMedusaBooks as holdsWhatMedusaBooks } from "../helpers/order-flows"
import { useStoreOwner } from "../helpers/store-owner"

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
      return await held
    }

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

      expect(swept.actions).toEqual([expect.objectContaining({ payment_id: payment.id, status: "follow_on_recovered" })])
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
      expect(entries).toEqual([expect.objectContaining({ status: "refund_unknown", needs_action: true })])
      // The owner looks the reference up at the card service, finds it, and says so.
      const stranded = await paymentOfOrder(getContainer(), orderId)
      const answered = await post(`/admin/card-service/payments/${payment.id}/unknown-refunds`, {
        refund_id: stranded.refunds[0].id,
        made: true,
      })
      expect(answered.status).toBe(200)
      await expectServiceHoldsWhatMedusaBooks(orderId)
    })
  },
})
