import type {
  CardServiceFormDescriptor,
  CardServiceSessionState,
} from "../api/store/card-service/response-types"
import { CARD_FIELDS } from "../lib/form-field-rules"
import { CardServiceStorefrontError } from "./storefront-error"

// The routes' answers, typed where the routes are; published from here.
export type { CardServiceFormDescriptor, CardServiceSessionState }

/** The subset of `fetch` the helper uses, so tests and server code can inject one. */
export type FetchLike = (
  input: string,
  init?: {
    method?: string
    headers?: Record<string, string>
    signal?: AbortSignal
    cache?: "no-store"
    credentials?: "omit"
  }
) => Promise<{
  ok: boolean
  status: number
  json(): Promise<unknown>
}>

export type BackendOptions = {
  /** The Medusa backend's public URL, e.g. https://api.shop.example (no trailing slash needed). */
  backendUrl: string
  /** A publishable API key of the sales channel (header x-publishable-api-key). */
  publishableKey: string
  /** The card-service payment session's id (payses_...). */
  sessionId: string
  /** Defaults to the global fetch. */
  fetch?: FetchLike
  signal?: AbortSignal
}

function sessionPath(options: BackendOptions, suffix = ""): string {
  const base = String(options.backendUrl ?? "").replace(/\/+$/, "")
  if (!/^https?:\/\//i.test(base)) {
    throw new TypeError(
      "card-service: backendUrl must be an absolute http(s) URL"
    )
  }
  if (!options.sessionId) {
    throw new TypeError("card-service: sessionId is required")
  }
  return `${base}/store/card-service/sessions/${encodeURIComponent(options.sessionId)}${suffix}`
}

async function getJson(options: BackendOptions, url: string): Promise<unknown> {
  const fetchImpl =
    options.fetch ?? (globalThis.fetch as unknown as FetchLike | undefined)
  if (!fetchImpl) {
    throw new TypeError(
      "card-service: no fetch available; pass one in the options"
    )
  }
  let response: Awaited<ReturnType<FetchLike>>
  try {
    response = await fetchImpl(url, {
      method: "GET",
      headers: {
        accept: "application/json",
        "x-publishable-api-key": options.publishableKey,
      },
      // Each form answer carries a fresh reference (and the session's current form code): never from a cache.
      cache: "no-store",
      // The store API identifies the session by id and the key; no cookies needed.
      credentials: "omit",
      signal: options.signal,
    })
  } catch (error) {
    if ((error as { name?: string })?.name === "AbortError") {
      throw new CardServiceStorefrontError(
        "aborted",
        "card-service: the request was aborted"
      )
    }
    throw new CardServiceStorefrontError(
      "backend_unavailable",
      `card-service: the store backend could not be reached (${(error as Error)?.message ?? error})`
    )
  }
  const body = await response.json().catch(() => undefined)
  if (!response.ok) {
    throw refusal(response.status, body)
  }
  if (body === undefined) {
    throw new CardServiceStorefrontError(
      "invalid_response",
      "card-service: the store backend did not answer with JSON",
      response.status
    )
  }
  return body
}

/**
 * Maps Medusa's error answer ({ type, message }) to a code. The form route
 * answers 404 for an unknown session and 400 not_allowed for a paid or an
 * altered one; only its message tells those two apart.
 */
function refusal(status: number, body: unknown): CardServiceStorefrontError {
  const message =
    body && typeof (body as { message?: unknown }).message === "string"
      ? (body as { message: string }).message
      : `HTTP ${status}`
  if (status >= 500) {
    return new CardServiceStorefrontError(
      "backend_unavailable",
      `card-service: the store backend failed (${message})`,
      status
    )
  }
  if (status === 404) {
    return new CardServiceStorefrontError(
      "session_not_found",
      `card-service: payment session not found (${message})`,
      status
    )
  }
  if (/already paid/i.test(message)) {
    return new CardServiceStorefrontError(
      "already_paid",
      `card-service: ${message}`,
      status
    )
  }
  if (/altered/i.test(message)) {
    return new CardServiceStorefrontError(
      "session_altered",
      `card-service: ${message}`,
      status
    )
  }
  if (/publishable/i.test(message)) {
    return new CardServiceStorefrontError(
      "publishable_key",
      `card-service: ${message}`,
      status
    )
  }
  return new CardServiceStorefrontError(
    "request_refused",
    `card-service: ${message}`,
    status
  )
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === "string")
  )
}

/** Checks the answer's shape: the descriptor decides where card data goes. */
export function parseFormDescriptor(body: unknown): CardServiceFormDescriptor {
  const form = (body as { form?: Record<string, unknown> } | null)?.form
  const invalid = (why: string) =>
    new CardServiceStorefrontError(
      "invalid_response",
      `card-service: unexpected form answer (${why})`
    )
  if (!form || typeof form !== "object") throw invalid("no form")
  if (typeof form.action !== "string" || !/^https?:\/\//i.test(form.action)) {
    throw invalid("action is not an http(s) URL")
  }
  if (form.method !== "POST") throw invalid("method is not POST")
  if (!isStringRecord(form.fields)) throw invalid("fields are not text")
  const cardFields = Array.isArray(form.card_fields)
    ? form.card_fields.filter(
        (name): name is string => typeof name === "string"
      )
    : [...CARD_FIELDS]
  return {
    action: form.action,
    method: "POST",
    enctype: "application/x-www-form-urlencoded",
    fields: { ...form.fields },
    card_fields: cardFields,
  }
}

/**
 * Fetches the form of one payment attempt. Call it right before showing the
 * card form (and again for another try): each answer has a fresh
 * merchantReferenceCode, because the service declines a reference it saw in
 * the last 15 minutes (section 8).
 */
export async function fetchCardServiceForm(
  options: BackendOptions
): Promise<CardServiceFormDescriptor> {
  return parseFormDescriptor(
    await getJson(options, sessionPath(options, "/form"))
  )
}

/** The session's state once; see pollCardServiceSession. */
export async function getCardServiceSession(
  options: BackendOptions
): Promise<CardServiceSessionState> {
  const body = (await getJson(options, sessionPath(options))) as {
    session?: CardServiceSessionState
  } | null
  const session = body?.session
  if (
    !session ||
    typeof session !== "object" ||
    !["paid", "failed", "pending"].includes(session.outcome)
  ) {
    throw new CardServiceStorefrontError(
      "invalid_response",
      "card-service: unexpected session answer"
    )
  }
  return session
}

export type PollOptions = BackendOptions & {
  /** Pause between requests. Default 2000 ms. */
  intervalMs?: number
  /** Give up after this long and return the last (pending) state. Default 120000 ms. */
  timeoutMs?: number
  /** Called with every state read, pending ones included. */
  onUpdate?: (session: CardServiceSessionState) => void
}

/**
 * Asks the backend until the session is paid or failed, for a return that
 * came back `pending` or a windowed 3DS flow. The callback from the service
 * (section 6) may arrive after the browser returns, so pending is normal for
 * a few seconds. Resolves with the last state: `outcome: "pending"` means the
 * time ran out. Network errors and 5xx answers are retried until then; a 4xx
 * (unknown session, bad key) is thrown at once.
 */
export async function pollCardServiceSession(
  options: PollOptions
): Promise<CardServiceSessionState> {
  const intervalMs = Math.max(100, options.intervalMs ?? 2000)
  const deadline = Date.now() + Math.max(0, options.timeoutMs ?? 120_000)
  let last: CardServiceSessionState | null = null
  let lastError: CardServiceStorefrontError | null = null
  for (;;) {
    try {
      last = await getCardServiceSession(options)
      lastError = null
      options.onUpdate?.(last)
      if (last.outcome !== "pending") return last
    } catch (error) {
      const retryable =
        error instanceof CardServiceStorefrontError &&
        (error.code === "backend_unavailable" ||
          error.code === "invalid_response")
      if (!retryable) throw error
      lastError = error
    }
    const wait = Math.min(intervalMs, deadline - Date.now())
    if (wait <= 0) break
    await sleep(wait, options.signal)
  }
  if (last) return last
  throw (
    lastError ??
    new CardServiceStorefrontError("aborted", "card-service: polling timed out")
  )
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(
        new CardServiceStorefrontError(
          "aborted",
          "card-service: polling was aborted"
        )
      )
      return
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(
        new CardServiceStorefrontError(
          "aborted",
          "card-service: polling was aborted"
        )
      )
    }
    signal?.addEventListener("abort", onAbort, { once: true })
  })
}
