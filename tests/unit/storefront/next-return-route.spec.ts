import type { FetchLike } from "../../../src/storefront"
import { cardServiceReturnRoute } from "../../../src/storefront/next"

/**
 * The storefront's return route for Next.js, as Medusa's starter mounts it
 * at /[countryCode]/checkout/card-service: web Request in, Response out,
 * against a fake backend.
 */

const ROUTE = "https://shop.test/dk/checkout/card-service"
const backend = { backendUrl: "https://api.shop.test", publishableKey: "pk_1" }

function backendSaying(session: Record<string, unknown> | number) {
  const urls: string[] = []
  const fetch: FetchLike = async (url) => {
    urls.push(url)
    if (typeof session === "number") {
      return { ok: false, status: session, json: async () => ({}) }
    }
    return {
      ok: true,
      status: 200,
      json: async () => ({
        session: {
          id: "payses_1",
          status: "pending",
          outcome: "pending",
          order_id: null,
          cart_id: "cart_1",
          country_code: "dk",
          failure: null,
          pay_url: "https://api.shop.test/card-service/pay/payses_1",
          ...session,
        },
      }),
    }
  }
  return { fetch, urls }
}

/** The route against a backend saying `session`, with no cache to refresh. */
function routeWith(session: Record<string, unknown> | number) {
  const { fetch } = backendSaying(session)
  return cardServiceReturnRoute({ ...backend, fetch, revalidateTag: () => {} })
}

function request(url: string, headers: Record<string, string> = {}) {
  return new Request(url, { headers })
}

describe("cardServiceReturnRoute", () => {
  it("paid: the order page, the cart cookie gone, the carts and orders tags refreshed", async () => {
    const tags: string[] = []
    const { fetch, urls } = backendSaying({
      outcome: "paid",
      order_id: "order_1",
    })
    const GET = cardServiceReturnRoute({
      ...backend,
      fetch,
      revalidateTag: (t) => tags.push(t),
    })
    const res = await GET(
      request(`${ROUTE}?session_id=payses_1&status=paid`, {
        cookie: "_medusa_cart_id=cart_1; _medusa_cache_id=abc",
        "sec-fetch-site": "same-origin",
      })
    )
    expect(res.status).toBe(303)
    expect(res.headers.get("location")).toBe("/dk/order/order_1/confirmed")
    expect(res.headers.get("set-cookie")).toMatch(
      /^_medusa_cart_id=; Path=\/; Max-Age=0/
    )
    expect(tags).toEqual(["carts-abc", "orders-abc"])
    expect(urls).toEqual([
      "https://api.shop.test/store/card-service/sessions/payses_1",
    ])
  })

  it("a declined card: straight back to the card form (review step) with the code", async () => {
    const res = await routeWith({
      outcome: "failed",
      failure: { code: "203", message: "no" },
    })(request(`${ROUTE}?session_id=payses_1&status=failed&reason_code=203`))
    expect(res.status).toBe(303)
    expect(res.headers.get("location")).toBe(
      "/dk/checkout?step=review&payment_error=203"
    )
    expect(res.headers.get("set-cookie")).toBeNull()
  })

  it.each(["cart_changed", "tampered", "mismatch"])(
    "%s: the payment step, where a new session is made",
    async (code) => {
      const res = await routeWith({
        outcome: "failed",
        failure: { code, message: "x" },
      })(request(`${ROUTE}?session_id=payses_1`))
      expect(res.headers.get("location")).toBe(
        `/dk/checkout?step=payment&payment_error=${code}`
      )
    }
  )

  it("goes on in the cart's country when the backend's default return named none", async () => {
    // The starter's middleware sent /checkout/card-service to its default country.
    const res = await routeWith({
      outcome: "paid",
      order_id: "order_1",
      country_code: "se",
    })(request(`${ROUTE}?session_id=payses_1`))
    expect(res.headers.get("location")).toBe("/se/order/order_1/confirmed")
  })

  it("keeps a prefix that is not a country as it is", async () => {
    const res = await routeWith({
      outcome: "paid",
      order_id: "order_1",
      country_code: "se",
    })(
      request(
        "https://shop.test/shop/en-gb/checkout/card-service?session_id=payses_1"
      )
    )
    expect(res.headers.get("location")).toBe(
      "/shop/en-gb/order/order_1/confirmed"
    )
  })

  it("arriving cross-site (from the card service's pages): one hop through a page of this origin, asking the backend nothing", async () => {
    const { fetch, urls } = backendSaying({
      outcome: "paid",
      order_id: "order_1",
    })
    const res = await cardServiceReturnRoute({
      ...backend,
      fetch,
      revalidateTag: () => {},
    })(
      request(`${ROUTE}?session_id=payses_1&status=paid`, {
        "sec-fetch-site": "cross-site",
      })
    )
    expect(res.status).toBe(200)
    const page = await res.text()
    expect(page).toContain(
      '<meta http-equiv="refresh" content="0;url=/dk/checkout/card-service?session_id=payses_1&amp;status=paid">'
    )
    expect(urls).toEqual([])
  })

  it("no verdict yet: a waiting page that asks again, then says it is taking long and stops", async () => {
    const { fetch } = backendSaying({})
    const GET = cardServiceReturnRoute({
      ...backend,
      fetch,
      revalidateTag: () => {},
      waitAttempts: 2,
    })
    const first = await (
      await GET(request(`${ROUTE}?session_id=payses_1`))
    ).text()
    expect(first).toContain(
      'content="3;url=/dk/checkout/card-service?session_id=payses_1&amp;wait=1"'
    )
    expect(first).toContain("confirm your payment with the card service")
    const last = await (
      await GET(request(`${ROUTE}?session_id=payses_1&wait=2`))
    ).text()
    expect(last).not.toContain("http-equiv")
    expect(last).toContain("taking longer than usual")
    expect(last).toContain(
      'href="/dk/checkout/card-service?session_id=payses_1&amp;wait=0"'
    )
  })

  it("under review (480): says so on the waiting page", async () => {
    const { fetch } = backendSaying({
      failure: { code: "480", message: "review" },
    })
    const page = await (
      await cardServiceReturnRoute({
        ...backend,
        fetch,
        revalidateTag: () => {},
      })(request(`${ROUTE}?session_id=payses_1`))
    ).text()
    expect(page).toContain(
      "Your payment is being reviewed by the card service."
    )
  })

  it("a backend that cannot answer never becomes an error page or a 'paid'", async () => {
    const res = await routeWith(502)(
      request(`${ROUTE}?session_id=payses_1&status=paid&order_id=order_forged`)
    )
    expect(res.status).toBe(200)
    const page = await res.text()
    expect(page).toContain("confirm your payment")
    expect(page).not.toContain("order_forged")
  })

  it("asks again with the session alone, escaped", async () => {
    const { fetch } = backendSaying(502)
    const page = await (
      await cardServiceReturnRoute({
        ...backend,
        fetch,
        revalidateTag: () => {},
      })(request(`${ROUTE}?session_id=payses_1%22%3E%3Cscript%3E&x=y`))
    ).text()
    expect(page).not.toContain("<script>")
    expect(page).toContain(
      'url=/dk/checkout/card-service?session_id=payses_1%22%3E%3Cscript%3E&amp;wait=1"'
    )
  })
})
