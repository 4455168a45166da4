// The order confirmation page: where the plugin's return route sends the
// shopper, at {storefrontUrl}{returnPath} with ?status=paid&order_id=...,
// ?status=failed&reason=...&retry_url=..., or ?status=pending&session_id=...
"use strict"

const config = window.DEMO_CONFIG
const params = new URLSearchParams(location.search)
const result = document.querySelector("#result")

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes))
    node.setAttribute(name, value)
  node.append(...children)
  return node
}

function money(amount, currency) {
  return new Intl.NumberFormat("en", {
    style: "currency",
    currency: currency.toUpperCase(),
  }).format(amount)
}

async function store(path) {
  const response = await fetch(`${config.backendUrl}${path}`, {
    headers: { "x-publishable-api-key": config.publishableKey },
  })
  const json = await response.json().catch(() => ({}))
  if (!response.ok) throw new Error(json.message || String(response.status))
  return json
}

async function showOrder(orderId) {
  const fields = "id,display_id,email,total,currency_code,payment_status,*items"
  const { order } = await store(
    `/store/orders/${orderId}?fields=${encodeURIComponent(fields)}`
  )
  const items = element("ul")
  for (const item of order.items) {
    items.append(
      element(
        "li",
        {},
        `${item.quantity} x ${item.product_title} (${item.variant_title})`
      )
    )
  }
  result.replaceChildren(
    element(
      "h2",
      { class: "ok", id: "paid" },
      `Thank you! Order #${order.display_id} is placed.`
    ),
    // Paid again from a second tab: that payment was given back at once.
    ...(params.get("second_payment") === "released"
      ? [
          element(
            "p",
            { id: "second-payment" },
            "This order was already paid; the second payment was released and will not be charged."
          ),
        ]
      : []),
    element(
      "p",
      {},
      "Order id: ",
      element("code", { id: "order-id" }, order.id)
    ),
    items,
    element(
      "p",
      {},
      `Total ${money(order.total, order.currency_code)}, payment ${order.payment_status}.`
    ),
    element(
      "p",
      {},
      "Find it in the admin: ",
      element(
        "a",
        { href: `${config.adminUrl}/orders/${order.id}` },
        `${config.adminUrl}/orders/${order.id}`
      )
    ),
    element("p", {}, element("a", { href: "/" }, "Back to the shop"))
  )
}

function showFailure(reason, retryUrl) {
  const children = [
    element(
      "h2",
      { class: "error", id: "failed" },
      "The payment did not go through."
    ),
    element("p", {}, reason || "No reason was given."),
  ]
  if (retryUrl) {
    children.push(
      element(
        "p",
        {},
        element(
          "a",
          { href: retryUrl, id: "retry" },
          "Try again with another card"
        )
      )
    )
  }
  children.push(
    element("p", {}, element("a", { href: "/" }, "Back to the shop"))
  )
  result.replaceChildren(...children)
}

// The return can arrive before the service's result is confirmed; the
// session's state says when it is.
async function poll(sessionId) {
  for (let attempt = 0; attempt < 60; attempt++) {
    const { session } = await store(`/store/card-service/sessions/${sessionId}`)
    if (session.outcome === "paid") return showOrder(session.order_id)
    if (session.outcome === "failed")
      return showFailure(session.failure?.message, session.pay_url)
    await new Promise((resolve) => setTimeout(resolve, 2000))
  }
  result.replaceChildren(
    element("p", {}, "The payment is still being confirmed. Check back later.")
  )
}

// The query can be written by anyone: link only to this shop or its backend.
function trustedRetryUrl(value) {
  try {
    const url = new URL(value)
    const trusted = [location.origin, new URL(config.backendUrl).origin]
    return trusted.includes(url.origin) ? url.toString() : null
  } catch {
    return null
  }
}

async function main() {
  switch (params.get("status")) {
    case "paid":
      return showOrder(params.get("order_id"))
    case "failed":
      return showFailure(params.get("reason"), trustedRetryUrl(params.get("retry_url")))
    case "pending":
      result.replaceChildren(
        element(
          "p",
          {},
          "Waiting for the card service to confirm the payment..."
        )
      )
      return poll(params.get("session_id"))
    default:
      result.replaceChildren(
        element("p", {}, "Nothing to show here."),
        element("a", { href: "/" }, "Back to the shop")
      )
  }
}

main().catch((error) => {
  result.replaceChildren(
    element(
      "p",
      { class: "error" },
      `Could not show the order: ${error.message}`
    )
  )
})
