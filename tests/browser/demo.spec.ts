import { ChildProcess, spawn } from "node:child_process"
import fs from "node:fs"
import net from "node:net"
import os from "node:os"
import path from "node:path"
import { Browser, Page } from "playwright-core"
import { launchChromium } from "../helpers/chromium"
import { exited, freePorts, readyLine, Ready, signalGroup } from "../helpers/demo-process"
import { payOnHostedPage } from "../helpers/admin-demo"

/**
 * `npm run demo` as a person would use it: start it, wait for its JSON line,
 * buy a mug in the demo storefront with the 3DS challenge card, find the
 * order through the admin API, press Ctrl-C and check nothing is left
 * running. A first run (migrations, seeding) in a fresh data folder, so this
 * takes a few minutes.
 */
jest.setTimeout(12 * 60_000)

const ROOT = path.resolve(__dirname, "..", "..")
const SHOTS = path.join(ROOT, "test-results")


describe("npm run demo", () => {
  let demo: ChildProcess | undefined
  let dataDir: string
  let output = ""
  let browser: Browser | undefined
  const seen: Seen = new Map()
  let watcher: NodeJS.Timeout | undefined

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "card-service-demo-"))
    fs.mkdirSync(SHOTS, { recursive: true })
  })

  afterAll(async () => {
    clearInterval(watcher)
    await browser?.close()
    if (demo?.pid && demo.exitCode === null && demo.signalCode === null) {
      // The test failed before its own Ctrl-C: stop the demo so the run goes on.
      signalGroup(demo.pid, "SIGINT")
      await exited(demo, 60_000).catch(() => signalGroup(demo!.pid!, "SIGKILL"))
    }
    await allGone(seen, 30_000).catch(() => {})
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it("sells a product (a decline, then a 3DS challenge), shows the order in the admin API and stops cleanly on Ctrl-C", async () => {
    const [backendPort, storefrontPort, sandboxPort] = await freePorts(3)
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DEMO_DATA_DIR: dataDir,
      DEMO_BACKEND_PORT: String(backendPort),
      DEMO_STOREFRONT_PORT: String(storefrontPort),
      DEMO_SANDBOX_PORT: String(sandboxPort),
    }
    // What jest's runner adds is not what a user's shell has.
    delete env.NODE_OPTIONS
    // Its own process group, like a job in a terminal, so that Ctrl-C can be
    // sent the way a terminal sends it: to the whole group.
    demo = spawn("npm", ["run", "demo"], {
      cwd: ROOT,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    })
    demo.stdout!.on("data", (chunk) => (output += chunk))
    demo.stderr!.on("data", (chunk) => (output += chunk))
    watcher = setInterval(() => recordDescendants(demo!.pid!, seen), 1000)

    const ready = await readyLine(demo, () => output, 8 * 60_000)
    recordDescendants(demo.pid!, seen)
    expect(ready).toMatchObject({
      storefront: `http://localhost:${storefrontPort}`,
      backend: `http://localhost:${backendPort}`,
      admin: `http://localhost:${backendPort}/app`,
      sandbox: `http://127.0.0.1:${sandboxPort}`,
      testCards: {
        approved: "4000000000001000",
        challenge: "4000001000001008",
        declined: "4000000000002032",
      },
    })
    expect(ready.publishableKey).toMatch(/^pk_/)
    // The human-readable summary comes before the JSON line.
    expect(output).toContain(`Admin        ${ready.admin}`)
    expect(output).toContain(ready.adminPassword)

    const adminPage = await fetch(`${ready.admin}/`)
    expect(adminPage.status).toBe(200)
    expect(adminPage.headers.get("content-type")).toContain("text/html")

    browser = await launchChromium()
    const page = await browser.newPage()
    const orderId = await buyWithChallengeCard(page, ready)

    const order = await adminOrder(ready, orderId)
    expect(order).toMatchObject({
      id: orderId,
      email: "shopper@example.com",
      payment_status: "authorized",
    })
    const payment = order.payment_collections[0].payments[0]
    expect(payment.provider_id).toBe("pp_card-service_card-service")
    expect(payment.data).toMatchObject({
      state: "authorized",
      card: { type: "VISA", suffix: "1008" },
    })
    expect(order.items[0]).toMatchObject({
      product_title: "Card Service Mug",
      quantity: 1,
    })
    await browser.close()
    browser = undefined

    // Ctrl-C.
    recordDescendants(demo.pid!, seen)
    expect(seen.size).toBeGreaterThan(3)
    signalGroup(demo.pid!, "SIGINT")
    await exited(demo, 60_000)
    clearInterval(watcher)
    const left = await allGone(seen, 30_000).catch((error) => error.message)
    expect(left).toBeUndefined()
    expect(output).toContain("Stopped.")
    for (const port of [backendPort, storefrontPort, sandboxPort]) {
      expect(await answers(port)).toBe(false)
    }
  })
})

/**
 * The shopper's path: product, checkout form, hosted payment page with the
 * declined card (frictionless: the service's 303 leads back through the
 * return route to the storefront's failure page), "Try again", the 3DS
 * challenge card, Pass, and the confirmation.
 */
async function buyWithChallengeCard(page: Page, ready: Ready): Promise<string> {
  await page.goto(ready.storefront)
  await page.getByRole("heading", { name: "Card Service Mug" }).waitFor()
  await page.getByRole("button", { name: "Buy" }).first().click()
  await page.screenshot({
    path: path.join(SHOTS, "demo-1-storefront.png"),
    fullPage: true,
  })
  await page.getByRole("button", { name: "Continue to payment" }).click()

  await page.waitForURL(`${ready.backend}/card-service/pay/**`, {
    timeout: 60_000,
  })
  await payOnHostedPage(page, ready.testCards.declined)
  await page.waitForURL(`${ready.storefront}/checkout/card-service?**`, {
    timeout: 60_000,
  })
  await page.locator("#failed").waitFor({ timeout: 60_000 })
  await page.screenshot({
    path: path.join(SHOTS, "demo-2-declined.png"),
    fullPage: true,
  })
  expect(new URL(page.url()).searchParams.get("reason_code")).toBe("203")
  await page.click("#retry")

  await page.waitForURL(`${ready.backend}/card-service/pay/**`, {
    timeout: 60_000,
  })
  await payOnHostedPage(page, ready.testCards.challenge)
  await page.waitForURL(`${ready.sandbox}/3ds/challenge/**`, {
    timeout: 60_000,
  })
  await page.screenshot({
    path: path.join(SHOTS, "demo-3-challenge.png"),
    fullPage: true,
  })
  await page.click("#pass")

  await page.waitForURL(`${ready.storefront}/checkout/card-service?**`, {
    timeout: 60_000,
  })
  await page.locator("#paid").waitFor({ timeout: 60_000 })
  await page.screenshot({
    path: path.join(SHOTS, "demo-4-confirmation.png"),
    fullPage: true,
  })
  expect(new URL(page.url()).searchParams.get("status")).toBe("paid")
  return (await page.locator("#order-id").textContent())!.trim()
}

/** The order as the admin sees it, through the admin API with the demo's login. */
async function adminOrder(ready: Ready, orderId: string) {
  const login = await fetch(`${ready.backend}/auth/user/emailpass`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      email: ready.adminEmail,
      password: ready.adminPassword,
    }),
  })
  expect(login.status).toBe(200)
  const { token } = await login.json()
  const fields = "id,email,payment_status,*items,*payment_collections.payments"
  const response = await fetch(
    `${ready.backend}/admin/orders/${orderId}?fields=${encodeURIComponent(fields)}`,
    { headers: { Authorization: `Bearer ${token}` } }
  )
  expect(response.status).toBe(200)
  return (await response.json()).order
}




/** pid -> its start time (so a reused pid is not mistaken for it) and command line. */
type Seen = Map<number, { start: string; command: string }>

/** Fields of /proc/<pid>/stat after the command name (which may contain spaces). */
function statFields(pid: number | string): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  } catch {
    return null
  }
}

/** Adds every process below `root` (from /proc) to `seen`. */
function recordDescendants(root: number, seen: Seen) {
  const parents = new Map<number, number>()
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    const fields = statFields(entry)
    if (fields) parents.set(Number(entry), Number(fields[1]))
  }
  const inTree = new Set([root])
  let grew = true
  while (grew) {
    grew = false
    for (const [pid, ppid] of parents) {
      if (!inTree.has(pid) && inTree.has(ppid)) {
        inTree.add(pid)
        grew = true
      }
    }
  }
  for (const pid of inTree) {
    const start = statFields(pid)?.[19]
    if (start && !seen.has(pid))
      seen.set(pid, { start, command: commandLine(pid) })
  }
}

function commandLine(pid: number) {
  try {
    return fs
      .readFileSync(`/proc/${pid}/cmdline`, "utf8")
      .replace(/\0/g, " ")
      .trim()
  } catch {
    return "?"
  }
}

/** Still running: same pid and start time, and not a zombie waiting to be reaped. */
function alive(pid: number, start: string) {
  const fields = statFields(pid)
  return !!fields && fields[19] === start && fields[0] !== "Z"
}

async function allGone(seen: Seen, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const left = [...seen].filter(([pid, { start }]) => alive(pid, start))
    if (!left.length) return
    if (Date.now() > deadline) {
      throw new Error(
        `still running: ${left.map(([pid, { command }]) => `${pid} ${command}`).join("; ")}`
      )
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}


function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port })
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })
}
