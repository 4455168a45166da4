import {
  fieldId,
  paymentPageCsp,
  prefilledBillingFields,
  renderPaymentPage,
  type PaymentPageInput,
} from "../../../src/lib/checkout-pages/payment-page-html"
import { createTranslator } from "../../../src/lib/i18n"

const BILLING = {
  firstName: "Ada",
  lastName: "Lovelace",
  email: "ada@example.com",
  phone: "+4930123456",
  address: "Unter den Linden 1",
  city: "Berlin",
  postalCode: "10117",
  country: "DE",
}

function render(
  overrides: Partial<PaymentPageInput> = {},
  language = "en"
): string {
  return renderPaymentPage({
    action: "https://test.card.example/order/start",
    hidden: { merchantId: "m", amount: "17.40" },
    billing: BILLING,
    amount: 17.4,
    currencyCode: "eur",
    storeName: "Muster & Co",
    scriptUrl: "/card-service/assets/pay-page.js",
    nonce: "abc",
    cancelUrl: "https://shop.example",
    currentYear: 2031,
    text: createTranslator({ candidates: [language] }),
    ...overrides,
  })
}

/** The HTML of the element with this id, up to its closing tag. */
function element(html: string, id: string, tag: string): string {
  const start = html.indexOf(`id="${id}"`)
  expect(start).toBeGreaterThan(-1)
  return html.slice(
    html.lastIndexOf("<", start),
    html.indexOf(`</${tag}>`, start) + tag.length + 3
  )
}

describe("renderPaymentPage", () => {
  it("speaks the shopper's language: lang, Intl amount, labels", () => {
    const html = render({}, "de-DE")
    expect(html).toContain('<html lang="de-DE">')
    expect(html).toContain("<h1>17,40\u00a0€ bezahlen</h1>")
    expect(html).toContain(
      '<button type="submit" id="pay-button">17,40\u00a0€ bezahlen</button>'
    )
    expect(html).toContain('<label for="card-number">Kartennummer</label>')
    expect(html).toContain(
      'data-msg-card-number="Diese Kartennummer ist ungültig. Bitte prüfen Sie sie."'
    )
    expect(html).not.toMatch(/Pay |EUR 17/)
  })

  it("offers no expiry date until the shopper chooses one, in a labelled group", () => {
    const html = render()
    const month = element(html, "expiry-month", "select")
    const year = element(html, "expiry-year", "select")
    for (const select of [month, year]) {
      expect(select).toContain(" required")
      expect(select).toMatch(/^<select[^>]*><option value="">/)
      expect(select).not.toContain("selected")
    }
    expect(year).toContain('<option value="2031">2031</option>')
    expect(year).not.toContain("2030")
    expect(html).toMatch(
      /<fieldset>\s*<legend>Expiry date<\/legend>[\s\S]*id="expiry-month"/
    )
    expect(element(html, "card-type", "select")).toMatch(
      /^<select[^>]*><option value="">Choose the company/
    )
  })

  it("gives the fields their types and autofill names", () => {
    const html = render()
    expect(html).toMatch(
      /<input id="email" name="email" type="email"[^>]*autocomplete="email"/
    )
    expect(html).toMatch(
      /<input id="phone" name="phone" type="tel"[^>]*autocomplete="tel"/
    )
    expect(html).toMatch(
      /<input id="first-name" name="firstName" value="Ada" autocomplete="cc-given-name" required>/
    )
    expect(html).toMatch(
      /<input id="last-name" name="lastName" value="Lovelace" autocomplete="cc-family-name" required>/
    )
    expect(html).toMatch(
      /<input id="card-number" name="cardAccountNumber" inputmode="numeric" autocomplete="cc-number"/
    )
    expect(html).toMatch(/<option value="DE" selected>Germany<\/option>/)
  })

  it("collapses the billing fields the cart gave behind 'Edit billing address', with a summary", () => {
    const html = render()
    const details = element(html, "billing-details", "details")
    expect(details).toMatch(
      /^<details id="billing-details"><summary>Edit billing address<\/summary>/
    )
    for (const name of [
      "address",
      "postal-code",
      "city",
      "state",
      "country",
      "email",
      "phone",
    ]) {
      expect({ name, inside: details.includes(`id="${name}"`) }).toEqual({
        name,
        inside: true,
      })
    }
    expect(element(html, "billing-summary", "p")).toBe(
      '<p class="address" id="billing-summary">Unter den Linden 1, 10117 Berlin, Germany<br>ada@example.com · +4930123456</p>'
    )
    // The card fields and Pay come first; billing follows.
    expect(html.indexOf('id="card-number"')).toBeLessThan(
      html.indexOf('id="billing-details"')
    )
  })

  it("keeps in view what the cart did not give (or gave wrong), so no required field hides", () => {
    const html = render({
      billing: {
        ...BILLING,
        phone: "",
        email: "not-an-address",
        country: "XX",
      },
    })
    const details = element(html, "billing-details", "details")
    expect(details).toContain('id="address"')
    for (const name of ["phone", "email", "country"]) {
      expect({ name, inside: details.includes(`id="${name}"`) }).toEqual({
        name,
        inside: false,
      })
      expect(html).toContain(`id="${name}"`)
    }
    expect(element(html, "billing-summary", "p")).not.toContain(
      "not-an-address"
    )
  })

  it("shows every field openly when the cart gave no address", () => {
    const html = render({ billing: {} })
    expect(html).not.toContain("<details")
    expect(html).not.toContain("billing-summary")
    expect(html).toContain('<input id="address" name="address" value=""')
  })

  it("says why the last attempt failed, above the form, only when there was one", () => {
    expect(render()).not.toContain("previous-failure")
    const html = render({ previousFailure: "failure.expired" }, "nl")
    const notice = element(html, "previous-failure", "div")
    expect(notice).toContain('role="alert"')
    expect(notice).toContain("Je laatste betaling is niet gelukt.")
    expect(notice).toContain("de kaart is verlopen")
    expect(html.indexOf("previous-failure")).toBeLessThan(html.indexOf("<form"))
  })

  it("escapes what it did not write itself", () => {
    const html = render({
      storeName: '<script>alert("x")</script>',
      billing: { ...BILLING, address: '"><img src=x onerror=alert(1)>' },
      hidden: { merchantReferenceCode: '"><b>' },
    })
    expect(html).not.toContain("<script>alert")
    expect(html).not.toContain("<img src=x")
    expect(html).not.toContain('"><b>')
    expect(html).toContain("&lt;script&gt;")
  })
})

describe("prefilledBillingFields", () => {
  it.each([
    [{ country: "US", state: "" }, false],
    [{ country: "US", state: "CA" }, true],
    [{ country: "DE", state: "" }, true],
    [{ country: "", state: "" }, false],
  ])("state with %j counts as given: %s", (fields, given) => {
    expect(prefilledBillingFields({ ...BILLING, ...fields }).has("state")).toBe(
      given
    )
  })
})

describe("fieldId and paymentPageCsp", () => {
  it("turns field names into ids", () => {
    expect(fieldId("postalCode")).toBe("postal-code")
    expect(fieldId("cardAccountNumber")).toBe("card-account-number")
  })

  it("lets the form post to the service and the return hops only", () => {
    const csp = paymentPageCsp({
      action: "https://test.card.example/order/start",
      nonce: "n",
      returnOrigins: ["https://shop.example/checkout"],
    })
    expect(csp).toContain(
      "form-action https://test.card.example 'self' https://shop.example"
    )
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("style-src 'nonce-n'")
  })
})
