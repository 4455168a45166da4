import { renderToStaticMarkup } from "react-dom/server"
import {
  CardServiceOrderNotice,
  isOrderOnHold,
} from "../../../src/storefront/react/card-service-order-notice"

/** Issue 31: the order page of an order on hold says its payment is under review. */
describe("CardServiceOrderNotice", () => {
  it.each([
    // What storefront-example fetches (payment_status).
    [{ payment_status: "awaiting", payment_collections: [{ payments: [] }] }, true],
    [{ payment_status: "authorized", payment_collections: [{ payments: [{}] }] }, false],
    [{ payment_status: "captured" }, false],
    // What Medusa's starter fetches: *payment_collections.payments, no payment_status.
    [{ payment_collections: [{ payments: [] }] }, true],
    [{ payment_collections: [{ payments: [{ id: "pay_1" }] }] }, false],
    [{ payment_collections: [] }, false],
    [{}, false],
    // A canceled order (rejected, or no verdict in time) is not on hold.
    [{ status: "canceled", payment_status: "awaiting", payment_collections: [{ payments: [] }] }, false],
  ])("%j -> on hold: %s", (order, onHold) => {
    expect(isOrderOnHold(order)).toBe(onHold)
  })

  it("says so for an order on hold, and nothing for any other", () => {
    const held = renderToStaticMarkup(<CardServiceOrderNotice order={{ payment_status: "awaiting" }} />)
    expect(held).toContain("Your payment is being reviewed by the card service.")
    expect(held).toContain('role="status"')
    expect(renderToStaticMarkup(<CardServiceOrderNotice order={{ payment_status: "authorized" }} />)).toBe("")
  })

  it("takes the store's own sentence", () => {
    const html = renderToStaticMarkup(
      <CardServiceOrderNotice order={{ payment_status: "awaiting" }} text="Zahlung wird geprüft." />
    )
    expect(html).toContain("Zahlung wird geprüft.")
  })
})
