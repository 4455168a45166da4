/**
 * Weight and load time of the hosted payment page, before and after, in one
 * run: the renderer and script of a given commit (default ea4978c, the page
 * before the language and accessibility work) are checked out of git into a
 * temporary folder and served next to this tree's, on one loopback server,
 * with the same session fields and prefilled billing. Each round opens both
 * in a fresh Chromium context (cold cache), in alternating order, then once
 * more in the same context (warm: the script comes from the cache).
 *
 *   npx ts-node --swc scripts/measure-pay-page.ts [--rounds 15] [--before ea4978c]
 *   npx ts-node --swc scripts/measure-pay-page.ts --serve    # keep serving, print the URLs
 *
 * What is left out: Medusa itself (the route's database reads and the
 * service's verification code cost the same before and after), so the
 * times are the page's own: transfer, parse, script, layout.
 */
import { execFileSync } from "node:child_process"
import fs from "node:fs"
import http from "node:http"
import type { AddressInfo } from "node:net"
import os from "node:os"
import path from "node:path"
import { randomBytes } from "node:crypto"
import type { Browser } from "playwright-core"
import { payPageScript } from "../src/checkout/browser-bundle"
import {
  paymentPageCsp,
  renderPaymentPage,
} from "../src/lib/checkout-pages/payment-page-html"
import { createTranslator } from "../src/lib/i18n"
import { chooseEncoding, prepareBody } from "../src/lib/response-compression"
import { launchChromium } from "../tests/helpers/chromium"

const ROOT = path.resolve(__dirname, "..")

function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`)
  return index >= 0 ? process.argv[index + 1] : fallback
}

const HIDDEN = {
  merchantId: "sandbox-merchant",
  verifyId: "sandbox-verify",
  currency: "978",
  amount: "17.40",
  callbackLocation:
    "http://localhost:9000/card-service/callback/payses_01JDEMO0000000000000000000/",
  redirectUrl:
    "http://localhost:9000/card-service/return/payses_01JDEMO0000000000000000000/",
  isWindowed: "N",
  isRedirect: "Y",
  isAuthenticate: "Y",
  merchantReferenceCode: "cs-01JDEMO0000000000000000000-k3j4h5g6f7d8s9a0",
  authorization: randomBytes(24).toString("base64url"),
}
const BILLING = {
  firstName: "Ada",
  lastName: "Lovelace",
  email: "shopper@example.com",
  phone: "+4930123456",
  address: "Unter den Linden 1",
  city: "Berlin",
  postalCode: "10117",
  country: "DE",
}

type OldRenderer = {
  renderPaymentPage(input: Record<string, unknown>): string
  paymentPageCsp(input: Record<string, unknown>): string
}

/** The renderer and the bundled script of `commit`, built from its own sources. */
async function before(
  commit: string
): Promise<{ render: OldRenderer; script: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pay-page-before-"))
  for (const file of [
    "src/lib/payment-page-html.ts",
    "src/lib/browser/pay-page-script.ts",
    "src/lib/card-brands.ts",
  ]) {
    const target = path.join(dir, file)
    fs.mkdirSync(path.dirname(target), { recursive: true })
    fs.writeFileSync(
      target,
      execFileSync("git", ["show", `${commit}:${file}`], { cwd: ROOT })
    )
  }
  const esbuild = await import("esbuild")
  const nodePaths = [path.join(ROOT, "node_modules")]
  const server = await esbuild.build({
    entryPoints: [path.join(dir, "src/lib/payment-page-html.ts")],
    bundle: true,
    write: false,
    platform: "node",
    format: "cjs",
    nodePaths,
  })
  const module = { exports: {} as OldRenderer }
  new Function("module", "exports", "require", server.outputFiles[0].text)(
    module,
    module.exports,
    require
  )
  // As the old assets route built it (src/checkout/browser-bundle.ts then).
  const browser = await esbuild.build({
    entryPoints: [path.join(dir, "src/lib/browser/pay-page-script.ts")],
    bundle: true,
    write: false,
    minify: true,
    format: "iife",
    platform: "browser",
    target: ["es2019"],
    legalComments: "none",
    nodePaths,
  })
  fs.rmSync(dir, { recursive: true, force: true })
  return { render: module.exports, script: browser.outputFiles[0].text }
}

async function serve(commit: string): Promise<{
  url: string
  acceptEncoding: () => string
  close: () => Promise<void>
}> {
  const old = await before(commit)
  const bundle = await payPageScript()
  let acceptEncoding = ""
  const server = http.createServer((req, res) => {
    acceptEncoding = String(req.headers["accept-encoding"] ?? "")
    const url = new URL(req.url ?? "/", "http://x")
    const nonce = randomBytes(16).toString("base64")
    const action = `http://127.0.0.1:${(server.address() as AddressInfo).port}/order/start`
    const pageHeaders = (csp: string) => {
      res.setHeader("Content-Type", "text/html; charset=utf-8")
      res.setHeader("Cache-Control", "no-store")
      res.setHeader("Content-Security-Policy", csp)
    }
    if (url.pathname === "/before/pay") {
      pageHeaders(old.render.paymentPageCsp({ action, nonce }))
      const html = old.render.renderPaymentPage({
        action,
        hidden: HIDDEN,
        billing: BILLING,
        amountText: "EUR 17.40",
        storeName: "Card Service Demo Shop",
        scriptUrl: "/before/pay-page.js",
        nonce,
        cancelUrl: "http://localhost:8000",
        currentYear: new Date().getUTCFullYear(),
      })
      // As the old route sent it: uncompressed.
      res.end(html)
    } else if (url.pathname === "/before/pay-page.js") {
      res.setHeader("Content-Type", "text/javascript; charset=utf-8")
      res.setHeader("Cache-Control", "public, max-age=3600")
      res.end(old.script)
    } else if (
      url.pathname === "/after/pay" ||
      url.pathname === "/after-identity/pay"
    ) {
      // after-identity: the new page sent uncompressed, to tell the cost of
      // the markup from the gain of compression.
      const identity = url.pathname.startsWith("/after-identity/")
      pageHeaders(paymentPageCsp({ action, nonce }))
      const text = createTranslator({
        candidates: [
          url.searchParams.get("lang"),
          req.headers["accept-language"],
        ],
      })
      const html = renderPaymentPage({
        action,
        hidden: HIDDEN,
        billing: BILLING,
        amount: 17.4,
        currencyCode: "eur",
        storeName: "Card Service Demo Shop",
        scriptUrl: identity
          ? "/after-identity/pay-page.js"
          : "/after/pay-page.js",
        nonce,
        cancelUrl: "http://localhost:8000",
        currentYear: new Date().getUTCFullYear(),
        text,
        previousFailure: url.searchParams.has("declined")
          ? "failure.declined"
          : null,
      })
      res.end(
        prepareBody(
          res,
          html,
          identity ? "identity" : chooseEncoding(req.headers["accept-encoding"])
        )
      )
    } else if (
      url.pathname === "/after/pay-page.js" ||
      url.pathname === "/after-identity/pay-page.js"
    ) {
      const encoding = url.pathname.startsWith("/after-identity/")
        ? "identity"
        : chooseEncoding(req.headers["accept-encoding"])
      const { bytes } = bundle.encoded(encoding)
      res.setHeader("Content-Type", "text/javascript; charset=utf-8")
      res.setHeader("Cache-Control", "public, max-age=3600")
      res.setHeader("Vary", "Accept-Encoding")
      if (encoding !== "identity") res.setHeader("Content-Encoding", encoding)
      res.end(bytes)
    } else {
      res.writeHead(404).end()
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    acceptEncoding: () => acceptEncoding,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

type Sample = {
  requests: number
  bytes: number
  /** Navigation start to the page's last byte (server, transfer). */
  responseMs: number
  domContentLoadedMs: number
  loadMs: number
  encodings: string[]
}

/** One visit: every response's bytes on the wire (CDP), and the navigation's load time. */
async function visit(
  browser: Browser,
  url: string,
  warm: boolean
): Promise<{ cold: Sample; warm?: Sample }> {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
  })
  const page = await context.newPage()
  const cdp = await context.newCDPSession(page)
  await cdp.send("Network.enable")
  let requests = 0
  let bytes = 0
  const encodings: string[] = []
  cdp.on("Network.responseReceived", (event) => {
    if (event.response.fromDiskCache) return
    requests++
    encodings.push(
      String(
        event.response.headers["Content-Encoding"] ??
          event.response.headers["content-encoding"] ??
          "none"
      )
    )
  })
  cdp.on(
    "Network.loadingFinished",
    (event) => (bytes += event.encodedDataLength)
  )
  const once = async (): Promise<Sample> => {
    requests = 0
    bytes = 0
    encodings.length = 0
    await page.goto(url, { waitUntil: "load" })
    const timing = await page.evaluate(() => {
      const [entry] = performance.getEntriesByType(
        "navigation"
      ) as PerformanceNavigationTiming[]
      return {
        responseMs: entry.responseEnd - entry.startTime,
        domContentLoadedMs: entry.domContentLoadedEventEnd - entry.startTime,
        loadMs: entry.loadEventEnd - entry.startTime,
      }
    })
    return { requests, bytes, ...timing, encodings: [...encodings] }
  }
  const cold = await once()
  const second = warm ? await once() : undefined
  await context.close()
  return { cold, warm: second }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

async function main(): Promise<void> {
  const commit = option("before", "ea4978c")
  const rounds = Number(option("rounds", "15"))
  const server = await serve(commit)
  if (process.argv.includes("--serve")) {
    console.log(
      `before: ${server.url}/before/pay\nafter:  ${server.url}/after/pay (?lang=de, ?declined)`
    )
    return
  }
  const browser = await launchChromium()
  const versions = ["before", "after", "after-identity"]
  const results: Record<string, { cold: Sample[]; warm: Sample[] }> =
    Object.fromEntries(versions.map((name) => [name, { cold: [], warm: [] }]))
  try {
    // One untimed visit each, so neither side pays for Chromium's first start.
    for (const name of versions) {
      await visit(browser, `${server.url}/${name}/pay`, false)
    }
    for (let round = 0; round < rounds; round++) {
      // A different order each round, so no version always goes first.
      const order = versions.map(
        (_, i) => versions[(i + round) % versions.length]
      )
      for (const name of order) {
        const { cold, warm } = await visit(
          browser,
          `${server.url}/${name}/pay`,
          true
        )
        results[name].cold.push(cold)
        results[name].warm.push(warm!)
      }
    }
  } finally {
    await browser.close()
    await server.close()
  }
  console.log(
    `Hosted payment page, ${commit} (before) against this tree (after), ${rounds} rounds, Chromium 390x844`
  )
  console.log(
    `Chromium's Accept-Encoding on loopback http: ${server.acceptEncoding()}`
  )
  console.log("")
  console.log(
    "Medians in ms from navigation start; cold: fresh context, warm: reload with the script cached."
  )
  console.log("")
  console.log(
    "| version | requests (cold) | bytes on the wire, cold | encodings | last byte of page, cold | DOMContentLoaded, cold | load, cold | load, warm |"
  )
  console.log("|---|---|---|---|---|---|---|---|")
  const ms = (
    samples: Sample[],
    key: "responseMs" | "domContentLoadedMs" | "loadMs"
  ) => median(samples.map((s) => s[key])).toFixed(1)
  for (const name of versions) {
    const { cold, warm } = results[name]
    console.log(
      `| ${name} | ${median(cold.map((s) => s.requests))} | ${median(cold.map((s) => s.bytes))} | ${cold[0].encodings.join(", ")} | ${ms(cold, "responseMs")} | ${ms(cold, "domContentLoadedMs")} | ${ms(cold, "loadMs")} | ${ms(warm, "loadMs")} |`
    )
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
