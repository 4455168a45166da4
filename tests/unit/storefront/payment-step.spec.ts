import {
  cardServicePaymentError,
  cardServiceSessionInput,
  isCardService,
} from "../../../src/storefront"

describe("the payment step's helpers", () => {
  it.each([
    ["pp_card-service_card-service", true],
    ["pp_card-service_card-service-authorize", true],
    ["pp_system_default", false],
    ["pp_stripe_stripe", false],
    [undefined, false],
  ])("isCardService(%j) is %j", (id, expected) => {
    expect(isCardService(id)).toBe(expected)
  })

  it.each([
    ["/dk/checkout", "https://shop.test/dk/checkout/card-service"],
    ["/se/checkout/", "https://shop.test/se/checkout/card-service"],
    ["/checkout", "https://shop.test/checkout/card-service"],
    ["/shop/fr/checkout", "https://shop.test/shop/fr/checkout/card-service"],
  ])("on %s the session returns to %s", (pathname, returnTo) => {
    expect(
      cardServiceSessionInput("pp_card-service_card-service", {
        origin: "https://shop.test",
        pathname,
      })
    ).toEqual({
      provider_id: "pp_card-service_card-service",
      data: { return_to: returnTo },
    })
  })

  it("leaves another provider's input alone", () => {
    expect(
      cardServiceSessionInput("pp_system_default", {
        origin: "https://shop.test",
        pathname: "/dk/checkout",
      })
    ).toEqual({ provider_id: "pp_system_default" })
  })

  it("shows the shopper's sentence for the code the return route put in the URL, chosen by code", () => {
    expect(
      cardServicePaymentError(
        new URLSearchParams("step=payment&payment_error=cart_changed")
      )
    ).toMatch(/Your cart changed while you were paying/)
    expect(
      cardServicePaymentError(
        new URLSearchParams("payment_error=<b>You won</b>")
      )
    ).toBe(
      "The payment did not go through. Please try again or use another card."
    )
    expect(
      cardServicePaymentError(new URLSearchParams("step=payment"))
    ).toBeNull()
    expect(cardServicePaymentError(null)).toBeNull()
  })
})
