/**
 * The rules of the payment form's fields (section 2.2), in one place for the
 * provider (which prefills the form), the hosted payment page and the
 * storefront helper (which posts it). It imports nothing: the storefront
 * bundles it into browsers, where country tables or server code would only
 * add weight.
 */

/** What the shopper types; never sent to the Medusa server. */
export const CARD_FIELDS = [
  "cardAccountNumber",
  "cardType",
  "cardExpirationMonth",
  "cardExpirationYear",
] as const

/** The cardholder and billing fields, in the order a form shows them. */
export const BILLING_FIELDS = [
  "firstName",
  "lastName",
  "email",
  "phone",
  "address",
  "city",
  "postalCode",
  "state",
  "country",
] as const

export type CardField = (typeof CARD_FIELDS)[number]
export type BillingField = (typeof BILLING_FIELDS)[number]

/** Labels and autocomplete tokens for the billing inputs of a form. */
export const BILLING_FIELD_INFO: Readonly<
  Record<
    BillingField,
    { label: string; autocomplete: string; required: boolean }
  >
> = {
  firstName: {
    label: "First name",
    autocomplete: "given-name",
    required: true,
  },
  lastName: { label: "Last name", autocomplete: "family-name", required: true },
  email: { label: "E-mail", autocomplete: "email", required: true },
  phone: { label: "Phone", autocomplete: "tel", required: true },
  address: { label: "Address", autocomplete: "street-address", required: true },
  city: { label: "City", autocomplete: "address-level2", required: true },
  postalCode: {
    label: "Postal code",
    autocomplete: "postal-code",
    required: true,
  },
  state: {
    label: "State (US and Canada only)",
    autocomplete: "address-level1",
    required: false,
  },
  country: {
    label: "Country (2 letters)",
    autocomplete: "country",
    required: true,
  },
}

/** Whether `state` may be sent: section 2.2 takes it for the United States and Canada only. */
export function countryTakesState(country: string | undefined): boolean {
  const code = (country ?? "").trim().toUpperCase()
  return code === "US" || code === "CA"
}

/** True for the names of BILLING_FIELDS. */
export function isBillingField(name: string): name is BillingField {
  return (BILLING_FIELDS as readonly string[]).includes(name)
}
