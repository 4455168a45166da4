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
 */

/** Short, because the service's code lifetime is "not shown" (section 5). */
export const FORM_CODE_REUSE_MS = 60_000

/** Sessions whose form code is remembered; the oldest is forgotten beyond this. */
const MAX_SESSIONS_REMEMBERED = 10_000

type Entry = { code: Promise<string>; issuedAt: number }

const entriesByProvider = new WeakMap<
  CardServiceProviderService,
  Map<string, Entry>
>()

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
  const entry: Entry = {
    code: provider.client.freshVerificationCode(),
    issuedAt: now(),
  }
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
