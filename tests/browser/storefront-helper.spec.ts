import { randomUUID } from "node:crypto"
import { createServer, Server } from "node:http"
import { AddressInfo } from "node:net"
import path from "node:path"
import { Browser, Page } from "playwright-core"
import { CardServiceSandbox, startSandbox, TEST_CARDS } from "../../src/sandbox"
import { launchChromium } from "../helpers/chromium"

jest.setTimeout(90_000)

const ROOT = path.join(__dirname, "..", "..")
const SESSION_ID = "payses_storefront_test"
const PUBLISHABLE_KEY = "pk_storefront_test"
const APPROVED_VISA = TEST_CARDS.find(
  (c) =>
    c.cardType === "VISA" &&
    c.threeDs === "frictionless" &&
    c.reasonCode === "100"
)!.number

/**
 * A custom storefront in miniature, on one origin: a page bundling the
 * helper, a page bundling the React component, a fake Medusa backend
 * answering the form route with a descriptor built against the real sandbox,
 * and the callback and return URLs the sandbox sends the result to.
 */
type Storefront = {
  base: string
  /** merchantReferenceCode of every descriptor handed out, in order. */
  references: string[]
  formRequests: { publishableKey: string | undefined }[]
  callbacks: Record<string, unknown>[]
  close: () => Promise<void>
}

async function bundle(contents: string): Promise<string> {
  const esbuild = await import("esbuild")
  const result = await esbuild.build({
    stdin: {
      contents,
      resolveDir: ROOT,
      loader: "tsx",
      sourcefile: "entry.tsx",
    },
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: ["es2019"],
    jsx: "automatic",
    define: { "process.env.NODE_ENV": '"production"' },
    logLevel: "silent",
  })
  return result.outputFiles[0].text
}

const HELPER_ENTRY = `
import { fetchCardServiceForm, submitCardServiceForm, cardTypeFor } from "./src/storefront"
const $ = (id: string) => document.getElementById(id) as HTMLInputElement
$("number").addEventListener("input", () => { $("brand").textContent = cardTypeFor($("number").value) ?? "" })
$("pay").addEventListener("click", async () => {
  $("error").textContent = ""
  try {
    const descriptor = await fetchCardServiceForm({
      backendUrl: location.origin,
      publishableKey: ${JSON.stringify(PUBLISHABLE_KEY)},
      sessionId: ${JSON.stringify(SESSION_ID)},
    })
    submitCardServiceForm(descriptor, {
      number: $("number").value,
      expiryMonth: $("month").value,
      expiryYear: $("year").value,
    }, { city: $("city").value })
  } catch (error) {
    $("error").textContent = (error as Error).message
    $("error").dataset.code = (error as { code?: string }).code ?? ""
  }
})
`

const REACT_ENTRY = `
import { createRoot } from "react-dom/client"
import { CardServicePayment } from "./src/storefront/react"
createRoot(document.getElementById("root")!).render(
  <CardServicePayment
    backendUrl={location.origin}
    publishableKey=${JSON.stringify(PUBLISHABLE_KEY)}
    sessionId=${JSON.stringify(SESSION_ID)}
    submitLabel="Pay EUR 30.00"
  />
)
`

async function startStorefront(
  sandbox: CardServiceSandbox
): Promise<Storefront> {
  const [helperJs, reactJs] = await Promise.all([
    bundle(HELPER_ENTRY),
    bundle(REACT_ENTRY),
  ])
  const shop = {
    references: [],
    formRequests: [],
    callbacks: [],
  } as unknown as Storefront
  const page = (title: string, body: string, script: string) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}<script src="${script}"></script></body></html>`

  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const url = new URL(req.url ?? "/", shop.base)
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, {
        "content-type": type,
        "cache-control": "no-store",
      })
      res.end(body)
    }
    if (req.method === "GET" && url.pathname === "/helper") {
      return send(
        200,
        "text/html; charset=utf-8",
        page(
          "Helper checkout",
          `<label>Card number <input id="number" inputmode="numeric"></label><span id="brand"></span>
<label>Month <input id="month"></label><label>Year <input id="year"></label>
<label>City <input id="city" value="Hamburg"></label>
<p id="error" role="alert"></p><button id="pay" type="button">Pay</button>`,
          "/helper.js"
        )
      )
    }
    if (req.method === "GET" && url.pathname === "/react") {
      return send(
        200,
        "text/html; charset=utf-8",
        page("React checkout", `<div id="root"></div>`, "/react.js")
      )
    }
    if (req.method === "GET" && url.pathname === "/helper.js") {
      return send(200, "text/javascript; charset=utf-8", helperJs)
    }
    if (req.method === "GET" && url.pathname === "/react.js") {
      return send(200, "text/javascript; charset=utf-8", reactJs)
    }
    if (
      req.method === "GET" &&
      url.pathname === `/store/card-service/sessions/${SESSION_ID}/form`
    ) {
      const publishableKey = req.headers["x-publishable-api-key"] as
        string | undefined
      shop.formRequests.push({ publishableKey })
      if (publishableKey !== PUBLISHABLE_KEY) {
        return send(
          400,
          "application/json",
          JSON.stringify({
            type: "not_allowed",
            message: "A valid publishable key is required",
          })
        )
      }
      // What the plugin's form route answers: one attempt's hidden fields,
      // a fresh reference each call (section 8), billing prefilled.
      const merchantReferenceCode = `sf-${randomUUID()}`
      shop.references.push(merchantReferenceCode)
      const form = {
        action: `${sandbox.url}/order/start`,
        method: "POST",
        enctype: "application/x-www-form-urlencoded",
        fields: {
          merchantId: sandbox.credentials.merchantId,
          verifyId: sandbox.credentials.verifyId,
          authorization: sandbox.issueVerificationCode(),
          merchantReferenceCode,
          currency: "978",
          amount: "30.00",
          callbackLocation: `${shop.base}/callback/`,
          redirectUrl: `${shop.base}/return/`,
          isWindowed: "N",
          isRedirect: "Y",
          isAuthenticate: "Y",
          firstName: "Ada",
          lastName: "Lovelace",
          email: "ada@example.com",
          phone: "+4930123456",
          address: "Unter den Linden 1",
          city: "Berlin",
          postalCode: "10117",
          country: "DE",
        },
        card_fields: [
          "cardAccountNumber",
          "cardType",
          "cardExpirationMonth",
          "cardExpirationYear",
        ],
      }
      return send(200, "application/json", JSON.stringify({ form }))
    }
    if (
      req.method === "GET" &&
      url.pathname.startsWith("/store/card-service/sessions/")
    ) {
      return send(
        404,
        "application/json",
        JSON.stringify({
          type: "not_found",
          message: "Card-service payment session not found",
        })
      )
    }
    if (req.method === "POST" && url.pathname === "/callback/") {
      shop.callbacks.push(JSON.parse(Buffer.concat(chunks).toString("utf8")))
      return send(200, "text/plain", "ok")
    }
    if (req.method === "GET" && url.pathname === "/return/") {
      return send(
        200,
        "text/html; charset=utf-8",
        `<!doctype html><title>Back in the shop</title><h1 id="result">${url.searchParams.get("decision")}</h1>`
      )
    }
    send(404, "text/plain", "not found")
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  shop.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  shop.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
  return shop
}

describe("storefront helper and React component in a real browser (Debian chromium)", () => {
  let browser: Browser
  let sandbox: CardServiceSandbox
  let shop: Storefront
  let expiryYear: string

  beforeAll(async () => {
    browser = await launchChromium()
    sandbox = await startSandbox({ port: 0 })
    shop = await startStorefront(sandbox)
    // Section 2.2: test cards expire in the current year plus 3.
    expiryYear = String(new Date(sandbox.now()).getUTCFullYear() + 3)
  })
  afterAll(async () => {
    await browser?.close()
    await shop?.close()
    await sandbox?.close()
  })

  /** Every request the page sends to the card service. */
  function serviceRequests(page: Page): string[] {
    const seen: string[] = []
    page.on("request", (request) => {
      if (request.url().startsWith(sandbox.url))
        seen.push(`${request.method()} ${request.url()}`)
    })
    return seen
  }

  /** The browser came back with an approval, the shop got the callback, the sandbox recorded it. */
  async function expectApproved(page: Page, reference: string) {
    const landed = new URL(page.url())
    expect(`${landed.origin}${landed.pathname}`).toBe(`${shop.base}/return/`)
    const transactionId = landed.searchParams.get("transactionId")
    expect(transactionId).toMatch(/^\d+$/)
    expect(landed.searchParams.get("decision")).toBe("ACCEPT")
    expect(landed.searchParams.get("merchantReferenceCode")).toBe(reference)
    expect(await page.textContent("#result")).toBe("ACCEPT")

    expect(sandbox.transaction(transactionId!)).toMatchObject({
      transactionId,
      merchantReferenceCode: reference,
      step: "AUTHORIZATION",
      status: "successful",
      reasonCode: "100",
      cardType: "VISA",
      cardSuffix: "1000",
      amount: 30,
    })
    expect(
      shop.callbacks.find((c) => c.merchantReferenceCode === reference)
    ).toMatchObject({
      decision: "ACCEPT",
      reasonCode: "100",
      transactionId,
    })
    const callback = sandbox
      .callbacks()
      .find((c) => c.merchantReferenceCode === reference)
    expect(callback?.ok).toBe(true)
  }

  it("helper: fetches the form, posts it as a navigation and lands on redirectUrl with an approval", async () => {
    const page = await browser.newPage()
    const requests = serviceRequests(page)
    await page.goto(`${shop.base}/helper`)
    await page.fill("#number", "4000 0000 0000 1000")
    expect(await page.textContent("#brand")).toBe("VISA")
    await page.fill("#month", "12")
    await page.fill("#year", expiryYear)
    const posted = page.waitForRequest(
      (r) => r.url() === `${sandbox.url}/order/start`
    )
    await Promise.all([
      page.waitForURL(`${shop.base}/return/**`),
      page.click("#pay"),
    ])
    const request = await posted
    // A real navigation (the service's Fetch Metadata check), digits only.
    expect(request.isNavigationRequest()).toBe(true)
    const body = new URLSearchParams(request.postData() ?? "")
    expect(body.get("cardAccountNumber")).toBe(APPROVED_VISA)
    expect(body.get("cardType")).toBe("VISA")
    expect(body.get("cardExpirationYear")).toBe(expiryYear)
    expect(body.get("city")).toBe("Hamburg")

    const reference = shop.references.at(-1)!
    expect(shop.formRequests.at(-1)).toEqual({
      publishableKey: PUBLISHABLE_KEY,
    })
    await expectApproved(page, reference)
    // One top-level POST to /order/start: the card went from the browser to the service.
    expect(requests.filter((r) => r.startsWith("POST "))).toEqual([
      `POST ${sandbox.url}/order/start`,
    ])
    await page.close()
  })

  it("helper: refuses a number that fails the Luhn check in the page; nothing is posted", async () => {
    const page = await browser.newPage()
    const requests = serviceRequests(page)
    const before = sandbox.transactions().length
    await page.goto(`${shop.base}/helper`)
    await page.fill("#number", "4000 0000 0000 1001")
    await page.fill("#month", "12")
    await page.fill("#year", expiryYear)
    await page.click("#pay")
    await page.waitForFunction(
      () => document.getElementById("error")!.textContent !== ""
    )

    expect(await page.textContent("#error")).toBe(
      "This card number is not valid. Please check it."
    )
    expect(await page.getAttribute("#error", "data-code")).toBe(
      "invalid_card_number"
    )
    expect(new URL(page.url()).pathname).toBe("/helper")
    expect(await page.locator("form[data-card-service-form]").count()).toBe(0)
    expect(requests).toEqual([])
    expect(sandbox.transactions().length).toBe(before)
    await page.close()
  })

  it("React component: prefilled billing, brand auto-set, posts to the service and comes back approved", async () => {
    const page = await browser.newPage()
    const requests = serviceRequests(page)
    await page.goto(`${shop.base}/react`)
    const number = page.getByLabel("Card number")
    await number.waitFor()
    // Billing fields come prefilled from the descriptor and stay editable.
    expect(await page.getByLabel("First name").inputValue()).toBe("Ada")
    expect(await page.getByLabel("City").inputValue()).toBe("Berlin")
    await page.getByLabel("City").fill("Potsdam")

    await number.fill(APPROVED_VISA)
    expect(await page.getByLabel("Card company").inputValue()).toBe("VISA")
    expect(
      await page.locator(".card-service-payment__brand").textContent()
    ).toBe("Visa")
    await page.getByLabel("Expiry month").selectOption("12")
    await page.getByLabel("Expiry year").selectOption(expiryYear)

    const posted = page.waitForRequest(
      (r) => r.url() === `${sandbox.url}/order/start`
    )
    await Promise.all([
      page.waitForURL(`${shop.base}/return/**`),
      page.getByRole("button", { name: "Pay EUR 30.00" }).click(),
    ])
    const body = new URLSearchParams((await posted).postData() ?? "")
    // The shopper's edit went with the post, the hidden fields as handed out.
    expect(body.get("city")).toBe("Potsdam")
    expect(body.get("cardAccountNumber")).toBe(APPROVED_VISA)
    expect(body.get("amount")).toBe("30.00")
    expect(body.has("state")).toBe(false)

    await expectApproved(page, shop.references.at(-1)!)
    expect(requests.filter((r) => r.startsWith("POST "))).toEqual([
      `POST ${sandbox.url}/order/start`,
    ])
    await page.close()
  })

  it("React component: shows the Luhn message and posts nothing", async () => {
    const page = await browser.newPage()
    const requests = serviceRequests(page)
    const before = sandbox.transactions().length
    await page.goto(`${shop.base}/react`)
    const number = page.getByLabel("Card number")
    await number.fill("4000000000001001")
    await page.getByLabel("Expiry month").selectOption("12")
    await page.getByLabel("Expiry year").selectOption(expiryYear)
    await page.getByRole("button", { name: "Pay EUR 30.00" }).click()

    await expect(page.getByRole("alert").first().textContent()).resolves.toBe(
      "This card number is not valid. Please check it."
    )
    expect(await number.getAttribute("aria-invalid")).toBe("true")
    expect(new URL(page.url()).pathname).toBe("/react")
    expect(requests).toEqual([])
    expect(sandbox.transactions().length).toBe(before)
    await page.close()
  })
})
