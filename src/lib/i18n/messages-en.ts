/**
 * Everything the hosted payment page, its script and the return path say to
 * a shopper, in English. English is the reference catalogue: its keys are
 * the keys of every other language and of the `messages` provider option,
 * and it fills any key a store owner's own language leaves out.
 *
 * `{name}` marks a value filled in at render time (an amount, the shop's
 * name). Amounts and dates are never written here: Intl formats them for the
 * shopper's locale.
 */
export const en = {
  "page.title": "Pay {amount} - {store}",
  "page.heading": "Pay {amount}",
  "page.privacy":
    "{store} · Your card details go straight to the card service; this shop never sees them.",
  "card.legend": "Card",
  "card.number": "Card number",
  "card.type": "Card company",
  "card.typePlaceholder": "Choose the company",
  "card.firstName": "First name",
  "card.lastName": "Last name",
  "expiry.legend": "Expiry date",
  "expiry.month": "Month",
  "expiry.year": "Year",
  "expiry.monthPlaceholder": "MM",
  "expiry.yearPlaceholder": "YYYY",
  "billing.heading": "Billing address",
  "billing.edit": "Edit billing address",
  "billing.email": "E-mail",
  "billing.phone": "Phone",
  "billing.address": "Street and house number",
  "billing.city": "City",
  "billing.postalCode": "Postal code",
  "billing.state": "State or province (US and Canada only)",
  "billing.country": "Country",
  "billing.countryPlaceholder": "Choose a country",
  "pay.button": "Pay {amount}",
  "pay.back": "Back to the shop",
  "error.summary": "Please check the fields marked below.",
  "error.required": "Please fill in this field.",
  "error.choose": "Please choose one.",
  "error.cardNumber": "This card number is not valid. Please check it.",
  "error.email": "Enter an e-mail address such as name@example.com.",
  "error.expired": "This expiry date has passed. Check the date on your card.",
  "error.format": "Please check what you entered here.",
  "previous.heading": "Your last payment did not go through",
  "failure.declined": "Your bank declined the payment. Try another card.",
  "failure.expired":
    "Your bank declined the payment: the card has expired or the expiry date does not match. Check the date or try another card.",
  "failure.cardDetails":
    "The card number or card company was not accepted. Check them or try another card.",
  "failure.authentication":
    "Your bank could not confirm the payment with you (3-D Secure). Try again or use another card.",
  "failure.address":
    "Your bank could not verify the billing address. Check it and try again.",
  "failure.tryLater":
    "The payment could not be processed just now and no money was taken. Please try again in a few minutes.",
  "failure.review":
    "Your payment is being reviewed. The shop will let you know when it is confirmed.",
  "failure.mismatch":
    "The payment did not match your order, so the amount reserved on your card was released. Please pay again.",
  "failure.cartChanged":
    "Your cart changed while you were paying, so the amount reserved on your card was released. Please pay again.",
  "failure.restart":
    "This payment cannot continue. Go back to the shop and start the payment again.",
  "failure.generic":
    "The payment did not go through. Please try again or use another card.",
  "notFound.title": "Payment not found",
  "notFound.message":
    "There is no card payment waiting under this address. Go back to the shop and start the checkout again.",
  "unconfirmed.title": "Payment not confirmed yet",
  "unconfirmed.message":
    "The shop could not check this payment just now. Reload this page in a moment.",
  "busy.title": "One moment, please",
  "busy.message":
    "The payment page cannot be shown just now. Reload this page in a few seconds.",
  "notFound.returnMessage":
    "There is no card payment under this address. Go back to the shop and check your order.",
  "paid.title": "Already paid",
  "paid.message":
    "This payment is already complete. There is nothing more to pay.",
  "altered.title": "Payment cannot continue",
  "altered.message":
    "This payment session was changed after it was created. Go back to the shop and start the payment again.",
} as const

export type MessageKey = keyof typeof en

/** A language's strings: every key of the English catalogue. */
export type Catalogue = Record<MessageKey, string>

export const MESSAGE_KEYS = Object.keys(en) as [MessageKey, ...MessageKey[]]
