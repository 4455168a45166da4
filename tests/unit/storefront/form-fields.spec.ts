import {
  BILLING_FIELDS,
  CARD_FIELDS,
  cardServiceFormFields,
  CardServiceFormDescriptor,
  CardServiceStorefrontError,
  submitCardServiceForm,
} from "../../../src/storefront"

const descriptor: CardServiceFormDescriptor = {
  action: "https://cards.test/order/start",
  method: "POST",
  enctype: "application/x-www-form-urlencoded",
  fields: {
    merchantId: "m-1",
    verifyId: "v-1",
    authorization: "code-1",
    merchantReferenceCode: "ref-1",
    currency: "978",
    amount: "30.00",
    firstName: "Ada",
    lastName: "Lovelace",
    country: "GB",
    city: "London",
  },
  card_fields: [...CARD_FIELDS],
}
const NOW = new Date("2026-05-15T12:00:00Z")
const card = {
  number: "4000 0000 0000 1000",
  expiryMonth: "3",
  expiryYear: "2029",
}

describe("cardServiceFormFields: what the browser posts", () => {
  it("adds the card (digits only, detected company, MM and YYYY) to every hidden field", () => {
    expect(cardServiceFormFields(descriptor, card, {}, NOW)).toEqual({
      ...descriptor.fields,
      cardAccountNumber: "4000000000001000",
      cardType: "VISA",
      cardExpirationMonth: "03",
      cardExpirationYear: "2029",
    })
  })

  it("lets the detected company win over a wrong choice, and uses the choice when none is detected", () => {
    expect(
      cardServiceFormFields(descriptor, { ...card, cardType: "JCB" }, {}, NOW)
        .cardType
    ).toBe("VISA")
  })

  it("takes a two-digit year and this month as still valid", () => {
    const fields = cardServiceFormFields(
      descriptor,
      { ...card, expiryMonth: 5, expiryYear: "26" },
      {},
      NOW
    )
    expect([fields.cardExpirationMonth, fields.cardExpirationYear]).toEqual([
      "05",
      "2026",
    ])
  })

  it("applies billing edits, drops emptied ones and keeps state for US and CA only", () => {
    const fields = cardServiceFormFields(
      descriptor,
      card,
      {
        city: " Paris ",
        country: "fr",
        state: "IDF",
        lastName: "",
        phone: undefined,
      },
      NOW
    )
    expect(fields).toMatchObject({ city: "Paris", country: "FR" })
    expect(fields).not.toHaveProperty("state")
    expect(fields).not.toHaveProperty("lastName")
    expect(
      cardServiceFormFields(
        descriptor,
        card,
        { country: "US", state: "NY" },
        NOW
      ).state
    ).toBe("NY")
  })

  it("never lets an override change a hidden field", () => {
    const fields = cardServiceFormFields(
      descriptor,
      card,
      { amount: "0.01", merchantReferenceCode: "mine" } as never,
      NOW
    )
    expect(fields).toMatchObject({
      amount: "30.00",
      merchantReferenceCode: "ref-1",
    })
  })

  it.each([
    [{ ...card, number: "4000000000001001" }, "invalid_card_number"],
    [{ ...card, number: "" }, "invalid_card_number"],
    [{ ...card, number: "6212345678901232" }, "unknown_card_type"],
    [{ ...card, expiryMonth: "13" }, "invalid_expiry"],
    [{ ...card, expiryMonth: "" }, "invalid_expiry"],
    [{ ...card, expiryYear: "" }, "invalid_expiry"],
    [{ ...card, expiryMonth: "4", expiryYear: "2026" }, "invalid_expiry"],
  ])("refuses %j with %s", (input, code) => {
    expect(() => cardServiceFormFields(descriptor, input, {}, NOW)).toThrow(
      expect.objectContaining({ code })
    )
  })
})

describe("submitCardServiceForm outside a browser", () => {
  it("refuses an invalid number before it touches the document", () => {
    const createElement = jest.fn()
    const fakeDocument = { body: {}, createElement } as unknown as Document
    expect(() =>
      submitCardServiceForm(
        descriptor,
        { ...card, number: "4000000000001001" },
        {},
        {
          document: fakeDocument,
        }
      )
    ).toThrow(CardServiceStorefrontError)
    expect(createElement).not.toHaveBeenCalled()
  })

  it("says it needs a browser when there is no document (server-side rendering)", () => {
    expect(() =>
      submitCardServiceForm(descriptor, card, {}, { now: NOW })
    ).toThrow(expect.objectContaining({ code: "no_document" }))
  })
})
