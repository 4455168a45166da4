/**
 * The hosted payment page: the merchant's form of section 4.2, posting
 * straight from the shopper's browser to the service's /order/start, so the
 * card number never reaches the store's server. Plain HTML that works with
 * JavaScript off; a script (served separately, allowed by the CSP) adds the
 * card-company choice, a Luhn check and messages next to each field.
 *
 * Written for a phone first: the card fields and the Pay button come first,
 * and billing details the cart already holds wait behind "Edit billing
 * address" (a <details>, so it opens with the keyboard and without script).
 * Every word comes from the shopper's catalogue (../i18n) and every amount
 * from Intl, in the shopper's locale.
 */
import { SERVICE_CARD_TYPE_LABELS } from "../card-brands"
import type { MessageKey, Translator } from "../i18n"
import { countryAlpha2Codes } from "../iso-codes"
import { escapeHtml } from "./escape-html"
import { pageHead } from "./page-css"

export type PaymentPageInput = {
  /** The service's /order/start. */
  action: string
  /** Hidden fields of the attempt (session fields, reference, verification code). */
  hidden: Record<string, string>
  /** Prefilled, editable cardholder and billing fields (section 2.2 names). */
  billing: Record<string, string>
  /** In major units, as the service takes it. */
  amount: number
  /** "eur". */
  currencyCode: string
  storeName: string
  /** URL of the page script; same origin as the page. */
  scriptUrl: string
  /** A fresh nonce for this response's inline style. */
  nonce: string
  /** Where "back to the shop" goes. */
  cancelUrl: string
  /** The year to start the expiry list at (injectable for tests). */
  currentYear: number
  /** The shopper's language. */
  text: Translator
  /** Why the shopper's last attempt at this payment failed, shown above the form. */
  previousFailure?: MessageKey | null
}

type BillingField = {
  name: string
  label: MessageKey
  autocomplete: string
  type?: "email" | "tel"
  required: boolean
}

/** Billing fields of section 2.2 in the order a person reads an address. */
const BILLING_FIELDS: BillingField[] = [
  {
    name: "address",
    label: "billing.address",
    autocomplete: "billing street-address",
    required: true,
  },
  {
    name: "postalCode",
    label: "billing.postalCode",
    autocomplete: "billing postal-code",
    required: true,
  },
  {
    name: "city",
    label: "billing.city",
    autocomplete: "billing address-level2",
    required: true,
  },
  {
    name: "state",
    label: "billing.state",
    autocomplete: "billing address-level1",
    required: false,
  },
  {
    name: "country",
    label: "billing.country",
    autocomplete: "billing country",
    required: true,
  },
  {
    name: "email",
    label: "billing.email",
    autocomplete: "email",
    type: "email",
    required: true,
  },
  {
    name: "phone",
    label: "billing.phone",
    autocomplete: "tel",
    type: "tel",
    required: true,
  },
]

const COUNTRY_CODES = countryAlpha2Codes()
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const COUNTRIES_WITH_STATE = new Set(["US", "CA"])

/**
 * The billing fields the cart already holds in a form the page accepts:
 * these wait behind "Edit billing address"; the rest stay in view, so no
 * required field hides. A state is only asked for in the US and Canada.
 */
export function prefilledBillingFields(
  billing: Record<string, string>
): Set<string> {
  const value = (name: string) => (billing[name] ?? "").trim()
  const country = value("country").toUpperCase()
  const known = new Set<string>()
  for (const { name } of BILLING_FIELDS) {
    const ok =
      name === "email"
        ? EMAIL.test(value("email"))
        : name === "country"
          ? COUNTRY_CODES.includes(country)
          : name === "state"
            ? value("state") !== "" ||
              (country !== "" && !COUNTRIES_WITH_STATE.has(country))
            : value(name) !== ""
    if (ok) known.add(name)
  }
  return known
}

/** The id of a form control, from its section 2.2 field name ("postalCode" -> "postal-code"). */
export function fieldId(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
}

/**
 * The Content-Security-Policy of the page: nothing may load but our own
 * script and the nonce'd style, and the form may post only to the service
 * (whose redirects lead back through our return route to the storefront).
 */
export function paymentPageCsp(input: {
  action: string
  nonce: string
  /** Where the return route may send the shopper: the storefront's origins. */
  returnOrigins?: string[]
}): string {
  // Chromium applies form-action to every redirect that follows the post: a
  // frictionless result is the service's 303 to our return route ('self'),
  // whose 303 goes on to the storefront. Each hop must be allowed, or the
  // shopper stays on this page although the payment went through.
  const formTargets = new Set([
    new URL(input.action).origin,
    "'self'",
    ...(input.returnOrigins ?? []).map((url) => new URL(url).origin),
  ])
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'nonce-${input.nonce}'`,
    "img-src 'self' data:",
    `form-action ${[...formTargets].join(" ")}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join("; ")
}

export function renderPaymentPage(input: PaymentPageInput): string {
  const { text } = input
  const amount = text.money(input.amount, input.currencyCode)
  const hidden = Object.entries(input.hidden)
    .map(
      ([name, value]) =>
        `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`
    )
    .join("")
  // The page script reads its messages here, so one cached script serves
  // every language.
  const scriptMessages = (
    [
      ["required", "error.required"],
      ["choose", "error.choose"],
      ["card-number", "error.cardNumber"],
      ["email", "error.email"],
      ["expired", "error.expired"],
      ["format", "error.format"],
      ["summary", "error.summary"],
    ] as const
  )
    .map(([name, key]) => ` data-msg-${name}="${escapeHtml(text.t(key))}"`)
    .join("")
  const notice = input.previousFailure
    ? `<div class="notice" id="previous-failure" role="alert"><p><strong>${escapeHtml(text.t("previous.heading"))}.</strong> ${escapeHtml(text.t(input.previousFailure))}</p></div>`
    : ""

  return `${pageHead(escapeHtml, {
    lang: text.locale,
    title: text.t("page.title", { amount, store: input.storeName }),
    nonce: input.nonce,
  })}
<body>
<main>
<h1>${escapeHtml(text.t("page.heading", { amount }))}</h1>
<p class="muted">${escapeHtml(text.t("page.privacy", { store: input.storeName }))}</p>
${notice}
<form id="card-service-form" method="POST" action="${escapeHtml(input.action)}" enctype="application/x-www-form-urlencoded" autocomplete="on"${scriptMessages}>
${hidden}
<p id="form-status" class="visually-hidden" role="status"></p>
<fieldset>
<legend>${escapeHtml(text.t("card.legend"))}</legend>
<label for="card-number">${escapeHtml(text.t("card.number"))}</label>
<input id="card-number" name="cardAccountNumber" inputmode="numeric" autocomplete="cc-number" pattern="[0-9 ]{12,23}" maxlength="23" required>
<label for="card-type">${escapeHtml(text.t("card.type"))}</label>
<select id="card-type" name="cardType" autocomplete="cc-type" required>${cardTypeOptions(text)}</select>
<div class="row">
<div>${nameField("firstName", "card.firstName", "cc-given-name", input.billing, text)}</div>
<div>${nameField("lastName", "card.lastName", "cc-family-name", input.billing, text)}</div>
</div>
<fieldset>
<legend>${escapeHtml(text.t("expiry.legend"))}</legend>
<div class="row">
<div><label for="expiry-month">${escapeHtml(text.t("expiry.month"))}</label>
<select id="expiry-month" name="cardExpirationMonth" autocomplete="cc-exp-month" required>${monthOptions(text)}</select></div>
<div><label for="expiry-year">${escapeHtml(text.t("expiry.year"))}</label>
<select id="expiry-year" name="cardExpirationYear" autocomplete="cc-exp-year" required>${yearOptions(input.currentYear, text)}</select></div>
</div>
</fieldset>
</fieldset>
${billingSection(input.billing, text)}
<button type="submit" id="pay-button">${escapeHtml(text.t("pay.button", { amount }))}</button>
<p class="back"><a href="${escapeHtml(input.cancelUrl)}">${escapeHtml(text.t("pay.back"))}</a></p>
</form>
</main>
<script src="${escapeHtml(input.scriptUrl)}" defer></script>
</body>
</html>`
}

function nameField(
  name: string,
  label: MessageKey,
  autocomplete: string,
  billing: Record<string, string>,
  text: Translator
): string {
  const id = fieldId(name)
  return `<label for="${id}">${escapeHtml(text.t(label))}</label><input id="${id}" name="${name}" value="${escapeHtml(billing[name] ?? "")}" autocomplete="${autocomplete}" required>`
}

/** The billing address: what the cart gave, collapsed behind a summary; what it did not, in view. */
function billingSection(
  billing: Record<string, string>,
  text: Translator
): string {
  const known = prefilledBillingFields(billing)
  const render = (fields: BillingField[]) =>
    fields.map((field) => billingField(field, billing, text)).join("\n")
  const heading = `<h2 id="billing-heading">${escapeHtml(text.t("billing.heading"))}</h2>`
  const open = render(BILLING_FIELDS.filter((field) => !known.has(field.name)))
  if (known.size === 0) {
    return `<section class="billing" aria-labelledby="billing-heading">${heading}\n${open}\n</section>`
  }
  const shown = (name: string) => (known.has(name) ? billing[name] : "")
  const place = [shown("postalCode"), shown("city"), shown("state")]
    .filter(Boolean)
    .join(" ")
  const country = known.has("country") ? text.countryName(billing.country) : ""
  const lines = [
    [shown("address"), place, country].filter(Boolean).join(", "),
    [shown("email"), shown("phone")].filter(Boolean).join(" · "),
  ].filter(Boolean)
  return `<section class="billing" aria-labelledby="billing-heading">${heading}
<p class="address" id="billing-summary">${lines.map(escapeHtml).join("<br>")}</p>
<details id="billing-details"><summary>${escapeHtml(text.t("billing.edit"))}</summary>
${render(BILLING_FIELDS.filter((field) => known.has(field.name)))}
</details>
${open}
</section>`
}

function billingField(
  field: BillingField,
  billing: Record<string, string>,
  text: Translator
): string {
  const id = fieldId(field.name)
  const label = `<label for="${id}">${escapeHtml(text.t(field.label))}</label>`
  const required = field.required ? " required" : ""
  if (field.name === "country") {
    return `${label}<select id="${id}" name="country" autocomplete="${field.autocomplete}"${required}>${countryOptions(billing.country, text)}</select>`
  }
  const type = field.type ? ` type="${field.type}"` : ""
  const value = escapeHtml(billing[field.name] ?? "")
  return `${label}<input id="${id}" name="${field.name}"${type} value="${value}" autocomplete="${field.autocomplete}"${required}>`
}

/**
 * Country lists by locale. Naming and sorting 250 countries is most of the
 * page's render time, so each locale's list is made once; the bound keeps
 * made-up Accept-Language tags from growing it without end.
 */
const countryListCache = new Map<string, string>()
const COUNTRY_LIST_CACHE_SIZE = 64

/** Every country, named and sorted in the shopper's language; none chosen unless the cart says. */
function countryOptions(
  selected: string | undefined,
  text: Translator
): string {
  const key = `${text.locale}|${text.catalogue}`
  let list = countryListCache.get(key)
  if (list === undefined) {
    list = COUNTRY_CODES.map((code) => ({ code, name: text.countryName(code) }))
      .sort((a, b) => text.compare(a.name, b.name))
      .map(
        ({ code, name }) =>
          `<option value="${code}">${escapeHtml(name)}</option>`
      )
      .join("")
    if (countryListCache.size >= COUNTRY_LIST_CACHE_SIZE)
      countryListCache.clear()
    countryListCache.set(key, list)
  }
  const current = (selected ?? "").toUpperCase()
  const chosen = COUNTRY_CODES.includes(current)
    ? list.replace(
        `<option value="${current}">`,
        `<option value="${current}" selected>`
      )
    : list
  return `<option value="">${escapeHtml(text.t("billing.countryPlaceholder"))}</option>${chosen}`
}

/** No company is assumed: the script picks it from the number, a person without script picks it here. */
function cardTypeOptions(text: Translator): string {
  return (
    `<option value="">${escapeHtml(text.t("card.typePlaceholder"))}</option>` +
    SERVICE_CARD_TYPE_LABELS.map(
      ([value, label]) =>
        `<option value="${value}">${escapeHtml(label)}</option>`
    ).join("")
  )
}

/**
 * An empty, required first choice: a preselected month and year (01 of this
 * year) was a date already past, declined with 202 after a trip to the
 * service when the shopper left it alone.
 */
function monthOptions(text: Translator): string {
  const months = Array.from({ length: 12 }, (_, i) =>
    String(i + 1).padStart(2, "0")
  )
  return (
    `<option value="">${escapeHtml(text.t("expiry.monthPlaceholder"))}</option>` +
    months.map((m) => `<option value="${m}">${m}</option>`).join("")
  )
}

function yearOptions(currentYear: number, text: Translator): string {
  const years = Array.from({ length: 16 }, (_, i) => String(currentYear + i))
  return (
    `<option value="">${escapeHtml(text.t("expiry.yearPlaceholder"))}</option>` +
    years.map((y) => `<option value="${y}">${y}</option>`).join("")
  )
}
