import {
  billingFromCart,
  paymentFormFields,
} from "../../../src/providers/card-service/form-fields"
import CardServiceProviderService from "../../../src/providers/card-service/service"
import type { CardServiceSessionData } from "../../../src/providers/card-service/session-data"

const address = {
  first_name: " Ada ",
  last_name: "Lovelace",
  address_1: "Unter den Linden 1",
  address_2: "Hinterhaus",
  city: "Berlin",
  postal_code: "10117",
  province: "BE",
  country_code: "de",
  phone: "+49 30 1234567",
}

describe("billingFromCart", () => {
  it("prefills from the billing address when it has a country", () => {
    expect(
      billingFromCart({
        email: "ada@example.com",
        billing_address: address,
        shipping_address: {
          ...address,
          first_name: "Shipping",
          country_code: "fr",
        },
      })
    ).toEqual({
      firstName: "Ada",
      lastName: "Lovelace",
      address: "Unter den Linden 1, Hinterhaus",
      city: "Berlin",
      postalCode: "10117",
      phone: "+49 30 1234567",
      email: "ada@example.com",
      country: "DE",
    })
  })

  it.each([
    ["no billing address", null],
    ["a billing address without a country", { first_name: "Billing" }],
  ])("falls back to the shipping address with %s", (_, billing) => {
    const details = billingFromCart({
      billing_address: billing,
      shipping_address: { ...address, first_name: "Grace", country_code: "gb" },
    })
    expect(details).toMatchObject({ firstName: "Grace", country: "GB" })
  })

  it.each([
    ["us", "us-ca", "US", "CA"],
    ["us", "NY", "US", "NY"],
    ["ca", "qc", "CA", "QC"],
    ["usa", "CA", "US", "CA"],
    ["deu", "BY", "DE", undefined],
    ["fr", "IDF", "FR", undefined],
    ["us", "", "US", undefined],
  ])(
    "country %s, province %j -> country %s, state %s",
    (country, province, alpha2, state) => {
      const details = billingFromCart({
        shipping_address: { ...address, country_code: country, province },
      })
      expect(details.country).toBe(alpha2)
      expect(details.state).toBe(state)
      expect("state" in details).toBe(state !== undefined)
    }
  )

  it("leaves an unknown country for the shopper to choose", () => {
    const details = billingFromCart({
      shipping_address: { ...address, country_code: "zz" },
    })
    expect(details.country).toBeUndefined()
    expect(details.city).toBe("Berlin")
  })

  it("leaves everything empty for a cart with no address", () => {
    expect(billingFromCart({})).toEqual({
      firstName: "",
      lastName: "",
      address: "",
      city: "",
      postalCode: "",
      phone: "",
      email: "",
    })
  })
})

describe("paymentFormFields", () => {
  const provider = (options: Record<string, unknown> = {}) =>
    new CardServiceProviderService(
      { logger: console as any },
      {
        clientCode: "client",
        clientSecret: "client-secret-never-in-a-form",
        verifyId: "verify",
        merchantId: "merchant",
        testUrl: "http://127.0.0.1:9",
        backendUrl: "https://api.shop.example",
        storefrontUrl: "https://shop.example",
        ...options,
      }
    )

  const sessionOf = async (p: CardServiceProviderService) =>
    (
      await p.initiatePayment({
        amount: 10.5,
        currency_code: "eur",
        context: { idempotency_key: "payses_01TEST" },
      } as any)
    ).data as unknown as CardServiceSessionData

  const attempt = {
    merchantReferenceCode: "01TEST.nonce.mac",
    authorization: "code-123",
  }

  it.each([
    [{}, { isWindowed: "N", isRedirect: "Y", isAuthenticate: "Y" }],
    [
      { windowed: true },
      { isWindowed: "Y", isRedirect: "Y", isAuthenticate: "Y" },
    ],
    [
      { redirectOnFailure: false },
      { isWindowed: "N", isRedirect: "N", isAuthenticate: "Y" },
    ],
  ])(
    "carries isWindowed, isRedirect and isAuthenticate explicitly (options %j)",
    async (options, flags) => {
      const fields = paymentFormFields(
        await sessionOf(provider(options)),
        attempt,
        {}
      )
      expect(fields).toMatchObject(flags)
    }
  )

  it("has every hidden field of section 2.2 and no secret", async () => {
    const fields = paymentFormFields(await sessionOf(provider()), attempt, {})
    expect(fields).toEqual({
      merchantId: "merchant",
      verifyId: "verify",
      currency: "978",
      amount: "10.50",
      callbackLocation:
        "https://api.shop.example/card-service/callback/payses_01TEST/",
      redirectUrl:
        "https://api.shop.example/card-service/return/payses_01TEST/",
      isWindowed: "N",
      isRedirect: "Y",
      isAuthenticate: "Y",
      merchantReferenceCode: "01TEST.nonce.mac",
      authorization: "code-123",
    })
    expect(JSON.stringify(fields)).not.toContain(
      "client-secret-never-in-a-form"
    )
  })

  it("adds the non-empty billing fields; state only for US and CA", async () => {
    const session = await sessionOf(provider())
    const us = paymentFormFields(session, attempt, {
      firstName: "Ada",
      lastName: "",
      country: "US",
      state: "CA",
    })
    expect(us).toMatchObject({ firstName: "Ada", country: "US", state: "CA" })
    expect(us).not.toHaveProperty("lastName")
    const ca = paymentFormFields(session, attempt, {
      country: "CA",
      state: "QC",
    })
    expect(ca.state).toBe("QC")
    const de = paymentFormFields(session, attempt, {
      country: "DE",
      state: "BY",
    })
    expect(de).not.toHaveProperty("state")
    const none = paymentFormFields(session, attempt, { state: "CA" })
    expect(none).not.toHaveProperty("state")
  })

  it("lets billing details set billing fields only, never the payment's terms", async () => {
    const session = await sessionOf(provider())
    const fields = paymentFormFields(session, attempt, {
      amount: "0.01",
      callbackLocation: "https://evil.example/",
      merchantReferenceCode: "chosen",
    } as any)
    expect(fields).toMatchObject({
      amount: "10.50",
      callbackLocation:
        "https://api.shop.example/card-service/callback/payses_01TEST/",
      merchantReferenceCode: "01TEST.nonce.mac",
    })
  })
})
