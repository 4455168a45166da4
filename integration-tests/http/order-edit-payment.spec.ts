import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import path from "node:path"
import { request } from "undici"
import { TEST_CARDS } from "../../src/sandbox"
import { formOfPage, payLikeABrowser, payOnHostedPage, postPaymentForm } from "../helpers/browser-step"
import { useCardServiceSandbox } from "../helpers/card-service-env"
import { CARDS, cartWithSession, checkoutToOrder } from "../helpers/checkout-flow"
import {
  CHALLENGE_CARD,
  fillCard,
  SCREENSHOTS,
  submitThroughChallenge,
  useChromium,
} from "../helpers/hosted-page-browser"
import { CARD_SERVICE_PROVIDER_ID } from "../helpers/seed-store"
import { useStoreOwner } from "../helpers/store-owner"

jest.setTimeout(240_000)

const env = useCardServiceSandbox({ storefrontPage: true })

/**
 * Issue 40: an order edited up owes the difference. Medusa 2.21.2 books it
 * when the edit is confirmed (confirmOrderEditRequestWorkflow runs
 * createOrUpdateOrderPaymentCollectionWorkflow): a payment collection of the
 * order, not_paid, for the order's pending difference, linked to no cart.
 * The store owner adds a card-service session to it (Medusa's
 * POST /admin/payment-collections/:id/payment-sessions, or the plugin's
 * /admin/card-service/orders/:id/outstanding), the customer pays on the
 * hosted page of that session, and the callback and return authorize it for
 * the order, with the checkout's checks.
 *
 * The shop: one T-shirt at 25 EUR and 5 EUR shipping (30 EUR); the edit
 * makes it two T-shirts (55 EUR).
 */
medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    const { post, get, editFirstItem, sessionOnCollection } = useStoreOwner(api, getContainer, env)
    const editQuantity = (orderId: string, quantity: number) => editFirstItem(orderId, { quantity })

    /** An order paid (30 EUR), captured, then edited up to two T-shirts: it owes 25. */
    async function capturedThenEditedUp() {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())
      expect((await post(`/admin/payments/${payment.id}/capture`, {})).status).toBe(200)
      await editQuantity(orderId, 2)
      return { orderId, payment }
    }

    /** The order's collections and their payments and sessions, as Medusa records them. */
    async function orderMoney(orderId: string) {
      const { data } = await getContainer()
        .resolve("query")
        .graph({
          entity: "order",
          fields: [
            "id",
            "total",
            "payment_status",
            "summary.*",
            "payment_collections.*",
            "payment_collections.payment_sessions.*",
            "payment_collections.payments.*",
            "payment_collections.payments.captures.*",
            "payment_collections.payments.refunds.*",
          ],
          filters: { id: orderId },
        })
      return data[0] as any
    }

    const unpaidCollection = async (orderId: string) =>
      (await orderMoney(orderId)).payment_collections.find((c: any) => c.status === "not_paid")

    /** Every record the service holds, as comparable rows. */
    const serviceRecords = () =>
      env
        .sandbox()
        .transactions()
        .map((r) => ({
          transactionId: r.transactionId,
          originalTransactionId: r.originalTransactionId,
          step: r.step,
          status: r.status,
          amount: r.amount,
          captureStatus: r.captureStatus,
        }))

    /** The service's follow-ons of a transaction, as [step, status]. */
    const followOnsOf = (transactionId: string) =>
      env
        .sandbox()
        .transactions()
        .filter((r) => r.originalTransactionId === transactionId)
        .map((r) => [r.step, r.status])

    /**
     * The customer opens the hosted page at `payUrl` now and posts its form
     * later (payOnFormOpenedEarlier). The service's callbacks are dropped
     * from here on, so only the browser's return reports the result.
     */
    async function formOpenedEarlier(payUrl: string) {
      const opened = await request(payUrl)
      const form = formOfPage(await opened.body.text())
      env.sandbox().setCallbackKnobs({ drop: true })
      return form
    }

    /** The form opened earlier, posted with the approved card: the service's approval and where the return route lands. */
    async function payOnFormOpenedEarlier(form: ReturnType<typeof formOfPage>) {
      const { serviceLocation } = await postPaymentForm(form, CARDS.approved)
      const approval = new URL(serviceLocation as string).searchParams.get("transactionId") as string
      const back = await request(serviceLocation as string)
      await back.body.dump()
      return { approval, landed: new URL(String(back.headers.location)) }
    }

    it("collects exactly the difference of an order captured, then edited up, on the hosted page; nothing else moves", async () => {
      const { orderId, payment } = await capturedThenEditedUp()
      const edited = await orderMoney(orderId)
      expect(Number(edited.total)).toBe(55)
      expect(Number(edited.summary.pending_difference)).toBe(25)
      const owed = await unpaidCollection(orderId)
      expect(Number(owed.amount)).toBe(25)
      expect(owed.payment_sessions).toEqual([])
      const before = serviceRecords()

      // Medusa's own route: a session of the provider on the order's collection.
      const session = await sessionOnCollection(owed.id)
      expect(session).toMatchObject({ provider_id: CARD_SERVICE_PROVIDER_ID, status: "pending" })
      expect(Number(session.amount)).toBe(25)
      expect(session.data.pay_url).toBe(`${env.backendUrl()}/card-service/pay/${session.id}`)

      const paid = await payOnHostedPage(session.data.pay_url, CARDS.approved)

      // The page asked for the 25 EUR owed, prefilled from the order.
      expect(paid.html).toContain("€25.00")
      expect(paid.html).toContain('value="Ada"')
      expect(paid.landed?.searchParams.get("status")).toBe("paid")
      expect(paid.landed?.searchParams.get("order_id")).toBe(orderId)
      const after = await orderMoney(orderId)
      const collection = after.payment_collections.find((c: any) => c.id === owed.id)
      expect(collection).toMatchObject({ status: "authorized" })
      expect(Number(collection.authorized_amount)).toBe(25)
      expect(collection.payments).toHaveLength(1)
      expect(Number(collection.payments[0].amount)).toBe(25)
      expect(collection.payment_sessions.map((s: any) => s.status)).toEqual(["authorized"])
      // At the service: one new approval, of exactly 25 EUR, this session's;
      // the first payment's approval and capture as they were.
      const records = serviceRecords()
      const added = records.filter((r) => !before.some((b) => b.transactionId === r.transactionId))
      expect(added).toEqual([
        expect.objectContaining({ step: "AUTHORIZATION", status: "successful", amount: 25 }),
      ])
      expect(added[0].transactionId).toBe(collection.payments[0].data.transaction_id)
      expect(records.filter((r) => before.some((b) => b.transactionId === r.transactionId))).toEqual(before)
      // In Medusa: the first payment still captured once, nothing refunded;
      // the order still owes 25 until the owner captures the new payment.
      const first = after.payment_collections
        .flatMap((c: any) => c.payments)
        .find((p: any) => p.id === payment.id)
      expect(first.captures.map((c: any) => Number(c.amount))).toEqual([30])
      expect(first.refunds).toEqual([])
      expect(Number(after.summary.pending_difference)).toBe(25)

      // The owner captures it as any other payment: the order owes nothing.
      expect((await post(`/admin/payments/${collection.payments[0].id}/capture`, {})).status).toBe(200)
      expect(Number((await orderMoney(orderId)).summary.pending_difference)).toBe(0)
      expect(
        serviceRecords().filter((r) => !before.some((b) => b.transactionId === r.transactionId)).map((r) => [r.step, r.amount])
      ).toEqual([
        ["AUTHORIZATION", 25],
        ["CAPTURE", 25],
      ])
    })

    it("gives the widget a link for what the order owes, refuses it once the order is edited again, and collects the new amount through a new link", async () => {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())
      expect((await post(`/admin/payments/${payment.id}/capture`, {})).status).toBe(200)
      expect((await get(`/admin/card-service/orders/${orderId}/outstanding`)).data).toEqual({ outstanding: null })
      expect((await post(`/admin/card-service/orders/${orderId}/outstanding`)).status).toBe(409)

      await editQuantity(orderId, 2)
      const owed = await unpaidCollection(orderId)
      expect((await get(`/admin/card-service/orders/${orderId}/outstanding`)).data).toEqual({
        outstanding: {
          order_id: orderId,
          payment_collection_id: owed.id,
          amount: 25,
          currency_code: "eur",
          status: "not_paid",
          provider_id: CARD_SERVICE_PROVIDER_ID,
          link: null,
        },
      })
      const made = await post(`/admin/card-service/orders/${orderId}/outstanding`)
      expect(made.status).toBe(200)
      const first = made.data.outstanding.link
      expect(first).toMatchObject({ out_of_date: false })
      expect(first.pay_url).toBe(`${env.backendUrl()}/card-service/pay/${first.session_id}`)
      expect((await get(`/admin/card-service/orders/${orderId}/outstanding`)).data.outstanding.link).toEqual(first)

      // Edited again before the customer paid: Medusa moves the collection
      // to the new difference (50) and leaves the session at 25.
      await editQuantity(orderId, 3)
      expect(Number((await unpaidCollection(orderId)).amount)).toBe(50)
      const stale = await request(first.pay_url)
      expect(stale.statusCode).toBe(409)
      expect(await stale.body.text()).toContain("Payment cannot continue")
      const listed = (await get(`/admin/card-service/orders/${orderId}/outstanding`)).data.outstanding
      expect(listed).toMatchObject({ amount: 50, link: { session_id: first.session_id, out_of_date: true } })

      const renewed = (await post(`/admin/card-service/orders/${orderId}/outstanding`)).data.outstanding
      expect(renewed.link.session_id).not.toBe(first.session_id)
      // Medusa's workflow deleted the earlier session: its link is gone.
      expect((await request(first.pay_url)).statusCode).toBe(404)
      const paid = await payOnHostedPage(renewed.link.pay_url, CARDS.approved)

      expect(paid.html).toContain("€50.00")
      expect(paid.landed?.searchParams.get("status")).toBe("paid")
      const collection = (await orderMoney(orderId)).payment_collections.find((c: any) => c.id === owed.id)
      expect(collection.status).toBe("authorized")
      expect(collection.payments.map((p: any) => Number(p.amount))).toEqual([50])
      expect((await get(`/admin/card-service/orders/${orderId}/outstanding`)).data).toEqual({ outstanding: null })
      // Paid: the link now says so.
      const again = await request(renewed.link.pay_url)
      expect(again.statusCode).toBe(409)
      expect(await again.body.text()).toContain("Already paid")
    })

    it("offers no link for an order on hold: its cart's collection waits for the review's verdict, which is no amount to collect", async () => {
      const card = TEST_CARDS.find((c) => c.reviewVerdict === "approve")!
      const { store, session } = await cartWithSession(api, getContainer())
      const paid = await payLikeABrowser(api, store.publishableKey, session.id, card)
      const orderId = paid.storefrontLocation?.searchParams.get("order_id") as string
      expect(paid.storefrontLocation?.searchParams.get("payment")).toBe("under_review")
      const held = await orderMoney(orderId)
      expect(held.payment_collections.map((c: any) => c.status)).not.toContain("authorized")
      expect(Number(held.summary.pending_difference)).toBe(30)

      expect((await get(`/admin/card-service/orders/${orderId}/outstanding`)).data).toEqual({ outstanding: null })
      expect((await post(`/admin/card-service/orders/${orderId}/outstanding`)).status).toBe(409)
    })

    it("collects the whole new total of an order edited up before capture (Medusa released the first approval)", async () => {
      const { orderId, payment } = await checkoutToOrder(api, getContainer())

      await editQuantity(orderId, 2)
      // Medusa cancels the authorized collection (the plugin reverses its
      // approval) and asks for the whole 55 EUR in a new one.
      const reversals = env
        .sandbox()
        .transactions()
        .filter((r) => r.step === "REVERSAL" && r.originalTransactionId === payment.data.transaction_id)
      expect(reversals.map((r) => [r.status, r.amount])).toEqual([["successful", 30]])
      const outstanding = (await get(`/admin/card-service/orders/${orderId}/outstanding`)).data.outstanding
      expect(outstanding).toMatchObject({ amount: 55, link: null })
      const link = (await post(`/admin/card-service/orders/${orderId}/outstanding`)).data.outstanding.link

      const paid = await payOnHostedPage(link.pay_url, CARDS.approved)

      expect(paid.landed?.searchParams.get("status")).toBe("paid")
      const after = await orderMoney(orderId)
      const collection = after.payment_collections.find((c: any) => c.id === outstanding.payment_collection_id)
      expect(collection.status).toBe("authorized")
      expect(collection.payments.map((p: any) => Number(p.amount))).toEqual([55])
      expect(env.sandbox().transaction(collection.payments[0].data.transaction_id)).toMatchObject({
        step: "AUTHORIZATION",
        status: "successful",
        amount: 55,
      })
      // The order as the admin shows it: its payment authorized.
      expect((await get(`/admin/orders/${orderId}?fields=payment_status`)).data.order.payment_status).toBe("authorized")
    })

    describe("a session whose terms Medusa's record of it no longer has", () => {
      it.each([
        ["amount", { amount: 24 }],
        ["currency", { currency_code: "usd" }],
      ])(
        "the hosted page refuses it (another %s), and an approval made on a form opened before is reversed, authorizing nothing",
        async (_, change) => {
          const { orderId } = await capturedThenEditedUp()
          const owed = await unpaidCollection(orderId)
          const session = await sessionOnCollection(owed.id)
          const form = await formOpenedEarlier(session.data.pay_url)
          // Medusa's record moves while the sealed data keeps 25 EUR.
          await (getContainer().resolve("payment") as any).paymentSessionService_.update({ id: session.id, ...change })
          const requestsBefore = env.sandbox().requests().length

          const refused = await request(session.data.pay_url)
          const refusedPage = await refused.body.text()
          expect(refused.statusCode).toBe(409)
          expect(refusedPage).toContain("Payment cannot continue")
          expect(refusedPage).not.toContain("card-service-form")
          // Refused before anything was asked of the service (no form code).
          expect(env.sandbox().requests().length).toBe(requestsBefore)

          const { approval, landed } = await payOnFormOpenedEarlier(form)

          // The service approved the 25 EUR sealed in the form.
          expect(env.sandbox().transaction(approval)).toMatchObject({ status: "successful", amount: 25 })
          expect(landed.searchParams.get("status")).toBe("failed")
          expect(landed.searchParams.get("reason_code")).toBe("tampered")
          const collection = (await orderMoney(orderId)).payment_collections.find((c: any) => c.id === owed.id)
          expect(collection.status).toBe("not_paid")
          expect(collection.payments).toEqual([])
          expect(collection.payment_sessions[0].authorized_at).toBeFalsy()
          expect(followOnsOf(approval)).toEqual([["REVERSAL", "successful"]])
        }
      )
    })

    it("reverses an approval for what the order no longer owes (it was canceled after the link was opened)", async () => {
      const { orderId, payment } = await capturedThenEditedUp()
      const link = (await post(`/admin/card-service/orders/${orderId}/outstanding`)).data.outstanding.link
      const form = await formOpenedEarlier(link.pay_url)
      expect((await post(`/admin/orders/${orderId}/cancel`)).status).toBe(200)
      expect((await request(link.pay_url)).statusCode).toBe(404)

      const { approval, landed } = await payOnFormOpenedEarlier(form)

      expect(landed.searchParams.get("status")).toBe("failed")
      expect(landed.searchParams.get("reason_code")).toBe("balance_closed")
      const money = await orderMoney(orderId)
      expect(money.payment_collections.flatMap((c: any) => c.payments).filter((p: any) => p.id !== payment.id)).toEqual([])
      expect(followOnsOf(approval)).toEqual([["REVERSAL", "successful"]])
    })

    describe("in a real browser (Debian's chromium)", () => {
      const browser = useChromium()

      it("the customer opens the link the owner copied, pays with a 3DS challenge, and the order's new collection is authorized", async () => {
        const { orderId } = await capturedThenEditedUp()
        const link = (await post(`/admin/card-service/orders/${orderId}/outstanding`)).data.outstanding.link
        const page = await browser().newPage({ viewport: { width: 390, height: 844 } })

        await page.goto(link.pay_url)
        await expect(page.locator("h1").textContent()).resolves.toBe("Pay €25.00")
        await expect(page.inputValue('input[name="firstName"]')).resolves.toBe("Ada")
        await fillCard(page, CHALLENGE_CARD)
        await page.screenshot({ path: path.join(SCREENSHOTS, "order-edit-payment-page.png"), fullPage: true })
        await submitThroughChallenge(page, env.storefrontUrl())

        await expect(page.textContent("#order-id")).resolves.toBe(orderId)
        const collection = (await orderMoney(orderId)).payment_collections.find((c: any) =>
          c.payment_sessions.some((s: any) => s.id === link.session_id)
        )
        expect(collection.status).toBe("authorized")
        expect(collection.payments.map((p: any) => Number(p.amount))).toEqual([25])
        expect(env.sandbox().transaction(collection.payments[0].data.transaction_id)).toMatchObject({
          status: "successful",
          amount: 25,
          cardSuffix: "1008",
        })
        await page.close()
      })
    })
  },
})
