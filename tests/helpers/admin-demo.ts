import { ChildProcess, spawn } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import type { Browser, Page } from "playwright-core"
import { exited, freePorts, readyLine, Ready, signalGroup } from "./demo-process"

const ROOT = path.resolve(__dirname, "..", "..")
export const SHOTS = path.join(ROOT, "test-results")

/**
 * A store for the admin browser tests: `npm run demo` in a fresh data
 * folder, on free ports, in its own process group so stopping it reaches
 * every child. A first demo run (migrations, seeding, admin build) takes a
 * few minutes.
 */
export type Demo = {
  ready: Ready
  stop: () => Promise<void>
  /** The last lines the demo printed and its Medusa wrote (its log goes with its data folder at stop). */
  tail: (lines?: number) => string
}

export async function startDemo(): Promise<Demo> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "card-service-admin-"))
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
  let output = ""
  const demo: ChildProcess = spawn("npm", ["run", "demo"], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  })
  demo.stdout!.on("data", (chunk) => (output += chunk))
  demo.stderr!.on("data", (chunk) => (output += chunk))
  const stop = async () => {
    if (demo.pid && demo.exitCode === null && demo.signalCode === null) {
      signalGroup(demo.pid, "SIGINT")
      await exited(demo, 60_000).catch(() => signalGroup(demo.pid!, "SIGKILL"))
    }
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
  try {
    const tail = (lines = 60) => {
      let medusa = ""
      try {
        medusa = fs.readFileSync(path.join(dataDir, "logs", "medusa.log"), "utf8")
      } catch {
        medusa = "(no Medusa log)"
      }
      const last = (text: string) => text.split("\n").slice(-lines).join("\n")
      return `npm run demo printed:\n${last(output)}\nits Medusa logged:\n${last(medusa)}`
    }
    return { ready: await readyLine(demo, () => output, 8 * 60_000), stop, tail }
  } catch (error) {
    await stop()
    throw error
  }
}

/**
 * Makes a failed browser test explain itself from CI's output alone: every
 * page the browser opens is watched for failed requests and the browser's
 * errors, and `explain` adds to a test's error what each open page showed
 * (its address and text, a screenshot in test-results/), what failed on it,
 * and the demo's last output and Medusa log lines. (Seen: CI's runs failed
 * every admin screen with "waiting for ... to be visible" and nothing else.)
 */
export function watchPages(browser: Browser) {
  const seen = new WeakMap<Page, string[]>()
  const watch = (page: Page) => {
    const notes: string[] = []
    seen.set(page, notes)
    const at = () => new Date().toISOString().slice(11, 23)
    page.on("response", (response) => {
      if (response.status() >= 400) notes.push(`${at()} ${response.status()} ${response.request().method()} ${response.url()}`)
    })
    page.on("requestfailed", (request) => notes.push(`${at()} failed ${request.method()} ${request.url()}: ${request.failure()?.errorText}`))
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") notes.push(`${at()} console ${message.type()}: ${message.text()}`)
    })
    page.on("pageerror", (error) => notes.push(`${at()} page error: ${error.message}`))
  }
  const newContext = browser.newContext.bind(browser)
  browser.newContext = async (...args) => {
    const context = await newContext(...args)
    context.on("page", watch)
    return context
  }
  const newPage = browser.newPage.bind(browser)
  browser.newPage = async (...args) => {
    const page = await newPage(...args)
    if (!seen.has(page)) watch(page)
    return page
  }
  let shots = 0
  return async function explain(error: unknown, demo: Pick<Demo, "tail"> | undefined): Promise<Error> {
    const parts = [error instanceof Error ? error.message : String(error)]
    for (const page of browser.contexts().flatMap((context) => context.pages())) {
      if (page.isClosed()) continue
      const shot = path.join(SHOTS, `failed-${process.pid}-${++shots}.png`)
      await page.screenshot({ path: shot, fullPage: true, timeout: 10_000 }).catch(() => undefined)
      const text = await page.locator("body").innerText({ timeout: 5_000 }).catch(() => "(no body)")
      parts.push(
        `page ${page.url()} (screenshot ${shot}) shows: ${text.replace(/\s+/g, " ").slice(0, 800)}`,
        `on it: ${(seen.get(page) ?? []).slice(-30).join("\n  ") || "no failed request, no browser error"}`
      )
    }
    if (demo) parts.push(demo.tail())
    const explained = new Error(parts.join("\n"))
    if (error instanceof Error) explained.stack = `${explained.message}\n${error.stack?.split("\n").slice(1).join("\n") ?? ""}`
    return explained
  }
}

/** One fault for the demo's sandbox, through its loopback control endpoint. */
export async function sandboxFault(ready: Ready, fault: Record<string, unknown>) {
  const response = await fetch(`${ready.sandbox}/_sandbox/faults`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(fault),
  })
  if (response.status !== 200) throw new Error(`sandbox fault: HTTP ${response.status}`)
}

export async function eventually(check: () => Promise<boolean>, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > until) throw new Error("the sweep did not note the payment in time")
    await new Promise((resolve) => setTimeout(resolve, 1000))
  }
}

/**
 * The demo storefront's path: checkout, hosted payment page, 3DS challenge
 * passed. With `declineFirst`, the declined card first (its failure page,
 * then "Try again" on the same payment session).
 */
export async function buyWithChallengeCard(
  page: Page,
  ready: Ready,
  { declineFirst = false }: { declineFirst?: boolean } = {}
): Promise<string> {
  await page.goto(ready.storefront)
  await page.getByRole("button", { name: "Buy" }).first().click()
  await page.getByRole("button", { name: "Continue to payment" }).click()
  await page.waitForURL(`${ready.backend}/card-service/pay/**`, {
    timeout: 60_000,
  })
  if (declineFirst) {
    await payOnHostedPage(page, ready.testCards.declined)
    await page.locator("#failed").waitFor({ timeout: 60_000 })
    await page.click("#retry")
    await page.waitForURL(`${ready.backend}/card-service/pay/**`, { timeout: 60_000 })
  }
  // The challenge card: the path the demo's own browser test proves.
  await payOnHostedPage(page, ready.testCards.challenge)
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

/** Fills the plugin's hosted payment page with a VISA test card and pays. */
export async function payOnHostedPage(page: Page, cardNumber: string) {
  await page.fill("#card-number", cardNumber)
  await page.selectOption("#card-type", "VISA")
  await page.selectOption("select[name=cardExpirationMonth]", "12")
  await page.selectOption(
    "select[name=cardExpirationYear]",
    String(new Date().getFullYear() + 3)
  )
  await page.getByRole("button", { name: /^Pay / }).click()
}

/**
 * The demo storefront's path with a card that needs no challenge: the
 * hosted page, then the storefront's page for the result (paid, an order on
 * hold for review, or failed). Answers the payment session's id, read from
 * the pay page's address, and the transaction's, read from the service's
 * redirect to the return route (a review's verdict is given by it).
 */
export async function buyWithCard(
  page: Page,
  ready: Ready,
  cardNumber: string
): Promise<{ sessionId: string; transactionId: string }> {
  await page.goto(ready.storefront)
  await page.getByRole("button", { name: "Buy" }).first().click()
  await page.getByRole("button", { name: "Continue to payment" }).click()
  await page.waitForURL(`${ready.backend}/card-service/pay/**`, { timeout: 60_000 })
  const sessionId = new URL(page.url()).pathname.split("/").filter(Boolean).pop() as string
  const returned = page.waitForRequest((request) => request.url().includes("/card-service/return/"), { timeout: 60_000 })
  await payOnHostedPage(page, cardNumber)
  const transactionId = new URL((await returned).url()).searchParams.get("transactionId")
  await page.waitForURL(`${ready.storefront}/checkout/card-service?**`, { timeout: 60_000 })
  if (!transactionId) throw new Error("the service's redirect named no transaction")
  return { sessionId, transactionId }
}

/** The review's verdict, through the demo sandbox's loopback control endpoint. */
export async function concludeReview(ready: Ready, transactionId: string, verdict: "approve" | "reject") {
  const response = await fetch(`${ready.sandbox}/_sandbox/reviews/${transactionId}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ verdict }),
  })
  if (response.status !== 200) throw new Error(`sandbox review verdict: HTTP ${response.status}`)
}
