import type { Page } from "playwright-core"

/**
 * A store owner's way into a running store's admin: the login a seed made
 * (the demo's, scripts/lib/demo-seed.ts), over the admin API with a bearer
 * token or in the dashboard with a browser. Used by the admin browser test
 * (a store started by `npm run demo`) and by `npm run test:compat` (a fresh
 * store per Medusa version).
 */
export type AdminAccess = {
  backend: string
  /** The dashboard, `${backend}/app`. */
  admin: string
  adminEmail: string
  adminPassword: string
}

export async function adminToken(store: AdminAccess): Promise<string> {
  const login = await fetch(`${store.backend}/auth/user/emailpass`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      email: store.adminEmail,
      password: store.adminPassword,
    }),
  })
  if (login.status !== 200) {
    throw new Error(`admin login: ${login.status} ${await login.text()}`)
  }
  return (await login.json()).token
}

/** An admin API call that must answer 200; answers its JSON. */
export async function adminCall(
  store: AdminAccess,
  token: string,
  method: "GET" | "POST",
  route: string,
  body?: unknown
): Promise<any> {
  const response = await fetch(`${store.backend}${route}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      Authorization: `Bearer ${token}`,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (response.status !== 200) {
    throw new Error(
      `${method} ${route}: ${response.status} ${await response.text()}`
    )
  }
  return await response.json()
}

export function adminPost(
  store: AdminAccess,
  token: string,
  route: string,
  body: unknown
): Promise<any> {
  return adminCall(store, token, "POST", route, body)
}

/** The card-service payment of an order, as the admin API shows it. */
export async function cardServicePayment(
  store: AdminAccess,
  token: string,
  orderId: string
) {
  const fields =
    "id,*payment_collections.payments,*payment_collections.payments.refunds"
  const { order } = await adminCall(
    store,
    token,
    "GET",
    `/admin/orders/${orderId}?fields=${encodeURIComponent(fields)}`
  )
  const payment = order.payment_collections?.[0]?.payments?.[0]
  if (payment?.provider_id !== "pp_card-service_card-service") {
    throw new Error(
      `order ${orderId} has no card-service payment: ${JSON.stringify(order.payment_collections)}`
    )
  }
  return payment
}

export async function logIn(page: Page, store: AdminAccess) {
  // `medusa develop` serves the dashboard through Vite: the first page
  // compiles it, which took over 30 s on a busy two-core machine.
  await page.goto(`${store.admin}/login`, { timeout: 120_000 })
  await page.locator("input[name=email]").fill(store.adminEmail)
  await page.locator("input[name=password]").fill(store.adminPassword)
  await page.getByRole("button", { name: "Continue with Email" }).click()
  await page.waitForURL((url) => !url.pathname.endsWith("/login"), {
    timeout: 60_000,
  })
}
