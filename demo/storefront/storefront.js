// The demo storefront: product, cart, shipping, a card-service payment
// session, then the plugin's hosted payment page. Plain JavaScript against
// Medusa's store API, so every call a real storefront makes is visible here.
"use strict"

const config = window.DEMO_CONFIG
const $ = (selector) => document.querySelector(selector)
let chosen = null

async function store(path, { method = "GET", body } = {}) {
  const response = await fetch(`${config.backendUrl}${path}`, {
    method,
    headers: {
      // Every /store request needs the publishable key of a sales channel.
      "x-publishable-api-key": config.publishableKey,
      ...(body ? { "Content-Type": "application/json" } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  })
  const json = await response.json().catch(() => ({}))
  if (!response.ok) {
    throw new Error(`${method} ${path}: ${json.message || response.status}`)
  }
  return json
}

function money(amount, currency) {
  return new Intl.NumberFormat("en", {
    style: "currency",
    currency: currency.toUpperCase(),
  }).format(amount)
}

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes))
    node.setAttribute(name, value)
  node.append(...children)
  return node
}

async function showProducts() {
  const { region } = await store(`/store/regions/${config.regionId}`)
  for (const country of region.countries) {
    const option = element(
      "option",
      { value: country.iso_2 },
      country.display_name
    )
    option.selected = country.iso_2 === "de"
    $("#country").append(option)
  }
  const fields = "*variants.calculated_price,+variants.inventory_quantity"
  const { products } = await store(
    `/store/products?region_id=${config.regionId}&fields=${encodeURIComponent(fields)}`
  )
  const section = $("#products")
  section.replaceChildren()
  if (!products.length) {
    section.append(
      element("p", { class: "error" }, "No products in this sales channel.")
    )
  }
  for (const product of products) {
    const select = element("select", { "aria-label": "Variant" })
    for (const variant of product.variants) {
      const price = variant.calculated_price
      select.append(
        element(
          "option",
          { value: variant.id },
          `${variant.title} - ${money(price.calculated_amount, price.currency_code)}` +
            (variant.inventory_quantity != null
              ? ` (${variant.inventory_quantity} in stock)`
              : "")
        )
      )
    }
    const quantity = element("input", {
      type: "number",
      min: "1",
      value: "1",
      "aria-label": "Quantity",
    })
    const buy = element("button", { type: "button" }, "Buy")
    buy.addEventListener("click", () => {
      const variant = product.variants.find((v) => v.id === select.value)
      chosen = {
        product,
        variant,
        quantity: Math.max(1, Number(quantity.value) || 1),
      }
      $("#line").textContent =
        `${chosen.quantity} x ${product.title} (${variant.title})`
      $("#checkout").hidden = false
      $("#checkout").scrollIntoView({ behavior: "smooth" })
    })
    section.append(
      element(
        "article",
        { class: "product" },
        element("h2", {}, product.title),
        element("p", {}, product.description || ""),
        select,
        " ",
        quantity,
        " ",
        buy
      )
    )
  }
}

async function checkout(event) {
  event.preventDefault()
  const form = new FormData(event.target)
  const address = {
    first_name: form.get("first_name"),
    last_name: form.get("last_name"),
    address_1: form.get("address_1"),
    postal_code: form.get("postal_code"),
    city: form.get("city"),
    country_code: form.get("country_code"),
    phone: form.get("phone") || undefined,
  }
  const status = $("#status")
  const step = (text) => {
    status.className = ""
    status.textContent = text
  }
  $("#pay").disabled = true
  try {
    step("Creating the cart...")
    const { cart } = await store("/store/carts", {
      method: "POST",
      body: {
        region_id: config.regionId,
        sales_channel_id: config.salesChannelId,
        email: form.get("email"),
        // The cart's language: the plugin's payment page speaks it.
        locale: navigator.language,
        shipping_address: address,
        billing_address: address,
      },
    })
    await store(`/store/carts/${cart.id}/line-items`, {
      method: "POST",
      body: { variant_id: chosen.variant.id, quantity: chosen.quantity },
    })

    step("Choosing shipping...")
    const { shipping_options } = await store(
      `/store/shipping-options?cart_id=${cart.id}`
    )
    if (!shipping_options.length)
      throw new Error("no shipping option for this address")
    const { cart: withShipping } = await store(
      `/store/carts/${cart.id}/shipping-methods`,
      {
        method: "POST",
        body: { option_id: shipping_options[0].id },
      }
    )
    $("#totals").textContent =
      `Total: ${money(withShipping.total, withShipping.currency_code)}`

    // Payment session last: any later change to the cart total would delete it.
    step("Starting the card payment...")
    const { payment_collection } = await store("/store/payment-collections", {
      method: "POST",
      body: { cart_id: cart.id },
    })
    const { payment_collection: withSession } = await store(
      `/store/payment-collections/${payment_collection.id}/payment-sessions`,
      {
        method: "POST",
        body: {
          provider_id: config.providerId,
          // Where the plugin sends the shopper after paying; honoured only
          // for the storefront's own origin (the provider's storefrontUrl).
          data: { return_to: `${location.origin}/checkout/card-service` },
        },
      }
    )
    const session = withSession.payment_sessions.find(
      (s) => s.provider_id === config.providerId
    )
    step("Opening the payment page...")
    location.assign(session.data.pay_url)
  } catch (error) {
    status.className = "error"
    status.textContent = `Could not start the payment: ${error.message}`
    $("#pay").disabled = false
  }
}

function showTestCards() {
  for (const card of config.testCards) {
    $("#test-cards").append(
      element("li", {}, element("code", {}, card.number), ` ${card.label}`)
    )
  }
}

showTestCards()
$("#checkout").addEventListener("submit", checkout)
showProducts().catch((error) => {
  $("#products").replaceChildren(
    element(
      "p",
      { class: "error" },
      `Could not load products: ${error.message}`
    )
  )
})
