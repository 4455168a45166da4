import type { AxiosInstance } from "axios"
import { request } from "undici"

/** Headers a browser sends with a top-level form navigation (Fetch Metadata). */
export const NAVIGATION_HEADERS = {
  "Content-Type": "application/x-www-form-urlencoded",
  "Sec-Fetch-Mode": "navigate",
  "Sec-Fetch-Dest": "document",
  "Sec-Fetch-Site": "cross-site",
  "Sec-Fetch-User": "?1",
}

export type BrowserStepResult = {
  /** The service's first answer to the form post. */
  serviceLocation: string | null
  /** Where the return route sent the browser (the storefront), if it got there. */
  storefrontLocation: URL | null
  fields: Record<string, string>
}

/**
 * What a shopper's browser does on the payment page, without a browser: it
 * fetches the form fields a storefront would render, posts them with the card
 * to the service's /order/start as a navigation, and follows the redirects
 * back through the plugin's return route (frictionless cards only).
 */
export async function payLikeABrowser(
  api: AxiosInstance,
  publishableKey: string,
  sessionId: string,
  card: { number: string; cardType: string },
  {
    editFields = (fields: Record<string, string>) => fields,
    followReturn = true,
  }: {
    editFields?: (fields: Record<string, string>) => Record<string, string>
    followReturn?: boolean
  } = {}
): Promise<BrowserStepResult> {
  const { data } = await api.get(`/store/card-service/sessions/${sessionId}/form`, {
    headers: { "x-publishable-api-key": publishableKey },
  })
  const { serviceLocation, fields } = await postPaymentForm(data.form, card, editFields)
  if (!followReturn || !serviceLocation || !serviceLocation.includes("/card-service/return/")) {
    return { serviceLocation, storefrontLocation: null, fields }
  }
  const back = await request(serviceLocation, { method: "GET" })
  await back.body.dump()
  const location = header(back.headers.location)
  return {
    serviceLocation,
    storefrontLocation: location ? new URL(location) : null,
    fields,
  }
}

/**
 * Posts a payment form (as the form route answered it) with the card to the
 * service's /order/start, as a top-level navigation, and returns where the
 * service sends the browser, without going there.
 */
export async function postPaymentForm(
  form: { action: string; fields: Record<string, string> },
  card: { number: string; cardType: string },
  editFields = (fields: Record<string, string>) => fields
): Promise<{ serviceLocation: string | null; fields: Record<string, string> }> {
  const fields = editFields({
    ...form.fields,
    cardAccountNumber: card.number,
    cardType: card.cardType,
    cardExpirationMonth: "12",
    cardExpirationYear: String(new Date().getUTCFullYear() + 3),
  })
  // undici's request, not fetch: fetch sets Sec-Fetch-Mode itself ("cors").
  const response = await request(form.action, {
    method: "POST",
    headers: NAVIGATION_HEADERS,
    body: new URLSearchParams(fields).toString(),
  })
  const serviceLocation = header(response.headers.location)
  await response.body.dump()
  return { serviceLocation, fields }
}

function header(value: string | string[] | undefined): string | null {
  return Array.isArray(value) ? value[0] ?? null : value ?? null
}

/** The hosted page's form: its action and every field it would post (hidden and billing). */
export function formOfPage(html: string): { action: string; fields: Record<string, string> } {
  const decode = (value: string) =>
    value
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&amp;/g, "&")
  const form = /<form id="card-service-form"[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/.exec(html)
  if (!form) throw new Error("the page has no payment form")
  const fields: Record<string, string> = {}
  for (const [, attributes] of form[2].matchAll(/<input\b([^>]*)>/g)) {
    const name = /\bname="([^"]*)"/.exec(attributes)?.[1]
    const value = /\bvalue="([^"]*)"/.exec(attributes)?.[1]
    if (name && value !== undefined) fields[name] = decode(value)
  }
  const country = /<select[^>]*name="country"[^>]*>[\s\S]*?<option value="([^"]*)" selected>/.exec(form[2])
  if (country) fields.country = country[1]
  return { action: decode(form[1]), fields }
}

/**
 * A shopper on the plugin's hosted page at `payUrl` (a link the owner sent):
 * the page, its form posted with the card, and the return route followed
 * once. `landed` is where the return route sends the browser.
 */
export async function payOnHostedPage(payUrl: string, card: { number: string; cardType: string }) {
  const page = await request(payUrl)
  const html = await page.body.text()
  if (page.statusCode !== 200) throw new Error(`the pay page answered ${page.statusCode}`)
  const { serviceLocation } = await postPaymentForm(formOfPage(html), card)
  if (!serviceLocation?.includes("/card-service/return/")) {
    return { html, serviceLocation, landed: null }
  }
  const back = await request(serviceLocation)
  await back.body.dump()
  const location = back.headers.location
  return { html, serviceLocation, landed: location ? new URL(String(location)) : null }
}
