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
