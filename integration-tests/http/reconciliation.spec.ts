import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { useCardServiceSandbox } from "../helpers/card-service-env"
import { payLikeABrowser } from "../helpers/browser-step"
import { CARDS, cartWithSession, orderOfCart } from "../helpers/checkout-flow"
import { sweepCardServicePayments } from "../../src/reconciliation/sweep"

jest.setTimeout(180_000)

// The cron must not sweep behind the tests' backs: they call the sweep
// themselves and assert what that one call did. ("off", not a rare cron:
// Medusa's in-memory scheduler overflows setTimeout for runs more than
// about 24 days away and then fires at once.)
process.env.CARD_SERVICE_RECONCILE_SCHEDULE = "off"

const env = useCardServiceSandbox()

const GRACE_MS = 15 * 60 * 1000

/**
 * Issue 14: the sweep, from the fault to the final Medusa state. Each test
 * calls the sweep directly instead of waiting for the cron.
 */
medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    const sandbox = () => env.sandbox()
    beforeEach(() => sandbox().resetKnobs())

    const sessionOf = async (id: string) => {
      const [session] = await getContainer()
        .resolve("payment")
        .listPaymentSessions(
          { id },
          { select: ["id", "status", "data", "metadata"] }
        )
      return session
    }
    const sweep = (now = new Date()) =>
      sweepCardServicePayments(getContainer(), { now })

    it("makes the order from a callback that arrived while retrieve answered 503, with no further delivery and no return", async () => {
      const { store, cart, session } = await cartWithSession(
        api,
        getContainer()
      )
      // One delivery only, and retrieve down while it is handled.
      sandbox().setCallbackKnobs({ retries: 0 })
      sandbox().injectFault({
        type: "status",
        status: 503,
        count: 20,
        path: "/payment/retrieve",
      })

      const paid = await payLikeABrowser(
        api,
        store.publishableKey,
        session.id,
        CARDS.approved,
        {
          followReturn: false,
        }
      )
      const [delivery] = await sandbox().waitForCallbacks(
        (d) =>
          d.some((c) => c.url.includes(session.id) && c.status !== undefined),
        20_000
      )
      sandbox().clearFaults()
      const transactionId = new URL(
        paid.serviceLocation as string
      ).searchParams.get("transactionId")

      expect(delivery.status).toBe(503)
      expect(await orderOfCart(getContainer(), cart.id)).toBeNull()
      // The hint was noted before verification failed.
      expect(
        (await sessionOf(session.id)).metadata?.card_service?.hint
      ).toMatchObject({
        transaction_id: transactionId,
        source: "callback",
      })

      const first = await sweep()
      const orderId = await orderOfCart(getContainer(), cart.id)

      expect(orderId).toMatch(/^order_/)
      expect(first.actions).toEqual([
        expect.objectContaining({
          session_id: session.id,
          status: "order_created",
        }),
      ])
      expect(first.actions[0].message).toContain(orderId)
      const after = await sessionOf(session.id)
      expect(after.status).toBe("authorized")
      expect(after.metadata?.card_service?.hint).toBeUndefined()
      expect(after.metadata?.card_service?.reconcile).toMatchObject({
        status: "order_created",
      })
      // No further delivery was needed (nor made).
      expect(
        sandbox()
          .callbacks()
          .filter((c) => c.url.includes(session.id))
      ).toHaveLength(1)

      // Idempotent: a second sweep finds nothing to do for this session.
      const second = await sweep()
      expect(second.actions.filter((a) => a.session_id === session.id)).toEqual(
        []
      )
      expect(await orderOfCart(getContainer(), cart.id)).toBe(orderId)
    })

    it("stops at the first outage, makes nothing, and reports the service down", async () => {
      const { store, cart, session } = await cartWithSession(
        api,
        getContainer()
      )
      sandbox().setCallbackKnobs({ retries: 0 })
      sandbox().injectFault({
        type: "status",
        status: 503,
        count: 50,
        path: "/payment/retrieve",
      })
      await payLikeABrowser(
        api,
        store.publishableKey,
        session.id,
        CARDS.approved,
        {
          followReturn: false,
        }
      )
      await sandbox().waitForCallbacks(
        (d) =>
          d.some((c) => c.url.includes(session.id) && c.status !== undefined),
        20_000
      )

      const down = await sweep()
      expect(down.serviceDown).toBe(true)
      expect(down.actions.filter((a) => a.session_id === session.id)).toEqual(
        []
      )
      expect(await orderOfCart(getContainer(), cart.id)).toBeNull()
      // The hint survives the failed verification for the next sweep.
      expect(
        (await sessionOf(session.id)).metadata?.card_service?.hint
      ).toBeDefined()

      sandbox().clearFaults()
      const up = await sweep()
      expect(up.serviceDown).toBe(false)
      expect(await orderOfCart(getContainer(), cart.id)).toMatch(/^order_/)
    })

    it("marks a session with attempts but no callback and no return as outcome unknown after the grace period, with the reference", async () => {
      const { store, cart, session } = await cartWithSession(
        api,
        getContainer()
      )
      sandbox().setCallbackKnobs({ drop: true })
      const paid = await payLikeABrowser(
        api,
        store.publishableKey,
        session.id,
        CARDS.approved,
        {
          followReturn: false,
        }
      )
      const reference = paid.fields.merchantReferenceCode

      const early = await sweep(new Date(Date.now() + GRACE_MS - 60_000))
      expect(early.actions.filter((a) => a.session_id === session.id)).toEqual(
        []
      )

      const late = await sweep(new Date(Date.now() + GRACE_MS + 60_000))
      expect(late.actions.filter((a) => a.session_id === session.id)).toEqual([
        expect.objectContaining({ status: "outcome_unknown" }),
      ])
      const note = (await sessionOf(session.id)).metadata?.card_service
        ?.reconcile
      expect(note).toMatchObject({
        status: "outcome_unknown",
        references: [reference],
      })
      expect(await orderOfCart(getContainer(), cart.id)).toBeNull()

      // Marked once: the next sweep does not report it again.
      const again = await sweep(new Date(Date.now() + GRACE_MS + 120_000))
      expect(again.actions.filter((a) => a.session_id === session.id)).toEqual(
        []
      )
    })
  },
})
