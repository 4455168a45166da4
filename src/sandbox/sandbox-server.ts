import { randomBytes } from "node:crypto"
import {
  createServer,
  IncomingMessage,
  Server,
  ServerResponse,
} from "node:http"
import { AddressInfo } from "node:net"
import { currencyDigits, minorToMajor, parseMajorAmount } from "./amount-rules"
import {
  CallbackDelivery,
  CallbackDispatcher,
  CallbackKnobs,
  DEFAULT_CALLBACK_KNOBS,
} from "./callback-delivery"
import { FaultQueue, FaultSpec } from "./fault-knobs"
import { applyFollowOn, FollowOnKind } from "./follow-on-rules"
import {
  authenticationFailedPage,
  challengePage,
  errorPage,
  windowDonePage,
  windowedWaitPage,
} from "./html-pages"
import {
  checkCard,
  checkDeliveryUrls,
  checkOrderFields,
  DeliveryUrls,
  OrderSummary,
  requestedStep,
} from "./order-validation"
import { brandOfNumber } from "./card-rules"
import { decisionFor } from "./reason-lookup"
import { DEFAULT_CARD_BEHAVIOUR, findTestCard } from "./test-cards"
import { threeDsFields } from "./three-ds-fields"
import {
  ReferenceWindow,
  TransactionRecord,
  TransactionStore,
} from "./transaction-store"

export type SandboxCredentials = {
  clientCode: string
  clientSecret: string
  /** The merchant code of section 5 (header or form field `verifyId`). */
  verifyId: string
  merchantId: string
}

export type SandboxLogger = {
  debug?: (message: string) => void
  info: (message: string) => void
  warn: (message: string) => void
  error: (message: string) => void
}

export type SandboxOptions = {
  /** 0 (default) picks a free port. */
  port?: number
  /** Default 127.0.0.1: the sandbox is for this machine only. */
  host?: string
  credentials?: Partial<SandboxCredentials>
  /** Lifetime of a merchant verification code; section 5 leaves it "not shown". Default 30 minutes. */
  verificationTtlMs?: number
  /** Time from an accepted capture or refund to TRANSMITTED. Default 5 minutes. */
  settlementMs?: number
  /** How long a 3DS challenge waits for the shopper. Default 30 minutes. */
  challengeTtlMs?: number
  /** Callback body encoding; wire-choices makes JSON the default. */
  callbackFormat?: "json" | "form"
  /** Initial callback knobs (see CallbackKnobs). */
  callbackKnobs?: Partial<CallbackKnobs>
  /** The clock behind verification lifetimes, the 104 window, expiry and settlement. */
  now?: () => number
  /** Receives one line per request at debug level; never card numbers or secrets. */
  logger?: SandboxLogger
}

export const DEFAULT_CREDENTIALS: SandboxCredentials = {
  clientCode: "sandbox-client",
  clientSecret: "sandbox-secret",
  verifyId: "sandbox-verify",
  merchantId: "sandbox-merchant",
}

const SILENT_LOGGER: SandboxLogger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
}

const MAX_BODY_BYTES = 64 * 1024
const FOLLOW_ONS = new Set(["/reverse", "/capture", "/refund", "/void"])

type CardBehaviour = {
  threeDs: "frictionless" | "challenge"
  reasonCode: string
}

type ChallengeSession = {
  id: string
  order: OrderSummary
  card: CardBehaviour
  createdAt: number
  /** Set once the shopper has passed or failed: where the browser goes next. */
  outcome?: { location?: string; failureDetails?: Record<string, string> }
}

type JsonAnswer = { status: number; payload: unknown }

/** The running sandbox. `startSandbox` returns one; tests drive it through these members. */
export class CardServiceSandbox {
  url = ""
  port = 0
  readonly credentials: SandboxCredentials
  /** Global callback knobs; assign fields at runtime (`sandbox.callbackKnobs.retries = 0`). */
  readonly callbackKnobs: CallbackKnobs
  settlementMs: number
  verificationTtlMs: number
  challengeTtlMs: number

  private readonly server: Server
  private readonly logger: SandboxLogger
  private readonly knobsByReference = new Map<string, Partial<CallbackKnobs>>()
  private readonly faults = new FaultQueue()
  private readonly store: TransactionStore
  private readonly references: ReferenceWindow
  private readonly sessions = new Map<string, ChallengeSession>()
  private readonly verificationCodes = new Map<string, number>()
  private readonly dispatcher: CallbackDispatcher
  private readonly defaultCallbackFormat: "json" | "form"
  private clockBase: () => number
  private clockOffset = 0

  constructor(private readonly options: SandboxOptions = {}) {
    this.credentials = { ...DEFAULT_CREDENTIALS, ...options.credentials }
    this.logger = options.logger ?? SILENT_LOGGER
    this.settlementMs = options.settlementMs ?? 5 * 60 * 1000
    this.verificationTtlMs = options.verificationTtlMs ?? 30 * 60 * 1000
    this.challengeTtlMs = options.challengeTtlMs ?? 30 * 60 * 1000
    this.defaultCallbackFormat = options.callbackFormat ?? "json"
    this.callbackKnobs = {
      ...DEFAULT_CALLBACK_KNOBS,
      format: this.defaultCallbackFormat,
      ...options.callbackKnobs,
    }
    this.clockBase = options.now ?? Date.now
    this.store = new TransactionStore(this.now, () => this.settlementMs)
    this.references = new ReferenceWindow(this.now)
    this.dispatcher = new CallbackDispatcher(this.logger)
    this.server = createServer({ keepAliveTimeout: 5000 }, (req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        this.logger.error(
          `sandbox failure on ${req.method} ${pathOf(req)}: ${error instanceof Error ? error.message : String(error)}`
        )
        if (!res.headersSent) {
          sendJson(res, 500, { decision: "REJECT", reasonCode: "150" })
        } else {
          res.destroy()
        }
      })
    })
  }

  async listen(): Promise<this> {
    const host = this.options.host ?? "127.0.0.1"
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject)
      this.server.listen(this.options.port ?? 0, host, () => {
        this.server.off("error", reject)
        resolve()
      })
    })
    this.port = (this.server.address() as AddressInfo).port
    const shownHost = host.includes(":") ? `[${host}]` : host
    this.url = `http://${shownHost}:${this.port}`
    return this
  }

  /** Stops listening, drops open connections and cancels pending callbacks and timers. */
  async close(): Promise<void> {
    await this.dispatcher.close()
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve())
      this.server.closeAllConnections()
    })
  }

  // Clock ---------------------------------------------------------------

  /** The sandbox's current time in ms (the injected clock plus any advance). */
  readonly now = (): number => this.clockBase() + this.clockOffset

  /** Sets the clock to a fixed time or a time source; clears any advance. */
  setClock(now: number | (() => number)): void {
    this.clockBase = typeof now === "number" ? () => now : now
    this.clockOffset = 0
  }

  advanceClock(ms: number): void {
    this.clockOffset += ms
  }

  // Knobs ---------------------------------------------------------------

  /** Changes callback knobs globally, or for one merchantReferenceCode only. */
  setCallbackKnobs(
    knobs: Partial<CallbackKnobs>,
    merchantReferenceCode?: string
  ): void {
    if (merchantReferenceCode === undefined) {
      Object.assign(this.callbackKnobs, knobs)
      return
    }
    this.knobsByReference.set(merchantReferenceCode, {
      ...this.knobsByReference.get(merchantReferenceCode),
      ...knobs,
    })
  }

  /** Queues a fault for the next matching JSON request(s). */
  injectFault(fault: FaultSpec): void {
    this.faults.add(fault)
  }

  clearFaults(): void {
    this.faults.clear()
  }

  /** Back to the start-up knobs: callback knobs, per-reference knobs and faults. */
  resetKnobs(): void {
    Object.assign(this.callbackKnobs, DEFAULT_CALLBACK_KNOBS, {
      format: this.defaultCallbackFormat,
      ...this.options.callbackKnobs,
    })
    this.knobsByReference.clear()
    this.faults.clear()
  }

  // Inspection ----------------------------------------------------------

  /** Every recorded transaction as section 2.1 records, oldest first. */
  transactions(): TransactionRecord[] {
    return this.store.all().map((tx) => this.store.toRecord(tx))
  }

  transaction(transactionId: string): TransactionRecord | undefined {
    const tx = this.store.get(transactionId)
    return tx ? this.store.toRecord(tx) : undefined
  }

  /** Every callback attempt (and drop), in order, with the status the merchant answered. */
  callbacks(): CallbackDelivery[] {
    return [...this.dispatcher.deliveries]
  }

  /** Resolves once at least `count` attempts (or what `predicate` asks for) are recorded. */
  waitForCallbacks(
    countOrPredicate: number | ((deliveries: CallbackDelivery[]) => boolean),
    timeoutMs = 5000
  ): Promise<CallbackDelivery[]> {
    const predicate =
      typeof countOrPredicate === "number"
        ? (d: CallbackDelivery[]) => d.length >= countOrPredicate
        : countOrPredicate
    return this.dispatcher.waitFor(predicate, timeoutMs)
  }

  /** Issues a verification code as GET /authorize would, for test set-up. */
  issueVerificationCode(): string {
    const code = randomBytes(24).toString("base64url")
    const now = this.now()
    if (this.verificationCodes.size > 10_000) {
      for (const [known, expiresAt] of this.verificationCodes) {
        if (expiresAt <= now) {
          this.verificationCodes.delete(known)
        }
      }
    }
    this.verificationCodes.set(code, now + this.verificationTtlMs)
    return code
  }

  /**
   * Records an authorization as a frictionless payment with this card would,
   * without a browser or a callback: for seeding follow-on tests and the
   * benchmark. The card's outcome applies (a 203 card records a decline).
   */
  seedAuthorization(
    options: {
      amount?: string
      currency?: string
      cardNumber?: string
      merchantReferenceCode?: string
    } = {}
  ): TransactionRecord {
    const currency = options.currency ?? "978"
    const digits = currencyDigits(currency)
    const number = options.cardNumber ?? "4000000000001000"
    const amountMinor =
      digits === undefined
        ? undefined
        : parseMajorAmount(options.amount ?? "10.50", digits)
    const card = findTestCard(number)
    if (
      digits === undefined ||
      amountMinor === undefined ||
      !brandOfNumber(number)
    ) {
      throw new Error(
        "seedAuthorization: use an ISO 4217 numeric currency, a valid amount and a VISA, MASTER or JCB number"
      )
    }
    const reasonCode = card?.reasonCode ?? DEFAULT_CARD_BEHAVIOUR.reasonCode
    const tx = this.store.add({
      merchantId: this.credentials.merchantId,
      merchantReferenceCode:
        options.merchantReferenceCode ??
        `seed-${randomBytes(6).toString("hex")}`,
      originalTransactionId: "",
      step: "AUTHORIZATION",
      reasonCode,
      cardType: card?.cardType ?? brandOfNumber(number)!,
      currency,
      digits,
      amountMinor:
        reasonCode === "110"
          ? Math.max(1, Math.floor(amountMinor / 2))
          : amountMinor,
      cardPrefix: number.slice(0, 6),
      cardSuffix: number.slice(-4),
    })
    return this.store.toRecord(tx)
  }

  /** Forgets transactions, duplicate-window entries, sessions and callback history. */
  reset(): void {
    this.store.clear()
    this.references.clear()
    this.sessions.clear()
    this.dispatcher.deliveries.length = 0
  }

  // Routing -------------------------------------------------------------

  private async handle(
    req: IncomingMessage,
    res: ServerResponse
  ): Promise<void> {
    const pathname = pathOf(req)
    if (pathname === "/authorize") {
      return this.json(req, res, pathname, "GET", false, () =>
        this.authorize(req)
      )
    }
    if (FOLLOW_ONS.has(pathname)) {
      const kind = pathname.slice(1) as FollowOnKind
      return this.json(req, res, pathname, "POST", true, (body) => ({
        status: 200,
        payload: applyFollowOn(
          this.store,
          kind,
          body!,
          this.credentials.merchantId
        ),
      }))
    }
    if (pathname.startsWith("/payment/retrieve/")) {
      return this.json(req, res, pathname, "GET", true, () =>
        this.retrieve(pathname)
      )
    }
    if (pathname === "/order/start") {
      return this.orderStart(req, res)
    }
    const session =
      /^\/3ds\/(challenge|session)\/([A-Za-z0-9_-]+)(\/status|\/continue)?$/.exec(
        pathname
      )
    if (session) {
      return this.threeDs(req, res, session[1], session[2], session[3] ?? "")
    }
    if (pathname === "/" && req.method === "GET") {
      return sendJson(res, 200, { service: "card-service-sandbox" })
    }
    await drain(req)
    sendJson(res, 404, { error: "not_found" })
  }

  /**
   * The shared path of every JSON endpoint: faults, credentials (wire-choices
   * "Credentials"), content type, body parsing, then the handler.
   */
  private async json(
    req: IncomingMessage,
    res: ServerResponse,
    pathname: string,
    method: "GET" | "POST",
    verified: boolean,
    handler: (body?: Record<string, unknown>) => JsonAnswer
  ): Promise<void> {
    const raw = await readBody(req)
    if (req.method !== method) {
      res.setHeader("allow", method)
      return sendJson(res, 405, {
        error: "method_not_allowed",
        message: `Use ${method}.`,
      })
    }
    const fault = this.faults.take(pathname)
    if (fault?.type === "status") {
      this.logger.debug?.(
        `${method} ${pathname} -> ${fault.status} (fault knob)`
      )
      return sendJson(res, fault.status, {
        decision: "REJECT",
        reasonCode: "150",
      })
    }
    let answer: JsonAnswer
    if (
      verified &&
      !this.isVerified(req.headers.verifyid, req.headers.authorization)
    ) {
      answer = {
        status: 401,
        payload: {
          error: "invalid_authorization",
          message:
            "The verifyId and Authorization headers must carry the merchant code and a current verification code from GET /authorize.",
        },
      }
    } else if (method === "POST") {
      answer = this.parseJson(req, raw, handler)
    } else {
      answer = handler()
    }
    if (fault?.type === "delay") {
      await new Promise<void>((resolve) =>
        this.dispatcher.schedule(resolve, fault.ms)
      )
    }
    if (fault?.type === "destroy") {
      this.logger.debug?.(
        `${method} ${pathname} processed, connection destroyed (fault knob)`
      )
      req.socket.destroy()
      return
    }
    this.logger.debug?.(
      `${method} ${pathname} -> ${answer.status}${reasonOf(answer.payload)}`
    )
    sendJson(res, answer.status, answer.payload)
  }

  private parseJson(
    req: IncomingMessage,
    raw: Buffer | undefined,
    handler: (body?: Record<string, unknown>) => JsonAnswer
  ): JsonAnswer {
    // wire-choices: a body that is not a JSON object is 400 with the 2.5 shape.
    const invalid = (status: number, message: string): JsonAnswer => ({
      status,
      payload: {
        decision: "REJECT",
        reasonCode: "102",
        transactionId: "",
        originalTransactionId: "",
        message,
      },
    })
    if (raw === undefined) {
      return invalid(413, `The body is larger than ${MAX_BODY_BYTES} bytes.`)
    }
    const type = (req.headers["content-type"] ?? "")
      .split(";")[0]
      .trim()
      .toLowerCase()
    if (type !== "application/json") {
      return invalid(
        415,
        "Send the body as JSON with Content-Type: application/json (section 4)."
      )
    }
    let body: unknown
    try {
      body = JSON.parse(raw.toString("utf8"))
    } catch {
      return invalid(400, "The body is not valid JSON.")
    }
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return invalid(400, "The body must be a JSON object.")
    }
    return handler(body as Record<string, unknown>)
  }

  private isVerified(verifyId: unknown, code: unknown): boolean {
    if (verifyId !== this.credentials.verifyId || typeof code !== "string") {
      return false
    }
    const expiresAt = this.verificationCodes.get(code)
    return expiresAt !== undefined && this.now() < expiresAt
  }

  private authorize(req: IncomingMessage): JsonAnswer {
    const { clientcode, clientsecret } = req.headers
    if (
      clientcode !== this.credentials.clientCode ||
      clientsecret !== this.credentials.clientSecret
    ) {
      return {
        status: 401,
        payload: {
          error: "invalid_client",
          message:
            "The clientCode and clientSecret headers do not match a merchant.",
        },
      }
    }
    return {
      status: 200,
      payload: { Authorization: this.issueVerificationCode() },
    }
  }

  private retrieve(pathname: string): JsonAnswer {
    const parts = pathname.split("/")
    const notFound = { status: 404, payload: { error: "not_found" } }
    if (parts.length !== 5) {
      return notFound
    }
    const merchantId = safeDecode(parts[3])
    const tx = this.store.get(safeDecode(parts[4]))
    if (
      !tx ||
      merchantId !== this.credentials.merchantId ||
      tx.merchantId !== merchantId
    ) {
      return notFound
    }
    return { status: 200, payload: this.store.toRecord(tx) }
  }

  // Payment request (section 4.2) ------------------------------------------

  private async orderStart(
    req: IncomingMessage,
    res: ServerResponse
  ): Promise<void> {
    const raw = await readBody(req)
    if (req.method !== "POST") {
      res.setHeader("allow", "POST")
      return sendHtml(
        res,
        405,
        errorPage("Method not allowed", "Submit the payment form with POST.")
      )
    }
    // Section 4.2: only a form submitted in a web browser. The content type
    // shows a form; Fetch Metadata shows a top-level navigation, which a
    // fetch() from a page (mode cors/no-cors) or a server (no header) is not.
    const type = (req.headers["content-type"] ?? "")
      .split(";")[0]
      .trim()
      .toLowerCase()
    if (type !== "application/x-www-form-urlencoded") {
      this.logger.debug?.(
        `POST /order/start -> 415 (content type ${type || "none"})`
      )
      return sendHtml(
        res,
        415,
        errorPage(
          "Payment request refused",
          "The payment request must be a browser form submission (Content-Type application/x-www-form-urlencoded)."
        )
      )
    }
    if (
      req.headers["sec-fetch-mode"] !== "navigate" ||
      req.headers["sec-fetch-dest"] !== "document"
    ) {
      this.logger.debug?.(
        "POST /order/start -> 403 (not a top-level browser navigation)"
      )
      return sendHtml(
        res,
        403,
        errorPage(
          "Payment request refused",
          "The payment request must be a form submitted by a web browser as a page navigation (Sec-Fetch-Mode: navigate, Sec-Fetch-Dest: document). Requests from scripts, frames or servers are not allowed."
        )
      )
    }
    if (raw === undefined) {
      return sendHtml(
        res,
        413,
        errorPage("Payment request refused", "The form is too large.")
      )
    }
    const form = new Map<string, string>()
    for (const [name, value] of new URLSearchParams(raw.toString("utf8"))) {
      // The first value of a repeated field counts, as in most form parsers.
      if (!form.has(name)) {
        form.set(name, value)
      }
    }

    if (!this.isVerified(form.get("verifyId"), form.get("authorization"))) {
      // wire-choices: an unverified merchant gets a page and no callback; its
      // callbackLocation cannot be trusted.
      this.logger.debug?.("POST /order/start -> 401 (merchant not verified)")
      return sendHtml(
        res,
        401,
        errorPage(
          "Merchant not verified",
          "The verifyId and authorization fields must carry the merchant code and a current verification code from GET /authorize."
        )
      )
    }

    const urls = checkDeliveryUrls(form)
    if (!urls.ok) {
      const tx = this.recordRejectedOrder(form, urls.reasonCode)
      this.logger.debug?.(
        `POST /order/start -> 400 (${urls.reasonCode}: ${urls.fields.join(", ")})`
      )
      return sendHtml(
        res,
        400,
        errorPage(
          "Payment request refused",
          'The result cannot be delivered: callbackLocation and redirectUrl must be absolute http(s) URLs that end with "/" (section 8).',
          {
            reasonCode: urls.reasonCode,
            fields: urls.fields.join(", "),
            transactionId: tx.transactionId,
          }
        )
      )
    }

    const checked = checkOrderFields(
      form,
      urls.urls,
      this.credentials.merchantId,
      this.now()
    )
    if (!checked.ok) {
      this.logger.debug?.(
        `POST /order/start -> ${checked.reasonCode} (${checked.fields.join(", ")})`
      )
      return this.rejectOrder(res, form, urls.urls, checked.reasonCode)
    }
    const { order } = checked
    // Section 8: 104 for a reference used in the last 15 minutes. Checked
    // after the field rules so that a malformed request reports its fields.
    if (
      this.references.isDuplicate(order.merchantId, order.merchantReferenceCode)
    ) {
      return this.rejectOrder(res, form, urls.urls, "104")
    }
    const cardCode = checkCard(
      form.get("cardAccountNumber")!,
      order.cardType,
      checked.expiry,
      this.now()
    )
    if (cardCode) {
      return this.rejectOrder(res, form, urls.urls, cardCode)
    }

    const card: CardBehaviour =
      findTestCard(form.get("cardAccountNumber")!) ?? DEFAULT_CARD_BEHAVIOUR
    if (card.threeDs === "frictionless") {
      const authenticated =
        card.reasonCode !== "475" && card.reasonCode !== "476"
      return this.finishPayment(res, order, card, authenticated, undefined)
    }
    const session: ChallengeSession = {
      id: randomBytes(16).toString("base64url"),
      order,
      card,
      createdAt: this.now(),
    }
    this.pruneSessions()
    this.sessions.set(session.id, session)
    const challengeUrl = `/3ds/challenge/${session.id}`
    this.logger.debug?.(
      `POST /order/start -> 3DS challenge (${order.isWindowed === "Y" ? "window" : "same page"})`
    )
    if (order.isWindowed === "N") {
      // isWindowed N: the authentication moves the page itself.
      res.writeHead(303, {
        location: challengeUrl,
        "cache-control": "no-store",
      })
      res.end()
      return
    }
    sendHtml(
      res,
      200,
      windowedWaitPage({
        challengeUrl,
        statusUrl: `/3ds/session/${session.id}/status`,
        continueUrl: `/3ds/session/${session.id}/continue`,
        windowName: `card-service-3ds-${session.id}`,
      })
    )
  }

  private recordRejectedOrder(form: Map<string, string>, reasonCode: string) {
    const currency = form.get("currency") ?? ""
    const digits = currencyDigits(currency)
    const number = form.get("cardAccountNumber") ?? ""
    const wellFormed = /^\d{12,19}$/.test(number)
    return this.store.add({
      merchantId: this.credentials.merchantId,
      merchantReferenceCode: form.get("merchantReferenceCode") ?? "",
      originalTransactionId: "",
      step: requestedStep(form),
      reasonCode,
      cardType: form.get("cardType") ?? "",
      currency,
      digits,
      amountMinor:
        digits === undefined
          ? 0
          : (parseMajorAmount(form.get("amount"), digits) ?? 0),
      cardPrefix: wellFormed ? number.slice(0, 6) : "",
      cardSuffix: wellFormed ? number.slice(-4) : "",
    })
  }

  /**
   * 101, 102, 104 and the card checks are payment results like any other
   * (docs/sandbox.md): recorded, sent to callbackLocation, and the browser
   * moves to redirectUrl.
   */
  private rejectOrder(
    res: ServerResponse,
    form: Map<string, string>,
    urls: DeliveryUrls,
    reasonCode: string
  ): Promise<void> {
    const tx = this.recordRejectedOrder(form, reasonCode)
    const payload: Record<string, string> = {
      decision: "REJECT",
      reasonCode,
      transactionId: tx.transactionId,
      originalTransactionId: "",
      merchantReferenceCode: tx.merchantReferenceCode,
    }
    return this.deliver(urls.callbackLocation, payload, (onSent) =>
      redirect(res, resultLocation(urls.redirectUrl, payload), onSent)
    )
  }

  /**
   * Decides and delivers a payment once 3DS is over. Section 4.2: a failed
   * authentication moves the page to redirectUrl only when isRedirect is Y;
   * isAuthenticate N returns the 3DS fields instead of an approval.
   */
  private finishPayment(
    res: ServerResponse,
    order: OrderSummary,
    card: CardBehaviour,
    authenticated: boolean,
    session: ChallengeSession | undefined
  ): Promise<void> {
    const authenticationFailed = !authenticated
    const reasonCode = authenticationFailed
      ? card.reasonCode === "475"
        ? "475"
        : "476"
      : order.isAuthenticate === "N"
        ? "100"
        : card.reasonCode
    // Partial approval (110): half the amount, at least one minor unit.
    const amountMinor =
      reasonCode === "110"
        ? Math.max(1, Math.floor(order.amountMinor / 2))
        : order.amountMinor
    const tx = this.store.add({
      merchantId: order.merchantId,
      merchantReferenceCode: order.merchantReferenceCode,
      originalTransactionId: "",
      step: order.isAuthenticate === "Y" ? "AUTHORIZATION" : "AUTHENTICATION",
      reasonCode,
      cardType: order.cardType,
      currency: order.currency,
      digits: order.currencyDigits,
      amountMinor,
      cardPrefix: order.cardPrefix,
      cardSuffix: order.cardSuffix,
    })
    const payload: Record<string, string> = {
      decision: decisionFor(reasonCode),
      reasonCode,
      transactionId: tx.transactionId,
      originalTransactionId: "",
      merchantReferenceCode: order.merchantReferenceCode,
    }
    if (order.isAuthenticate === "N") {
      Object.assign(payload, threeDsFields(order.cardType, authenticated))
    }
    this.logger.debug?.(`payment ${tx.transactionId} -> ${reasonCode}`)
    const moves = !authenticationFailed || order.isRedirect === "Y"
    const outcome = moves
      ? { location: resultLocation(order.redirectUrl, payload) }
      : {
          failureDetails: {
            reasonCode,
            merchantReferenceCode: order.merchantReferenceCode,
            transactionId: tx.transactionId,
          },
        }
    if (session) {
      session.outcome = outcome
    }
    return this.deliver(order.callbackLocation, payload, (onSent) => {
      if (session && session.order.isWindowed === "Y") {
        return sendHtml(
          res,
          200,
          windowDonePage(`/3ds/session/${session.id}/continue`),
          onSent
        )
      }
      if (outcome.location) {
        return redirect(res, outcome.location, onSent)
      }
      sendHtml(
        res,
        200,
        authenticationFailedPage(outcome.failureDetails!),
        onSent
      )
    })
  }

  /**
   * Orders the callback and the browser's next step per the knobs. By default
   * the first callback attempt finishes before the browser moves, so the
   * merchant has the result when the shopper returns; `delayMs` or
   * `afterRedirect` let the shopper arrive first.
   */
  private async deliver(
    callbackLocation: string,
    payload: Record<string, string>,
    respond: (onSent: () => void) => void
  ): Promise<void> {
    const knobs: CallbackKnobs = {
      ...this.callbackKnobs,
      ...this.knobsByReference.get(payload.merchantReferenceCode),
    }
    const send = () => {
      void this.dispatcher.dispatch(callbackLocation, payload, knobs)
    }
    if (knobs.drop) {
      send()
      respond(() => undefined)
      return
    }
    if (knobs.afterRedirect) {
      respond(() => this.dispatcher.schedule(send, knobs.delayMs))
      return
    }
    if (knobs.delayMs > 0) {
      this.dispatcher.schedule(send, knobs.delayMs)
      respond(() => undefined)
      return
    }
    await this.dispatcher.dispatch(callbackLocation, payload, knobs)
    respond(() => undefined)
  }

  // 3DS pages -------------------------------------------------------------

  private async threeDs(
    req: IncomingMessage,
    res: ServerResponse,
    kind: string,
    id: string,
    action: string
  ): Promise<void> {
    const raw = await readBody(req)
    const session = this.sessions.get(id)
    if (!session || this.now() - session.createdAt > this.challengeTtlMs) {
      this.sessions.delete(id)
      if (action === "/status") {
        return sendJson(res, 404, { error: "not_found" })
      }
      return sendHtml(
        res,
        404,
        errorPage(
          "Authentication not found",
          "This 3-D Secure session does not exist or has expired."
        )
      )
    }
    const continueUrl = `/3ds/session/${id}/continue`
    if (kind === "session" && action === "/status" && req.method === "GET") {
      return sendJson(res, 200, {
        state: session.outcome ? "decided" : "pending",
      })
    }
    if (kind === "session" && action === "/continue" && req.method === "GET") {
      if (!session.outcome) {
        return sendHtml(
          res,
          200,
          windowedWaitPage({
            challengeUrl: `/3ds/challenge/${id}`,
            statusUrl: `/3ds/session/${id}/status`,
            continueUrl,
            windowName: `card-service-3ds-${id}`,
          })
        )
      }
      if (session.outcome.location) {
        return redirect(res, session.outcome.location, () => undefined)
      }
      return sendHtml(
        res,
        200,
        authenticationFailedPage(session.outcome.failureDetails!)
      )
    }
    if (kind === "challenge" && action === "" && req.method === "GET") {
      if (session.outcome) {
        return redirect(res, continueUrl, () => undefined)
      }
      const { order } = session
      return sendHtml(
        res,
        200,
        challengePage({
          action: `/3ds/challenge/${id}`,
          merchantReferenceCode: order.merchantReferenceCode,
          amount: `${minorToMajor(order.amountMinor, order.currencyDigits).toFixed(order.currencyDigits)} (ISO 4217 ${order.currency})`,
          cardSuffix: order.cardSuffix,
        })
      )
    }
    if (kind === "challenge" && action === "" && req.method === "POST") {
      if (session.outcome) {
        return sendHtml(
          res,
          409,
          errorPage(
            "Authentication already finished",
            "This 3-D Secure session has already been completed."
          )
        )
      }
      const choice = new URLSearchParams(raw?.toString("utf8") ?? "").get(
        "result"
      )
      if (choice !== "pass" && choice !== "fail") {
        return sendHtml(
          res,
          400,
          errorPage("Choose a result", "Press Pass or Fail.")
        )
      }
      // Mark the session before the callback goes out, so a second press
      // while the callback is in flight is refused rather than paid twice.
      session.outcome = {}
      return this.finishPayment(
        res,
        session.order,
        session.card,
        choice === "pass",
        session
      )
    }
    res.setHeader("allow", "GET, POST")
    sendHtml(
      res,
      405,
      errorPage("Method not allowed", "This page does not accept that request.")
    )
  }

  private pruneSessions(): void {
    if (this.sessions.size < 1000) {
      return
    }
    const now = this.now()
    for (const [id, session] of this.sessions) {
      if (now - session.createdAt > this.challengeTtlMs) {
        this.sessions.delete(id)
      }
    }
  }
}

/** wire-choices "Payment result delivery": the redirect carries the result as query parameters. */
function resultLocation(
  redirectUrl: string,
  payload: Record<string, string>
): string {
  const query = new URLSearchParams({
    transactionId: payload.transactionId,
    decision: payload.decision,
    reasonCode: payload.reasonCode,
    merchantReferenceCode: payload.merchantReferenceCode,
  })
  return `${redirectUrl}?${query.toString()}`
}

function pathOf(req: IncomingMessage): string {
  const url = req.url ?? "/"
  const q = url.indexOf("?")
  return q < 0 ? url : url.slice(0, q)
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

function reasonOf(payload: unknown): string {
  const code = (payload as { reasonCode?: unknown } | null)?.reasonCode
  return typeof code === "string" ? ` reason ${code}` : ""
}

/** Reads the whole body; undefined when it exceeds the limit (the rest is discarded). */
function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let tooLarge = false
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY_BYTES) {
        tooLarge = true
        chunks.length = 0
      } else {
        chunks.push(chunk)
      }
    })
    req.on("end", () => resolve(tooLarge ? undefined : Buffer.concat(chunks)))
    req.on("error", reject)
  })
}

async function drain(req: IncomingMessage): Promise<void> {
  await readBody(req)
}

function sendJson(res: ServerResponse, status: number, payload: unknown): void {
  const body = JSON.stringify(payload)
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
  })
  res.end(body)
}

function sendHtml(
  res: ServerResponse,
  status: number,
  html: string,
  onSent?: () => void
): void {
  if (onSent) {
    res.once("finish", onSent)
  }
  res.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "content-length": Buffer.byteLength(html),
    "cache-control": "no-store",
  })
  res.end(html)
}

function redirect(
  res: ServerResponse,
  location: string,
  onSent: () => void
): void {
  res.once("finish", onSent)
  res.writeHead(303, {
    location,
    "cache-control": "no-store",
    "content-length": 0,
  })
  res.end()
}
