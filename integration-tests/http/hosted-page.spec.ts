import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import fs from "node:fs"
import path from "node:path"
import zlib from "node:zlib"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { request } from "undici"
import { launchChromium } from "../../tests/helpers/chromium"
import { wcagCheck } from "../../tests/helpers/axe"
import { payLikeABrowser } from "../helpers/browser-step"
import { useCardServiceSandbox } from "../helpers/card-service-env"
import { CARDS, cartWithSession } from "../helpers/checkout-flow"

jest.setTimeout(240_000)

/**
 * The hosted payment page as shoppers in the EU meet it (issue 17): in
 * their language, on a 390 px phone, by keyboard alone, checked with
 * axe-core against WCAG 2.1 A/AA, and compressed. Screenshots go to
 * test-results/ (git-ignored); docs/hosted-page.md shows copies.
 */

// The store owner's own strings (the `messages` option), through the dev
// store's CARD_SERVICE_MESSAGES: a corrected German string and a language
// the plugin does not ship. Test files may share a process: restored after.
const previousMessages = process.env.CARD_SERVICE_MESSAGES
process.env.CARD_SERVICE_MESSAGES = JSON.stringify({
  de: { "pay.back": "Zurück zum Musterladen" },
  es: { "page.heading": "Pagar {amount}", "pay.button": "Pagar {amount}" },
})
afterAll(() => {
  if (previousMessages === undefined) delete process.env.CARD_SERVICE_MESSAGES
  else process.env.CARD_SERVICE_MESSAGES = previousMessages
})

const env = useCardServiceSandbox({ storefrontPage: true })
const SHOTS = path.join(__dirname, "..", "..", "test-results")
const PHONE = { width: 390, height: 844 }
const GERMAN_DECLINE =
  "Ihre Bank hat die Zahlung abgelehnt. Versuchen Sie es mit einer anderen Karte."

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    let browser: Browser
    let context: BrowserContext | undefined

    beforeAll(async () => {
      fs.mkdirSync(SHOTS, { recursive: true })
      browser = await launchChromium()
    })
    afterEach(async () => {
      await context?.close()
      context = undefined
    })
    afterAll(async () => {
      await browser?.close()
    })

    async function open(
      url: string,
      options: { locale?: string; viewport?: typeof PHONE } = {}
    ) {
      context = await browser.newContext({
        viewport: options.viewport ?? PHONE,
        locale: options.locale ?? "en-US",
      })
      const page = await context.newPage()
      /** URL -> Content-Encoding of each response the page loaded. */
      const encodings = new Map<string, string>()
      page.on("response", (response) =>
        encodings.set(
          new URL(response.url()).pathname,
          response.headers()["content-encoding"] ?? "identity"
        )
      )
      await page.goto(url)
      return { page, encodings }
    }

    async function expectAccessible(
      page: Page,
      state: string,
      minimumRules = 10
    ) {
      const { violations, passedRules } = await wcagCheck(page)
      expect({ state, violations }).toEqual({ state, violations: [] })
      // axe checked something: a form passes a dozen rules, a one-sentence page fewer.
      expect(passedRules).toBeGreaterThanOrEqual(minimumRules)
    }

    /** The Pay button lies wholly inside the first screen: no scrolling needed. */
    async function expectPayButtonInView(page: Page) {
      const box = await page.locator("#pay-button").boundingBox()
      expect(box).not.toBeNull()
      expect(box!.y).toBeGreaterThanOrEqual(0)
      expect(box!.y + box!.height).toBeLessThanOrEqual(PHONE.height)
    }

    it("puts the card fields and the Pay button on the first phone screen, billing from the cart collapsed; passes axe at 390 and 1280 px; compressed", async () => {
      const { session } = await cartWithSession(api, getContainer())
      const { page, encodings } = await open(session.data.pay_url)

      expect(await page.getAttribute("html", "lang")).toBe("en-US")
      expect(await page.textContent("h1")).toBe("Pay €30.00")
      // Two requests, both brotli: Chromium asks for it on loopback too.
      await page.waitForLoadState("load")
      expect(Object.fromEntries(encodings)).toEqual({
        [new URL(session.data.pay_url).pathname]: "br",
        "/card-service/assets/pay-page.js": "br",
      })

      // What the cart holds is summed up and tucked away; nothing preselected for expiry.
      expect(await page.textContent("#billing-summary")).toContain(
        "Unter den Linden 1, 10117 Berlin, Germany"
      )
      expect(
        await page
          .locator("#billing-details")
          .evaluate((d: HTMLDetailsElement) => d.open)
      ).toBe(false)
      expect(await page.locator("#address").isVisible()).toBe(false)
      expect(await page.inputValue("#expiry-month")).toBe("")
      expect(await page.inputValue("#expiry-year")).toBe("")
      expect(await page.getAttribute("#email", "type")).toBe("email")
      expect(await page.getAttribute("#phone", "type")).toBe("tel")
      expect(await page.getAttribute("#first-name", "autocomplete")).toBe(
        "cc-given-name"
      )
      expect(
        await page.getByRole("group", { name: "Expiry date" }).count()
      ).toBe(1)
      await expectPayButtonInView(page)
      await expectAccessible(page, "phone")
      await page.screenshot({
        path: path.join(SHOTS, "hosted-page-390.png"),
        fullPage: true,
      })

      // The address opens with its control, and the page stays accessible.
      await page.getByText("Edit billing address").click()
      expect(await page.inputValue("#address")).toBe("Unter den Linden 1")
      expect(await page.inputValue("#country")).toBe("DE")
      await expectAccessible(page, "billing open")

      await page.setViewportSize({ width: 1280, height: 900 })
      await page.getByText("Edit billing address").click()
      await expectAccessible(page, "desktop")
      await page.screenshot({
        path: path.join(SHOTS, "hosted-page-1280.png"),
        fullPage: true,
      })
    })

    it("shows each error by its field, tied with aria-describedby, focused and announced, and still passes axe", async () => {
      const { session } = await cartWithSession(api, getContainer())
      context = await browser.newContext({ viewport: PHONE, locale: "en-US" })
      const page = await context.newPage()
      // The browser's clock in June two years on: May of that year is in
      // the year list, and past for the browser.
      const later = new Date().getUTCFullYear() + 2
      await page.clock.setFixedTime(new Date(`${later}-06-15T12:00:00Z`))
      await page.goto(session.data.pay_url)

      await page.click("#pay-button")
      expect(await page.evaluate(() => document.activeElement?.id)).toBe(
        "card-number"
      )
      expect(await page.getAttribute("#card-number", "aria-invalid")).toBe(
        "true"
      )
      expect(await page.getAttribute("#card-number", "aria-describedby")).toBe(
        "card-number-error"
      )
      expect(await page.textContent("#card-number-error")).toBe(
        "Please fill in this field."
      )
      expect(await page.textContent("#expiry-month-error")).toBe(
        "Please choose one."
      )
      await page
        .locator("#form-status")
        .filter({ hasText: "Please check the fields marked below." })
        .waitFor()
      // Still on the page: nothing went to the service.
      expect(page.url()).toBe(session.data.pay_url)

      await page.fill("#card-number", "4000 0000 0000 1001")
      await page.selectOption("#expiry-month", "05")
      await page.selectOption("#expiry-year", String(later))
      await page.click("#pay-button")
      expect(await page.textContent("#card-number-error")).toBe(
        "This card number is not valid. Please check it."
      )
      expect(await page.textContent("#expiry-month-error")).toBe(
        "This expiry date has passed. Check the date on your card."
      )
      expect(await page.locator("#card-type-error").isVisible()).toBe(false)

      // A bad field behind "Edit billing address" opens it.
      await page.getByText("Edit billing address").click()
      await page.fill("#email", "not-an-address")
      await page.getByText("Edit billing address").click()
      await page.fill("#card-number", "4000000000001000")
      await page.click("#pay-button")
      expect(
        await page
          .locator("#billing-details")
          .evaluate((d: HTMLDetailsElement) => d.open)
      ).toBe(true)
      expect(await page.textContent("#email-error")).toBe(
        "Enter an e-mail address such as name@example.com."
      )
      expect(await page.locator("#card-number-error").isVisible()).toBe(false)

      await expectAccessible(page, "errors shown")
      await page.screenshot({
        path: path.join(SHOTS, "hosted-page-errors-390.png"),
        fullPage: true,
      })
    })

    it("pays by keyboard alone", async () => {
      const { session } = await cartWithSession(api, getContainer())
      const { page } = await open(session.data.pay_url)
      const focused = () =>
        page.evaluate(() => document.activeElement?.id ?? "")
      const year = String(new Date().getFullYear() + 3)

      await page.keyboard.press("Tab")
      expect(await focused()).toBe("card-number")
      await page.keyboard.type("4000 0000 0000 1000")
      await page.keyboard.press("Tab")
      expect(await focused()).toBe("card-type")
      expect(await page.inputValue("#card-type")).toBe("VISA")
      await page.keyboard.press("Tab")
      expect(await focused()).toBe("first-name")
      await page.keyboard.press("Tab")
      expect(await focused()).toBe("last-name")
      await page.keyboard.press("Tab")
      expect(await focused()).toBe("expiry-month")
      await page.keyboard.type("12")
      expect(await page.inputValue("#expiry-month")).toBe("12")
      await page.keyboard.press("Tab")
      expect(await focused()).toBe("expiry-year")
      await page.keyboard.type(year)
      expect(await page.inputValue("#expiry-year")).toBe(year)
      await page.keyboard.press("Tab")
      expect(await page.evaluate(() => document.activeElement?.tagName)).toBe(
        "SUMMARY"
      )
      await page.keyboard.press("Tab")
      expect(await focused()).toBe("pay-button")
      // The focus ring is there to see (2.4.7).
      const ring = await page.locator("#pay-button").evaluate((button) => {
        const style = getComputedStyle(button)
        return `${style.outlineStyle} ${style.outlineWidth}`
      })
      expect(ring).toBe("solid 3px")

      await Promise.all([
        page.waitForURL(`${env.storefrontUrl()}/**`),
        page.keyboard.press("Enter"),
      ])
      expect(await page.textContent("#order-id")).toMatch(/^order_/)
    })

    it("speaks German to a German shopper: lang, 30,00 €, a German decline on the storefront and above the form on return", async () => {
      const { session } = await cartWithSession(api, getContainer())
      const { page } = await open(session.data.pay_url, { locale: "de-DE" })

      expect(await page.getAttribute("html", "lang")).toBe("de-DE")
      // Intl's German amount: a comma and a no-break space before the sign.
      expect(await page.textContent("h1")).toBe("30,00\u00a0€ bezahlen")
      expect(await page.textContent("#pay-button")).toBe(
        "30,00\u00a0€ bezahlen"
      )
      expect(await page.textContent("label[for=card-number]")).toBe(
        "Kartennummer"
      )
      expect(await page.textContent("#billing-summary")).toContain(
        "10117 Berlin, Deutschland"
      )
      // The store owner's own wording for German wins over the built-in one.
      expect(await page.textContent(".back a")).toBe("Zurück zum Musterladen")

      await page.fill("#card-number", CARDS.declined.number)
      await page.selectOption("#expiry-month", "12")
      await page.selectOption(
        "#expiry-year",
        String(new Date().getFullYear() + 3)
      )
      await Promise.all([
        page.waitForURL(`${env.storefrontUrl()}/**`),
        page.click("#pay-button"),
      ])
      expect(await page.textContent("#status")).toBe("failed")
      expect(await page.textContent("#reason")).toBe(GERMAN_DECLINE)
      // The code is for the storefront's logic and the admin, not for reading.
      expect(new URL(page.url()).searchParams.get("reason_code")).toBe("203")

      // Back on the payment page: why, above the form, and still one screen to Pay.
      await page.goto(session.data.pay_url)
      const notice = page.locator("#previous-failure")
      expect(await notice.textContent()).toBe(
        `Ihre letzte Zahlung hat nicht geklappt. ${GERMAN_DECLINE}`
      )
      expect(await notice.getAttribute("role")).toBe("alert")
      const noticeBox = (await notice.boundingBox())!
      const formBox = (await page.locator("#card-number").boundingBox())!
      expect(noticeBox.y + noticeBox.height).toBeLessThanOrEqual(formBox.y)
      await expectPayButtonInView(page)
      await expectAccessible(page, "German, after a decline")
      await page.screenshot({
        path: path.join(SHOTS, "hosted-page-de-declined-390.png"),
        fullPage: true,
      })
    })

    it("prefers the cart's locale to the browser's, and says the return reason and the session's failure in it", async () => {
      const { store, session } = await cartWithSession(
        api,
        getContainer(),
        undefined,
        undefined,
        { locale: "fr-FR" }
      )
      const page = await request(session.data.pay_url, {
        headers: {
          "accept-language": "de-DE,de;q=0.9",
          "accept-encoding": "identity",
        },
      })
      const html = await page.body.text()
      expect(page.headers["content-language"]).toBe("fr-FR")
      expect(html).toContain('<html lang="fr-FR">')
      expect(html).toContain("<h1>Payer 30,00\u00a0€</h1>")

      const paid = await payLikeABrowser(
        api,
        store.publishableKey,
        session.id,
        CARDS.declined
      )
      expect(paid.storefrontLocation!.searchParams.get("reason")).toBe(
        "Votre banque a refusé le paiement. Essayez avec une autre carte."
      )
      const { data } = await api.get(
        `/store/card-service/sessions/${session.id}`,
        {
          headers: {
            "x-publishable-api-key": store.publishableKey,
            "accept-language": "de-DE",
          },
        }
      )
      expect(data.session.failure).toEqual({
        code: "203",
        message:
          "Votre banque a refusé le paiement. Essayez avec une autre carte.",
      })
    })

    it("adds a language from the messages option, and answers an unknown address in the browser's language", async () => {
      const { session } = await cartWithSession(api, getContainer())
      const spanish = await (
        await request(session.data.pay_url, {
          headers: { "accept-language": "es-ES,es;q=0.9" },
        })
      ).body.text()
      expect(spanish).toContain('<html lang="es-ES">')
      expect(spanish).toContain("<h1>Pagar 30,00\u00a0€</h1>")
      // What the store owner did not translate reads in English.
      expect(spanish).toContain("Card number")

      const missing = await request(
        `${env.backendUrl()}/card-service/pay/payses_unknown`,
        {
          headers: { "accept-language": "nl-BE,nl;q=0.8" },
        }
      )
      expect(missing.statusCode).toBe(404)
      const text = await missing.body.text()
      expect(text).toContain('<html lang="nl-BE">')
      expect(text).toContain("<h1>Betaling niet gevonden</h1>")
      // The same page in a Belgian Dutch browser, under axe.
      const { page } = await open(
        `${env.backendUrl()}/card-service/pay/payses_unknown`,
        { locale: "nl-BE" }
      )
      expect(await page.textContent("h1")).toBe("Betaling niet gevonden")
      await expectAccessible(page, "message page", 5)
    })

    it("compresses the page and its script with brotli or gzip as asked, and not when not asked", async () => {
      const { session } = await cartWithSession(api, getContainer())
      const decoders: Record<string, (body: Buffer) => Buffer> = {
        br: zlib.brotliDecompressSync,
        gzip: zlib.gunzipSync,
        identity: (body) => body,
      }
      const sizes: Record<string, Record<string, number>> = {
        page: {},
        script: {},
      }
      const etags = new Set<string>()
      for (const [asked, expected] of [
        ["gzip, deflate, br", "br"],
        ["gzip;q=1, br;q=0.5", "gzip"],
        ["br;q=0, gzip", "gzip"],
        ["identity", "identity"],
      ]) {
        for (const [name, url] of [
          ["page", session.data.pay_url],
          ["script", `${env.backendUrl()}/card-service/assets/pay-page.js`],
        ]) {
          const response = await request(url, {
            headers: { "accept-encoding": asked },
          })
          const body = Buffer.from(await response.body.arrayBuffer())
          expect({
            name,
            asked,
            encoding: response.headers["content-encoding"] ?? "identity",
          }).toEqual({
            name,
            asked,
            encoding: expected,
          })
          expect(response.headers.vary).toMatch(/Accept-Encoding/)
          expect(Number(response.headers["content-length"])).toBe(body.length)
          const text = decoders[expected](body).toString("utf8")
          expect(text).toContain(
            name === "page" ? "<!doctype html>" : "card-service-form"
          )
          sizes[name][expected] = body.length
          if (name === "script") etags.add(String(response.headers.etag))
        }
      }
      expect(sizes.page.br).toBeLessThan(sizes.page.identity / 2)
      expect(sizes.script.gzip).toBeLessThan(sizes.script.identity / 2)
      // One tag per encoding, and a revalidation answers 304.
      expect(etags.size).toBe(3)
      const first = await request(
        `${env.backendUrl()}/card-service/assets/pay-page.js`,
        {
          headers: { "accept-encoding": "br" },
        }
      )
      await first.body.dump()
      const again = await request(
        `${env.backendUrl()}/card-service/assets/pay-page.js`,
        {
          headers: {
            "accept-encoding": "br",
            "if-none-match": String(first.headers.etag),
          },
        }
      )
      await again.body.dump()
      expect(again.statusCode).toBe(304)
    })
  },
})
