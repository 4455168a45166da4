// The shopper of `npm run check:starter`: goes through Medusa's starter's
// own checkout (the data-testids of dtc-starter's apps/storefront) with the
// recipe applied, in Chromium, and pays with the sandbox's test cards. Each
// case gets a fresh browser context and ends on the URL it proves, or throws
// with what went wrong; runCase adds the screenshot and the page's text.
//
// Needs ts-node registered (check-starter.js does it): the test cards and the
// shopper's sentences are read from src, so they cannot drift from the package.
"use strict"

const fs = require("node:fs")
const path = require("node:path")

const ROOT = path.resolve(__dirname, "..", "..")
const { TEST_CARDS } = require(
  path.join(ROOT, "src", "sandbox", "test-cards.ts")
)
const { paymentFailureMessage } = require(
  path.join(ROOT, "src", "storefront", "failure-messages.ts")
)

// Cold pages of a Next.js storefront on a busy 2-core machine take a minute.
const ACTION_MS = 90_000
const NAVIGATION_MS = 120_000
const CASE_MS = 8 * 60_000
const EXPIRY_MONTH = "12"
const EXPIRY_YEAR = String(new Date().getFullYear() + 3)
const PRODUCT = "/de/products/card-service-mug"
const ORDER_PAGE = /^\/de\/order\/[^/]+\/confirmed$/
const UNDER_REVIEW = "Your payment is being reviewed by the card service."

/** A VISA number from the sandbox's table, by its 3DS flow and outcome. */
function testCard(threeDs, reasonCode) {
  const card = TEST_CARDS.find(
    (c) =>
      c.cardType === "VISA" &&
      c.threeDs === threeDs &&
      c.reasonCode === reasonCode
  )
  if (!card)
    throw new Error(
      `no VISA test card with ${threeDs} 3DS and reason ${reasonCode}`
    )
  return card.number
}

const CARDS = {
  approved: testCard("frictionless", "100"),
  challenge: testCard("challenge", "100"),
  declined: testCard("frictionless", "203"),
  review: testCard("frictionless", "480"),
}

/** One shopper in one browser context; `site` is { storefront, ready, variant }. */
class Shopper {
  static async open(browser, site) {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
    })
    const shopper = new Shopper(context, site)
    await shopper.newPage()
    return shopper
  }

  constructor(context, site) {
    this.context = context
    this.site = site
    this.page = null
  }

  async newPage() {
    this.page = await this.context.newPage()
    this.page.setDefaultTimeout(ACTION_MS)
    this.page.setDefaultNavigationTimeout(NAVIGATION_MS)
  }

  async waitForPath(pathname, step) {
    await this.page.waitForURL(
      (url) =>
        url.pathname === pathname &&
        (step === undefined || url.searchParams.get("step") === step)
    )
  }

  /** Product, cart, address, delivery, "Credit card": ends on the review step. */
  async toReview() {
    const { page } = this
    const { storefront } = this.site
    await page.goto(storefront + PRODUCT)
    await page
      .getByTestId("product-options")
      .getByRole("button", { name: "White" })
      .click()
    // The starter then puts the variant in the URL (router.replace).
    await page.waitForURL((url) => url.searchParams.has("v_id"))
    await page.getByTestId("add-product-button").click()
    await this.waitForCartItems(1)
    await page.goto(`${storefront}/de/cart`)
    await page.getByTestId("checkout-button").click()
    await this.waitForPath("/de/checkout", "address")
    const fields = {
      "shipping-first-name-input": "Ada",
      "shipping-last-name-input": "Lovelace",
      "shipping-address-input": "Unter den Linden 1",
      "shipping-postal-code-input": "10117",
      "shipping-city-input": "Berlin",
      "shipping-email-input": "shopper@example.com",
      "shipping-phone-input": "+4930123456",
    }
    for (const [testId, value] of Object.entries(fields)) {
      await page.getByTestId(testId).fill(value)
    }
    await page.getByTestId("shipping-country-select").selectOption("de")
    await page.getByTestId("submit-address-button").click()
    await this.waitForPath("/de/checkout", "delivery")
    await page.getByTestId("delivery-option-radio").first().click()
    // Enabled once the shipping method is on the cart.
    await page.getByTestId("submit-delivery-option-button").click()
    await this.waitForPath("/de/checkout", "payment")
    await this.chooseCardAndContinue()
  }

  /** On the payment step: "Credit card", "Continue to review", the review step ready to pay. */
  async chooseCardAndContinue() {
    await this.page.getByRole("radio", { name: "Credit card" }).click()
    await this.continueToReview()
  }

  async continueToReview() {
    await this.page.getByTestId("submit-payment-button").click()
    await this.waitForPath("/de/checkout", "review")
    // Enabled once the card form's descriptor (or the hosted page's URL) is in.
    await this.page.waitForSelector(
      '[data-testid="submit-order-button"]:not([disabled])'
    )
  }

  /** The payment step as a returning shopper finds it: the card method chosen, review reachable. */
  async expectCardStillChosen() {
    const radio = this.page.getByRole("radio", { name: "Credit card" })
    if ((await radio.getAttribute("aria-checked")) !== "true") {
      throw new Error('on the payment step "Credit card" is not chosen')
    }
    const submit = this.page.getByTestId("submit-payment-button")
    const label = (await submit.textContent()).trim()
    if (!(await submit.isEnabled()) || label !== "Continue to review") {
      throw new Error(
        `the payment step's button is "${label}", enabled: ${await submit.isEnabled()}`
      )
    }
  }

  /** Pays on the review step: the starter's card form, or the hosted page behind "Place order". */
  async pay(number) {
    const { page } = this
    if (this.site.variant === "hosted") {
      await page.getByRole("button", { name: "Place order" }).click()
      await this.payOnHostedPage(number)
      return
    }
    await page.getByLabel("Card number").fill(number)
    await page.getByLabel("Expiry month").selectOption(EXPIRY_MONTH)
    await page.getByLabel("Expiry year").selectOption(EXPIRY_YEAR)
    await page.getByRole("button", { name: "Place order" }).click()
  }

  /** The plugin's own payment page (tests/browser/storefront-example.spec.ts has the same fields). */
  async payOnHostedPage(number) {
    const { page } = this
    await page.waitForURL(`${this.site.ready.backend}/card-service/pay/**`)
    await page.fill("#card-number", number)
    await page.selectOption("select[name=cardExpirationMonth]", EXPIRY_MONTH)
    await page.selectOption("select[name=cardExpirationYear]", EXPIRY_YEAR)
    await page.getByRole("button", { name: /^Pay / }).click()
  }

  async reachChallenge(number) {
    await this.pay(number)
    await this.page.waitForURL(`${this.site.ready.sandbox}/3ds/challenge/**`)
  }

  /** The starter's order page, and its cart cookie gone, as its placeOrder leaves it. */
  async expectOrderPage() {
    await this.page.waitForURL((url) => ORDER_PAGE.test(url.pathname))
    await this.page.getByText("Your order was placed successfully.").waitFor()
    if (await this.cartId())
      throw new Error(
        "the order page is shown but the cart cookie is still set"
      )
    return this.page.url()
  }

  /** Back on the checkout with `?payment_error=`, the shopper's sentence for it on the page. */
  async expectReturnedWithFailure() {
    const { page } = this
    await page.waitForURL(
      (url) =>
        url.pathname === "/de/checkout" && url.searchParams.has("payment_error")
    )
    const url = new URL(page.url())
    const code = url.searchParams.get("payment_error")
    const expected = paymentFailureMessage(code)
    const shown =
      url.searchParams.get("step") === "review"
        ? page.getByTestId("card-error-message")
        : page.getByText(expected)
    await shown.waitFor()
    const text = (await shown.textContent()).trim()
    if (text !== expected)
      throw new Error(
        `payment_error=${code} shows "${text}", not "${expected}"`
      )
    return { step: url.searchParams.get("step"), code }
  }

  async cartId() {
    const cookies = await this.context.cookies(this.site.storefront)
    return cookies.find((c) => c.name === "_medusa_cart_id")?.value
  }

  /** The cart as the store API has it (its id from the starter's cookie). */
  async storeCart() {
    const id = await this.cartId()
    if (!id) throw new Error("no cart cookie")
    const { backend, publishableKey } = this.site.ready
    const fields = "id,completed_at,*items,*payment_collection.payment_sessions"
    const response = await fetch(
      `${backend}/store/carts/${id}?fields=${encodeURIComponent(fields)}`,
      {
        headers: { "x-publishable-api-key": publishableKey },
        signal: AbortSignal.timeout(30_000),
      }
    )
    if (!response.ok)
      throw new Error(`GET /store/carts/${id}: HTTP ${response.status}`)
    return (await response.json()).cart
  }

  /**
   * Until the backend's cart has `count` items. Not the nav's "Cart (n)":
   * in 4 of 56 cases it had not changed 90 s after "Add to cart", once while
   * the backend had taken the item within 2 s (the starter's client-side
   * refresh; a shopper would reload).
   */
  async waitForCartItems(count) {
    const deadline = Date.now() + ACTION_MS
    let items = null
    while (Date.now() < deadline) {
      if (await this.cartId()) {
        items = (await this.storeCart()).items?.length ?? 0
        if (items === count) return
      }
      await this.page.waitForTimeout(500)
    }
    throw new Error(
      `the cart has ${items ?? "no"} items, not ${count}, after "Add to cart"`
    )
  }

  async sessionIds() {
    const cart = await this.storeCart()
    return (cart.payment_collection?.payment_sessions ?? [])
      .map((s) => s.id)
      .join(",")
  }

  async expectNoOrder() {
    const cart = await this.storeCart()
    if (cart.completed_at)
      throw new Error(`the cart was completed at ${cart.completed_at}`)
  }
}

/** The cases, in order; each resolves with the URL it ended on. */
const CASES = {
  async frictionless(s) {
    await s.toReview()
    await s.page.screenshot({
      path: shotPath(s.site, "review"),
      fullPage: true,
    })
    await s.pay(CARDS.approved)
    return s.expectOrderPage()
  },

  async "3ds-challenge"(s) {
    await s.toReview()
    await s.reachChallenge(CARDS.challenge)
    await s.page.click("#pass")
    return s.expectOrderPage()
  },

  async "declined-retry"(s) {
    await s.toReview()
    const sessions = await s.sessionIds()
    await s.pay(CARDS.declined)
    const back = await s.expectReturnedWithFailure()
    if (back.step !== "review")
      throw new Error(`a decline came back to step=${back.step}, not review`)
    await s.expectNoOrder()
    // The starter shows it only while it finds an active (pending) session.
    const summary = await s.page
      .getByTestId("payment-method-summary")
      .textContent({ timeout: 30_000 })
      .catch(() => null)
    if (!summary?.includes("Credit card"))
      throw new Error(
        `the payment summary says ${summary === null ? "nothing (not shown)" : `"${summary.trim()}"`}, not "Credit card"`
      )
    await s.page.getByTestId("edit-payment-button").click()
    await s.waitForPath("/de/checkout", "payment")
    await s.expectCardStillChosen()
    await s.continueToReview()
    const again = await s.sessionIds()
    if (again !== sessions)
      throw new Error(`payment sessions ${sessions} became ${again}`)
    await s.pay(CARDS.approved)
    return s.expectOrderPage()
  },

  async "hosted-page"(s) {
    await s.toReview()
    if (s.site.variant === "hosted") {
      await s.pay(CARDS.approved)
    } else {
      await s.page.getByTestId("hosted-page-link").click()
      await s.payOnHostedPage(CARDS.approved)
    }
    return s.expectOrderPage()
  },

  async "3ds-failure"(s) {
    await s.toReview()
    await s.reachChallenge(CARDS.challenge)
    await s.page.click("#fail")
    const back = await s.expectReturnedWithFailure()
    await s.expectNoOrder()
    if (back.step === "payment") await s.chooseCardAndContinue()
    await s.pay(CARDS.approved)
    return s.expectOrderPage()
  },

  async "abandoned-tab"(s) {
    await s.toReview()
    await s.reachChallenge(CARDS.challenge)
    await s.page.close()
    // Later, in the same browser: the cart's "Go to checkout" opens the payment step.
    await s.newPage()
    await s.page.goto(`${s.site.storefront}/de/cart`)
    await s.page.getByTestId("checkout-button").click()
    await s.waitForPath("/de/checkout", "payment")
    await s.expectCardStillChosen()
    await s.continueToReview()
    await s.pay(CARDS.approved)
    return s.expectOrderPage()
  },

  async "under-review"(s) {
    await s.toReview()
    await s.pay(CARDS.review)
    // An order on hold (issue 31): the order page, which says the payment is under review.
    const url = await s.expectOrderPage()
    await s.page.getByText(UNDER_REVIEW).waitFor()
    return url
  },
}

function shotPath(site, name) {
  fs.mkdirSync(site.shots, { recursive: true })
  return path.join(site.shots, `starter-${site.variant}-${name}.png`)
}

/**
 * Runs one case within CASE_MS. A failure comes back with where the shopper
 * was, a screenshot and the page's text, so it can be told apart from a
 * slow machine.
 */
async function runCase(browser, site, name) {
  const started = Date.now()
  const seconds = () => Math.round((Date.now() - started) / 1000)
  const shopper = await Shopper.open(browser, site)
  let timer
  try {
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`not done within ${CASE_MS / 60_000} min`)),
        CASE_MS
      )
    })
    const url = await Promise.race([CASES[name](shopper), timeout])
    return { name, ok: true, url, seconds: seconds() }
  } catch (error) {
    return {
      name,
      ok: false,
      reason: firstLine(error),
      ...(await scene(shopper, name)),
      seconds: seconds(),
    }
  } finally {
    clearTimeout(timer)
    await shopper.context.close().catch(() => {})
  }
}

async function scene(shopper, name) {
  const { page } = shopper
  if (!page || page.isClosed())
    return { url: null, screenshot: null, text: null }
  const screenshot = shotPath(shopper.site, name)
  const saved = await page
    .screenshot({ path: screenshot, fullPage: true, timeout: 30_000 })
    .then(
      () => screenshot,
      () => null
    )
  const text = await page
    .locator("body")
    .innerText({ timeout: 10_000 })
    .then(
      (t) => t.replace(/\s+/g, " ").trim().slice(0, 1500),
      () => null
    )
  return { url: page.url(), screenshot: saved, text }
}

/** Playwright's messages carry a call log after the first line. */
function firstLine(error) {
  return String(error?.message ?? error).split("\n")[0]
}

module.exports = { CASES, CARDS, runCase }
