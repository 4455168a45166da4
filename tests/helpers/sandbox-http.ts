import { createServer, IncomingMessage, Server } from "node:http"
import { AddressInfo } from "node:net"
import { request } from "undici"
import { CardServiceSandbox, TEST_CARDS } from "../../src/sandbox"

/** What a browser adds to a top-level form submission (Fetch Metadata). */
export const BROWSER_NAVIGATION = {
  "sec-fetch-mode": "navigate",
  "sec-fetch-dest": "document",
  "sec-fetch-site": "cross-site",
}

export type HttpAnswer = {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  json: any
}

export async function call(
  base: string,
  method: "GET" | "POST",
  path: string,
  options: { headers?: Record<string, string>; body?: string } = {}
): Promise<HttpAnswer> {
  const response = await request(`${base}${path}`, {
    method,
    headers: options.headers,
    body: options.body,
  })
  const text = await response.body.text()
  let json: unknown
  try {
    json = text ? JSON.parse(text) : undefined
  } catch {
    json = undefined
  }
  return { status: response.statusCode, headers: response.headers, text, json }
}

export async function authorize(sandbox: CardServiceSandbox): Promise<string> {
  const answer = await call(sandbox.url, "GET", "/authorize", {
    headers: {
      clientCode: sandbox.credentials.clientCode,
      clientSecret: sandbox.credentials.clientSecret,
    },
  })
  if (answer.status !== 200) {
    throw new Error(`authorize failed: ${answer.status} ${answer.text}`)
  }
  return answer.json.Authorization
}

/** A JSON endpoint call with the section 4.3 headers. */
export function callJson(
  sandbox: CardServiceSandbox,
  code: string,
  method: "GET" | "POST",
  path: string,
  body?: unknown
): Promise<HttpAnswer> {
  return call(sandbox.url, method, path, {
    headers: {
      verifyId: sandbox.credentials.verifyId,
      Authorization: code,
      "Content-type": "application/json",
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
}

export type ReceivedCallback = {
  path: string
  contentType: string
  raw: string
  fields: Record<string, string>
  /** Wall-clock time the request arrived (ms). */
  at: number
}

/**
 * The merchant's side: a callback endpoint, a redirect landing page, and a
 * switch for the status the callback endpoint answers.
 */
export type MerchantStub = {
  base: string
  callbackLocation: string
  redirectUrl: string
  received: ReceivedCallback[]
  /** TCP connections the sandbox opened to this merchant so far. */
  connections: number
  /** Status for the n-th callback received (0-based); default 200. */
  statusFor: (n: number) => number
  /**
   * Keeps every callback from now on unanswered (it is still listed in
   * `received` when it arrives) until the returned function is called, so a
   * test can tell whether the sandbox waits for the merchant's answer.
   */
  holdAnswers: () => () => void
  waitForCallbacks: (
    count: number,
    timeoutMs?: number
  ) => Promise<ReceivedCallback[]>
  close: () => Promise<void>
}

export async function startMerchantStub(): Promise<MerchantStub> {
  const received: ReceivedCallback[] = []
  const waiters = new Set<() => void>()
  const stub = {} as MerchantStub
  stub.statusFor = () => 200
  let held: Promise<void> = Promise.resolve()
  let release: () => void = () => undefined
  const server: Server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) {
      chunks.push(chunk as Buffer)
    }
    const raw = Buffer.concat(chunks).toString("utf8")
    const path = (req.url ?? "/").split("?")[0]
    if (req.method === "POST" && path === "/callback/") {
      const contentType = req.headers["content-type"] ?? ""
      const fields = contentType.startsWith("application/json")
        ? JSON.parse(raw)
        : Object.fromEntries(new URLSearchParams(raw))
      const n = received.length
      received.push({ path, contentType, raw, fields, at: Date.now() })
      for (const waiter of [...waiters]) {
        waiter()
      }
      await held
      res.writeHead(stub.statusFor(n), { "content-type": "text/plain" })
      res.end("ok")
      return
    }
    if (req.method === "GET" && path === "/return/") {
      const query = new URLSearchParams((req.url ?? "").split("?")[1] ?? "")
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
      res.end(
        `<!doctype html><title>Order result</title><h1 id="result">${query.get("decision")} ${query.get("reasonCode")}</h1>`
      )
      return
    }
    res.writeHead(404)
    res.end()
  })
  stub.connections = 0
  server.on("connection", () => {
    stub.connections += 1
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  Object.assign(stub, {
    base,
    callbackLocation: `${base}/callback/`,
    redirectUrl: `${base}/return/`,
    received,
    holdAnswers() {
      held = new Promise<void>((resolve) => (release = resolve))
      return () => {
        release()
        held = Promise.resolve()
      }
    },
    waitForCallbacks(count: number, timeoutMs = 5000) {
      if (received.length >= count) {
        return Promise.resolve([...received])
      }
      return new Promise<ReceivedCallback[]>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(
            new Error(`expected ${count} callbacks, got ${received.length}`)
          )
        }, timeoutMs)
        const check = () => {
          if (received.length >= count) {
            clearTimeout(timer)
            waiters.delete(check)
            resolve([...received])
          }
        }
        waiters.add(check)
      })
    },
    close: () =>
      new Promise<void>((resolve) => {
        release()
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  })
  return stub
}

export const APPROVED_VISA = TEST_CARDS.find(
  (c) =>
    c.cardType === "VISA" &&
    c.reasonCode === "100" &&
    c.threeDs === "frictionless"
)!.number

let referenceCounter = 0

/** A complete, valid section 2.2 form; override any field, or set one to undefined to omit it. */
export function orderForm(
  sandbox: CardServiceSandbox,
  code: string,
  merchant: Pick<MerchantStub, "callbackLocation" | "redirectUrl">,
  overrides: Record<string, string | undefined> = {}
): Record<string, string> {
  referenceCounter += 1
  const fields: Record<string, string | undefined> = {
    merchantId: sandbox.credentials.merchantId,
    merchantReferenceCode: `order-${process.pid}-${Date.now()}-${referenceCounter}`,
    currency: "978",
    cardAccountNumber: APPROVED_VISA,
    cardType: "VISA",
    cardExpirationMonth: "12",
    cardExpirationYear: String(new Date(sandbox.now()).getUTCFullYear() + 3),
    firstName: "Ada",
    lastName: "Lovelace",
    country: "DE",
    city: "Berlin",
    address: "Unter den Linden 1",
    postalCode: "10117",
    phone: "+49 30 1234567",
    email: "ada@example.com",
    callbackLocation: merchant.callbackLocation,
    redirectUrl: merchant.redirectUrl,
    isWindowed: "N",
    isRedirect: "N",
    isAuthenticate: "Y",
    verifyId: sandbox.credentials.verifyId,
    authorization: code,
    amount: "10.50",
    ...overrides,
  }
  return Object.fromEntries(
    Object.entries(fields).filter(
      (entry): entry is [string, string] => entry[1] !== undefined
    )
  )
}

/** Posts the payment form as a browser's top-level form submission would. */
export function submitOrder(
  sandbox: CardServiceSandbox,
  fields: Record<string, string>,
  headers: Record<string, string> = BROWSER_NAVIGATION
): Promise<HttpAnswer> {
  return call(sandbox.url, "POST", "/order/start", {
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...headers,
    },
    body: new URLSearchParams(fields).toString(),
  })
}

/** Query parameters of a 303 Location (wire-choices "Payment result delivery"). */
export function redirectParams(
  answer: HttpAnswer
): URLSearchParams & { target: string } {
  const location = String(answer.headers.location)
  const [target, query] = location.split("?")
  return Object.assign(new URLSearchParams(query ?? ""), { target })
}

/** Presses Pass or Fail on the challenge page the sandbox sent the browser to. */
export async function answerChallenge(
  sandbox: CardServiceSandbox,
  challengePath: string,
  result: "pass" | "fail"
): Promise<HttpAnswer> {
  const page = await call(sandbox.url, "GET", challengePath, {
    headers: BROWSER_NAVIGATION,
  })
  if (page.status !== 200 || !page.text.includes('value="pass"')) {
    throw new Error(`no challenge page at ${challengePath}: ${page.status}`)
  }
  return call(sandbox.url, "POST", challengePath, {
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...BROWSER_NAVIGATION,
    },
    body: `result=${result}`,
  })
}
