import type CardServiceProviderService from "../providers/card-service/service"
import { spendAnonymousCall } from "./call-budget"

/**
 * The verification code a session's payment forms carry (section 5.3). Each
 * form gets a code issued for forms, never the server's own (the client's
 * freshVerificationCode), but not one per view: anyone can open a pay page or
 * fetch a form as often as they like, and each new code is a GET /authorize.
 * So a session's form code is reused for FORM_CODE_REUSE_MS: a reload, a
 * second tab or a retry after a decline within that window carry the same
 * code (with a fresh merchantReferenceCode each, as section 8 requires), and
 * a new one costs a call of the anonymous budget (call-budget.ts).
 *
 * Per provider instance and in memory: with several Medusa instances, each
 * mints at most one code per session per window.
 *
 * A spare code is kept ready (issue 43): a session's first view takes the
 * spare, if it was issued within the last SPARE_FRESH_MS, instead of waiting
 * a round trip to the service before the payment page can render, and the
 * next spare is minted behind it. So a busy store's pay pages never wait on
 * GET /authorize, and the service sees one code per new session, as before;
 * an idle store's first view after a pause mints its own, as before. A spare
 * is a code issued for forms like any other, given to one session only.
 */

/** Short, because the service's code lifetime is "not shown" (section 5). */
export const FORM_CODE_REUSE_MS = 60_000

/**
 * A spare older than this is not handed out: the session's reuse window
 * counts from when its code was issued, and should keep most of its minute.
 */
export const SPARE_FRESH_MS = FORM_CODE_REUSE_MS / 2

/** Sessions whose form code is remembered; the oldest is forgotten beyond this. */
const MAX_SESSIONS_REMEMBERED = 10_000

type Entry = { code: Promise<string>; issuedAt: number }

const entriesByProvider = new WeakMap<
  CardServiceProviderService,
  Map<string, Entry>
>()

/** The code minted ahead for the next new session, per provider instance. */
const spares = new WeakMap<CardServiceProviderService, Entry>()

/**
 * A code for a session that has none: the spare when it is fresh (still on
 * its way is fine: it was asked for earlier), or a new one; then the next
 * spare is minted behind it. A burst of new sessions costs one call each,
 * and one more for the spare left over.
 */
function issue(provider: CardServiceProviderService, now: () => number): Entry {
  const spare = spares.get(provider)
  spares.delete(provider)
  const entry = spare && now() - spare.issuedAt < SPARE_FRESH_MS ? spare : mint(provider, now)
  const next = mint(provider, now)
  next.code.catch(() => {
    if (spares.get(provider) === next) spares.delete(provider)
  })
  spares.set(provider, next)
  return entry
}

function mint(provider: CardServiceProviderService, now: () => number): Entry {
  return { code: provider.client.freshVerificationCode(), issuedAt: now() }
}

/** The session's form code: the one issued within the window, or a new one. */
export async function formCodeFor(
  provider: CardServiceProviderService,
  sessionId: string,
  now: () => number = Date.now
): Promise<string> {
  let entries = entriesByProvider.get(provider)
  if (!entries) {
    entries = new Map()
    entriesByProvider.set(provider, entries)
  }
  const known = entries.get(sessionId)
  if (known && now() - known.issuedAt < FORM_CODE_REUSE_MS) {
    return await known.code
  }
  spendAnonymousCall(provider, sessionId)
  // One request for every view that arrives while it runs.
  const entry = issue(provider, now)
  entries.delete(sessionId)
  if (entries.size >= MAX_SESSIONS_REMEMBERED) {
    entries.delete(entries.keys().next().value as string)
  }
  entries.set(sessionId, entry)
  entry.code.catch(() => {
    if (entries.get(sessionId) === entry) entries.delete(sessionId)
  })
  return await entry.code
}
