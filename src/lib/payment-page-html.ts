/**
 * The hosted payment page: the merchant's form of section 4.2, posting
 * straight from the shopper's browser to the service's /order/start, so the
 * card number never reaches the store's server. Plain HTML that works with
 * JavaScript off; a script (served separately, allowed by the CSP) adds the
 * card-brand choice and a Luhn check.
 */
import { SERVICE_CARD_TYPE_LABELS } from "./card-brands"
import { BILLING_FIELD_INFO, BILLING_FIELDS } from "./form-field-rules"

export type PaymentPageInput = {
  /** The service's /order/start. */
  action: string
  /** Hidden fields of the attempt (session fields, reference, verification code). */
  hidden: Record<string, string>
  /** Prefilled, editable cardholder and billing fields. */
  billing: Record<string, string>
  /** "EUR 30.00", shown to the shopper. */
  amountText: string
  storeName: string
  /** URL of the page script; same origin as the page. */
  scriptUrl: string
  /** A fresh nonce for this response's inline style. */
  nonce: string
  /** Where "back to the shop" goes. */
  cancelUrl: string
  /** The year to start the expiry list at (injectable for tests). */
  currentYear: number
}

/** Escapes text for HTML element content and double-quoted attributes. */
export function escapeHtml(value: unknown): string {
  return String(value ?? "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;")
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
  const hidden = Object.entries(input.hidden)
    .map(
      ([name, value]) =>
        `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`
    )
    .join("\n      ")
  const billing = BILLING_FIELDS.map((name) => {
    const { label, autocomplete, required } = BILLING_FIELD_INFO[name]
    const extra = name === "country" ? ' maxlength="2" minlength="2" pattern="[A-Za-z]{2}"' : ""
    return `<label>${escapeHtml(label)}
          <input name="${name}" value="${escapeHtml(input.billing[name] ?? "")}" autocomplete="${autocomplete}"${required ? " required" : ""}${extra}>
        </label>`
  }).join("\n        ")
  const months = Array.from({ length: 12 }, (_, i) => String(i + 1).padStart(2, "0"))
    .map((m) => `<option value="${m}">${m}</option>`)
    .join("")
  const years = Array.from({ length: 16 }, (_, i) => String(input.currentYear + i))
    .map((y) => `<option value="${y}">${y}</option>`)
    .join("")
  const cardTypes = SERVICE_CARD_TYPE_LABELS.map(
    ([value, label]) => `<option value="${value}">${escapeHtml(label)}</option>`
  ).join("")

  return htmlDocument({
    title: `Pay ${input.amountText} - ${input.storeName}`,
    nonce: input.nonce,
    body: `  <main>
    <h1>Pay ${escapeHtml(input.amountText)}</h1>
    <p class="muted">${escapeHtml(input.storeName)} &middot; your card details go straight to the card service; this shop never sees them.</p>
    <form id="card-service-form" method="POST" action="${escapeHtml(input.action)}" enctype="application/x-www-form-urlencoded" autocomplete="on">
      ${hidden}
      <fieldset>
        <legend>Card</legend>
        <label>Card number
          <input name="cardAccountNumber" id="card-number" inputmode="numeric" autocomplete="cc-number" pattern="[0-9 ]{12,23}" maxlength="23" required>
        </label>
        <p id="card-error" class="error" role="alert" hidden></p>
        <label>Card company
          <select name="cardType" id="card-type" required>${cardTypes}</select>
        </label>
        <div class="row">
          <label>Month
            <select name="cardExpirationMonth" autocomplete="cc-exp-month" required>${months}</select>
          </label>
          <label>Year
            <select name="cardExpirationYear" autocomplete="cc-exp-year" required>${years}</select>
          </label>
        </div>
      </fieldset>
      <fieldset>
        <legend>Cardholder and billing address</legend>
        ${billing}
      </fieldset>
      <button type="submit">Pay ${escapeHtml(input.amountText)}</button>
      <p><a href="${escapeHtml(input.cancelUrl)}">Back to the shop</a></p>
    </form>
  </main>
  <script src="${escapeHtml(input.scriptUrl)}" defer></script>`,
  })
}

/** A page with a title and a sentence, for sessions that cannot be paid. */
export function renderMessagePage(input: {
  title: string
  message: string
  nonce: string
  link?: { href: string; text: string }
}): string {
  const link = input.link
    ? `<p><a href="${escapeHtml(input.link.href)}">${escapeHtml(input.link.text)}</a></p>`
    : ""
  return htmlDocument({
    title: input.title,
    nonce: input.nonce,
    body: `  <main>
    <h1>${escapeHtml(input.title)}</h1>
    <p>${escapeHtml(input.message)}</p>
    ${link}
  </main>`,
  })
}

/** The frame of both pages: no referrer leaves them, and only the nonce'd style applies. */
function htmlDocument(page: { title: string; nonce: string; body: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <title>${escapeHtml(page.title)}</title>
  <style nonce="${escapeHtml(page.nonce)}">${PAGE_CSS}</style>
</head>
<body>
${page.body}
</body>
</html>`
}

export function messagePageCsp(nonce: string): string {
  return [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ")
}

const PAGE_CSS = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f4f5;color:#18181b}
main{max-width:32rem;margin:0 auto;padding:1.5rem 1rem 3rem}
h1{font-size:1.5rem;margin:0 0 .25rem}
.muted{color:#52525b;font-size:.9rem;margin-top:0}
fieldset{border:1px solid #e4e4e7;border-radius:.5rem;background:#fff;margin:1rem 0;padding:.75rem 1rem}
legend{font-weight:600;padding:0 .25rem}
label{display:block;margin:.5rem 0;font-size:.9rem}
input,select{display:block;width:100%;margin-top:.25rem;padding:.65rem .75rem;font-size:1rem;border:1px solid #d4d4d8;border-radius:.375rem;background:#fff}
input:focus,select:focus{outline:2px solid #2563eb;outline-offset:1px}
.row{display:flex;gap:.75rem}.row label{flex:1}
button{width:100%;padding:.9rem;font-size:1.05rem;font-weight:600;color:#fff;background:#18181b;border:0;border-radius:.5rem;cursor:pointer}
.error{color:#b91c1c;font-size:.9rem;margin:.25rem 0}
a{color:#2563eb}
`
