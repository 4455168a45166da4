import { ChildProcess, spawn } from "node:child_process"
import fs from "node:fs"
import http from "node:http"
import os from "node:os"
import path from "node:path"
import { Browser, Page } from "playwright-core"
import {
  adminPost,
  adminToken,
  cardServicePayment,
  logIn,
} from "../helpers/admin-http"
import { launchChromium } from "../helpers/chromium"
import { wcagCheck } from "../helpers/axe"
import { exited, freePorts, readyLine, Ready, signalGroup } from "../helpers/demo-process"

/**
 * The admin screens in the dashboard of a running store (`npm run demo`):
 * a store owner logs in, reads Settings > Card service and tests the
 * connection, then opens an order paid with the card service, reads the
 * service's transactions and voids a pending refund. Screenshots of both
 * screens go to test-results/ (git-ignored). A first demo run (migrations,
 * seeding, admin build) in a fresh data folder takes a few minutes.
 */
jest.setTimeout(12 * 60_000)

const ROOT = path.resolve(__dirname, "..", "..")
const SHOTS = path.join(ROOT, "test-results")

describe("admin screens of the card service", () => {
  let demo: ChildProcess | undefined
  let dataDir: string
  let output = ""
  let browser: Browser | undefined
  let ready: Ready

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "card-service-admin-"))
    // As root the demo's PostgreSQL runs as another user, who must pass through.
    fs.chmodSync(dataDir, 0o711)
    fs.mkdirSync(SHOTS, { recursive: true })
    const [backendPort, storefrontPort, sandboxPort] = await freePorts(3)
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DEMO_DATA_DIR: dataDir,
      DEMO_BACKEND_PORT: String(backendPort),
      DEMO_STOREFRONT_PORT: String(storefrontPort),
      DEMO_SANDBOX_PORT: String(sandboxPort),
    }
    delete env.NODE_OPTIONS
    // Its own process group, so that stopping it reaches every child.
    demo = spawn("npm", ["run", "demo"], {
      cwd: ROOT,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    })
    demo.stdout!.on("data", (chunk) => (output += chunk))
    demo.stderr!.on("data", (chunk) => (output += chunk))
    ready = await readyLine(demo, () => output, 8 * 60_000)

    browser = await launchChromium()
  })

  afterAll(async () => {
    await browser?.close()
    if (demo?.pid && demo.exitCode === null && demo.signalCode === null) {
      signalGroup(demo.pid, "SIGINT")
      await exited(demo, 60_000).catch(() => signalGroup(demo!.pid!, "SIGKILL"))
    }
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it("refuses a cross-site auto-submitting form that rides the admin's session cookie", async () => {
    const context = await browser!.newContext()
    const page = await context.newPage()
    await logIn(page, ready)
    // Another site: the backend's host by another name (localhost and
    // 127.0.0.1 are different sites to the browser).
    const backend = new URL(ready.backend)
    const attackerHost =
      backend.hostname === "localhost" ? "127.0.0.1" : "localhost"
    const attacker = http.createServer((_req, res) => {
      res.setHeader("Content-Type", "text/html")
      res.end(
        `<form method="POST" action="${ready.backend}/admin/card-service/test-connection">` +
          `<input name="provider_id" value="pp_card-service_card-service"></form><script>document.forms[0].submit()</script>`
      )
    })
    await new Promise<void>((resolve) =>
      attacker.listen(0, attackerHost, resolve)
    )
    try {
      const { port } = attacker.address() as { port: number }
      const answer = page.waitForResponse((r) =>
        r.url().includes("/admin/card-service/test-connection")
      )
      await page.goto(`http://${attackerHost}:${port}/`)
      const response = await answer
      const sent = await response.request().allHeaders()

      // The browser did send the session cookie: only the guard stops it.
      expect(sent.cookie).toBeTruthy()
      expect(response.status()).toBe(403)
      // JSON only, also with a token: a form body is 415.
      const token = await adminToken(ready)
      const formBody = await fetch(
        `${ready.backend}/admin/card-service/test-connection`,
        {
          method: "POST",
          headers: {
            "Content-Type": "application/x-www-form-urlencoded",
            Authorization: `Bearer ${token}`,
          },
          body: "provider_id=pp_card-service_card-service",
        }
      )
      expect(formBody.status).toBe(415)
    } finally {
      attacker.close()
      await context.close()
    }
  })

  it("shows the settings, tests the connection, lists an order's service transactions and voids a pending refund", async () => {
    const shopper = await browser!.newPage()
    const orderId = await buyWithChallengeCard(shopper, ready)
    await shopper.close()

    // Capture, then refund 10 of it, through Medusa's own admin API: the
    // refund stays PENDING at the service (the demo's settlement time is minutes).
    const token = await adminToken(ready)
    const payment = await cardServicePayment(ready, token, orderId)
    await adminPost(ready, token, `/admin/payments/${payment.id}/capture`, {})
    await adminPost(ready, token, `/admin/payments/${payment.id}/refund`, {
      amount: 10,
    })

    const page = await browser!.newPage({
      viewport: { width: 1440, height: 1000 },
    })
    await logIn(page, ready)

    // Settings > Card service
    await page.goto(`${ready.admin}/settings/card-service`)
    const settings = page.locator("main")
    await settings
      .getByRole("heading", { name: "Card service" })
      .waitFor({ timeout: 60_000 })
    await settings.getByText("Test mode").waitFor()
    await settings.getByText(ready.sandbox, { exact: true }).waitFor()
    await settings
      .getByText(`${ready.backend}/card-service/callback/{session_id}/`)
      .waitFor()
    await settings.getByText("sandbox-merchant", { exact: true }).waitFor()
    await settings
      .getByRole("link", { name: /Europe|Region/ })
      .first()
      .waitFor()
    await settings.getByRole("button", { name: "Test connection" }).click()
    const result = settings.getByTestId("card-service-connection-result")
    await result.waitFor()
    expect(await result.textContent()).toMatch(
      /Connected: the service issued a merchant verification code in [\d.]+ ms/
    )
    const settingsText = (await settings.textContent()) ?? ""
    expect(settingsText).not.toContain("sandbox-secret")
    // What the plugin renders inside the dashboard: WCAG 2.1 A/AA by axe.
    const settingsCheck = await wcagCheck(page, [
      "[data-testid=card-service-settings]",
    ])
    expect(settingsCheck.violations).toEqual([])
    expect(settingsCheck.passedRules).toBeGreaterThan(5)
    await page.screenshot({
      path: path.join(SHOTS, "admin-settings-card-service.png"),
      fullPage: true,
    })

    // The order, with the widget
    await page.goto(`${ready.admin}/orders/${orderId}`)
    const widget = page.getByTestId("card-service-order-widget")
    await widget.waitFor({ timeout: 60_000 })
    const rows = widget.getByTestId("card-service-transaction")
    await rows.nth(2).waitFor({ timeout: 30_000 })
    await widget.getByText("VISA •••• 1008").waitFor()
    expect(await rows.count()).toBe(3)
    expect(await rows.nth(0).textContent()).toMatch(/Approval.*successful/)
    expect(await rows.nth(1).textContent()).toMatch(
      /Capture.*successful.*PENDING/
    )
    expect(await rows.nth(1).textContent()).toContain(
      "Not voidable: It has refunds that are not voided"
    )
    const refund = rows.nth(2)
    expect(await refund.textContent()).toMatch(/Refund.*successful.*PENDING/)
    expect(await refund.textContent()).toContain(
      "100 SOK: Successful transaction"
    )
    await page.screenshot({
      path: path.join(SHOTS, "admin-order-card-service-before-void.png"),
      fullPage: true,
    })

    await refund.getByRole("button", { name: "Void refund" }).click()
    await page
      .getByRole("alertdialog")
      .getByRole("button", { name: "Void" })
      .click()
    await rows.nth(3).waitFor({ timeout: 30_000 })
    await widget
      .getByText(/Medusa counts .*10.* refunded, the service/)
      .waitFor()
    expect(await rows.nth(2).textContent()).toMatch(/Refund.*VOIDED/)
    expect(await rows.nth(3).textContent()).toMatch(/Void.*successful/)
    // With its only refund voided, the capture can be voided now.
    await rows.nth(1).getByRole("button", { name: "Void capture" }).waitFor()
    await widget.scrollIntoViewIfNeeded()
    const widgetCheck = await wcagCheck(page, [
      "[data-testid=card-service-order-widget]",
    ])
    expect(widgetCheck.violations).toEqual([])
    expect(widgetCheck.passedRules).toBeGreaterThan(5)
    await page.screenshot({
      path: path.join(SHOTS, "admin-order-card-service.png"),
      fullPage: true,
    })

    const after = await cardServicePayment(ready, token, orderId)
    expect(after.data.refunded_amount).toBe(0)
  })

  it("shows a refund whose answer was lost, with its age, the action needed and its reference, and the capture the sweep confirmed", async () => {
    const shopper = await browser!.newPage()
    const orderId = await buyWithChallengeCard(shopper, ready)
    await shopper.close()
    const token = await adminToken(ready)
    const payment = await cardServicePayment(ready, token, orderId)
    // The sandbox in the demo's own process, driven over its /_sandbox/ controls:
    // the capture and its one repeat go unanswered, then the refund does.
    await sandboxFault(ready, { type: "destroy", count: 2, path: "/capture" })
    await adminPost(ready, token, `/admin/payments/${payment.id}/capture`, {})
    await sandboxFault(ready, { type: "destroy", path: "/refund" })
    await adminPost(ready, token, `/admin/payments/${payment.id}/refund`, {
      amount: 10,
    })
    const refundId = (
      await cardServicePayment(ready, token, orderId)
    ).data.transactions.find((t: any) => t.operation === "refund").key
    const page = await browser!.newPage({
      viewport: { width: 1440, height: 1000 },
    })
    await logIn(page, ready)
    await page.goto(`${ready.admin}/settings/card-service`)
    const list = page.getByTestId("card-service-attention")
    await list.waitFor({ timeout: 60_000 })
    const refundRow = list
      .getByTestId("reconcile-entry")
      .filter({ hasText: "refund unknown" })
      .filter({ hasText: payment.id })
    // The store owner sweeps now (the demo's own per-minute run may hold
    // the lock; the button then says so and is pressed again).
    await eventually(async () => {
      await list.getByRole("button", { name: "Sweep now" }).click()
      await list.getByTestId("card-service-sweep-result").waitFor()
      await page.waitForTimeout(500)
      return (await refundRow.count()) > 0
    })
    await refundRow.waitFor({ timeout: 30_000 })
    const refundText = (await refundRow.textContent()) ?? ""
    expect(refundText).toContain("Action needed")
    expect(refundText).toMatch(/payment pay_\w+, \d+ min ago/)
    expect(refundText).toContain("were not sent again")
    expect(refundText).toContain(`Look up at the card service: ${refundId}`)
    const captureRow = list
      .getByTestId("reconcile-entry")
      .filter({ hasText: "capture confirmed" })
      .filter({ hasText: payment.id })
    expect(await captureRow.textContent()).toContain("Action taken")
    // Cases that need action come first.
    expect(
      await list.getByTestId("reconcile-entry").first().textContent()
    ).toContain("Action needed")
    expect(await list.getByText(/^\d+ open$/).textContent()).not.toBe("0 open")
    const check = await wcagCheck(page, [
      "[data-testid=card-service-attention]",
    ])
    expect(check.violations).toEqual([])
    await page.screenshot({
      path: path.join(SHOTS, "admin-needs-attention.png"),
      fullPage: true,
    })

    // The order widget shows the same for its payment.
    await page.goto(`${ready.admin}/orders/${orderId}`)
    const sweep = page.getByTestId("card-service-sweep")
    await sweep.waitFor({ timeout: 60_000 })
    await sweep.getByText("refund unknown").waitFor()
    await sweep.getByText("capture confirmed").waitFor()
  })

  // Last in this file: it switches the store to automatic capture.
  it("switches capture to automatic in the admin, and the next checkout's payment is captured; refuses a wrong client secret", async () => {
    const page = await browser!.newPage({ viewport: { width: 1440, height: 1000 } })
    await logIn(page, ready)
    await page.goto(`${ready.admin}/settings/card-service`)
    const form = page.getByTestId("card-service-settings-form")
    await form.waitFor({ timeout: 60_000 })
    await form.getByText("From medusa-config.ts").first().waitFor()

    await form.getByLabel("Capture").selectOption("true")
    await form.getByRole("button", { name: "Save settings" }).click()
    await form.getByTestId("card-service-settings-saved").waitFor({ timeout: 30_000 })
    await form.getByTestId("card-service-settings-changes").getByText(
      // From medusa-config.ts's value to the one saved here.
      new RegExp(`${ready.adminEmail} changed autoCapture: \\(medusa-config\\.ts\\) → true`)
    ).waitFor()

    const shopper = await browser!.newPage()
    const orderId = await buyWithChallengeCard(shopper, ready)
    await shopper.close()
    const token = await adminToken(ready)
    const payment = await cardServicePayment(ready, token, orderId)
    expect(payment.captured_at).toBeTruthy()
    expect(payment.data.state).toBe("captured")

    await form.getByLabel("Client secret").fill("not-the-sandbox-secret")
    await form.getByRole("button", { name: "Save settings" }).click()
    const refusal = form.getByTestId("card-service-settings-error")
    await refusal.waitFor({ timeout: 30_000 })
    expect(await refusal.textContent()).toMatch(/refused these settings \(credentials\).*Nothing was saved/)
    await page.screenshot({
      path: path.join(SHOTS, "admin-settings-form-refusal.png"),
      fullPage: true,
    })
    expect((await page.locator("main").textContent()) ?? "").not.toContain("not-the-sandbox-secret")
    // The service still takes the secret in force.
    await page.getByRole("button", { name: "Test connection" }).click()
    await page.getByText(/Connected: the service issued/).waitFor()
    await page.close()
  })
})

/** One fault for the demo's sandbox, through its loopback control endpoint. */
async function sandboxFault(ready: Ready, fault: Record<string, unknown>) {
  const response = await fetch(`${ready.sandbox}/_sandbox/faults`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(fault),
  })
  expect(response.status).toBe(200)
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > until)
      throw new Error("the sweep did not note the payment in time")
    await new Promise((resolve) => setTimeout(resolve, 1000))
  }
}

/** The demo storefront's path: checkout, hosted payment page, 3DS challenge passed. */
async function buyWithChallengeCard(page: Page, ready: Ready): Promise<string> {
  await page.goto(ready.storefront)
  await page.getByRole("button", { name: "Buy" }).first().click()
  await page.getByRole("button", { name: "Continue to payment" }).click()
  await page.waitForURL(`${ready.backend}/card-service/pay/**`, {
    timeout: 60_000,
  })
  // The challenge card: the path the demo's own browser test proves.
  await page.fill("#card-number", ready.testCards.challenge)
  await page.selectOption("#card-type", "VISA")
  await page.selectOption("select[name=cardExpirationMonth]", "12")
  await page.selectOption(
    "select[name=cardExpirationYear]",
    String(new Date().getFullYear() + 3)
  )
  await page.getByRole("button", { name: /^Pay / }).click()
  await page.waitForURL(`${ready.sandbox}/3ds/challenge/**`, {
    timeout: 60_000,
  })
  await page.click("#pass")
  await page
    .waitForURL(`${ready.storefront}/checkout/card-service?**`, {
      timeout: 60_000,
    })
    .catch(async (error) => {
      await page.screenshot({
        path: path.join(SHOTS, "admin-checkout-failed.png"),
        fullPage: true,
      })
      throw new Error(
        `${error.message}\nstopped at ${page.url()}: ${await page.locator("body").innerText()}`
      )
    })
  await page.locator("#paid").waitFor({ timeout: 60_000 })
  return (await page.locator("#order-id").textContent())!.trim()
}
