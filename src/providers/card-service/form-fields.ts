import {
  BILLING_FIELDS,
  countryTakesState,
  type BillingField,
} from "../../lib/form-field-rules"
import { stateForCountry, toCountryAlpha2 } from "../../lib/iso-codes"
import type { CardServiceSessionData } from "./session-data"

/** The cardholder and billing fields of section 2.2 that the store can prefill. */
export type BillingDetails = Record<Exclude<BillingField, "state">, string> & {
  /** Only for the United States and Canada. */
  state?: string
}

type CartAddress = {
  first_name?: string | null
  last_name?: string | null
  address_1?: string | null
  address_2?: string | null
  city?: string | null
  postal_code?: string | null
  province?: string | null
  country_code?: string | null
  phone?: string | null
}

/** Prefills the billing fields from the cart (billing address, else shipping address). */
export function billingFromCart(cart: {
  email?: string | null
  billing_address?: CartAddress | null
  shipping_address?: CartAddress | null
}): Partial<BillingDetails> {
  const address = cart.billing_address?.country_code
    ? cart.billing_address
    : (cart.shipping_address ?? cart.billing_address ?? {})
  const details: Partial<BillingDetails> = {
    firstName: text(address?.first_name),
    lastName: text(address?.last_name),
    address: [address?.address_1, address?.address_2]
      .filter(Boolean)
      .join(", "),
    city: text(address?.city),
    postalCode: text(address?.postal_code),
    phone: text(address?.phone),
    email: text(cart.email),
  }
  if (address?.country_code) {
    try {
      details.country = toCountryAlpha2(address.country_code)
      const state = stateForCountry(details.country, address.province)
      if (state) details.state = state
    } catch {
      // An unknown country is left for the shopper to choose on the form.
    }
  }
  return details
}

/**
 * Every hidden field of one payment attempt (section 2.2): the session's
 * fixed fields, a fresh merchantReferenceCode, the merchant verification code
 * (section 5.3 puts it in the form), and the prefilled billing fields.
 */
export function paymentFormFields(
  session: CardServiceSessionData,
  attempt: { merchantReferenceCode: string; authorization: string },
  billing: Partial<BillingDetails>
): Record<string, string> {
  const fields: Record<string, string> = {
    ...session.form.fields,
    merchantReferenceCode: attempt.merchantReferenceCode,
    authorization: attempt.authorization,
  }
  for (const name of BILLING_FIELDS) {
    const value = billing[name]
    if (value) fields[name] = value
  }
  if (fields.state && !countryTakesState(fields.country)) {
    delete fields.state
  }
  return fields
}

function text(value: string | null | undefined): string {
  return typeof value === "string" ? value.trim() : ""
}
