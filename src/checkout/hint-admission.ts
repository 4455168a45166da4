import type CardServiceProviderService from "../providers/card-service/service"
import { callBudgetOf, spendAnonymousCall } from "./call-budget"
import type { SettleHint } from "./settle-types"

/**
 * Whether a result hint may cost a call to the service. Hints from the
 * callback and the return are anonymous (the callback is unsigned, the
 * return is any browser): each retrieve they cause is spent from the call
 * budget (call-budget.ts). The sweep's hints are the plugin's own notes.
 */
function isAnonymous(hint: SettleHint): boolean {
  return hint.source === "callback" || hint.source === "return"
}

/** Spends a call for an anonymous hint about an existing session, or throws CallBudgetExceeded. */
export function anonymousHint(
  provider: CardServiceProviderService,
  sessionId: string,
  hint: SettleHint
): void {
  if (isAnonymous(hint)) spendAnonymousCall(provider, sessionId)
}

/**
 * A result for a session Medusa does not have may be for one it deleted
 * (the cart changed), whose approval must be released; or for an id someone
 * made up, which must cost the service nothing. The result names its
 * merchantReferenceCode (wire-choices: callback body and redirect query), and
 * only this plugin can make a reference whose MAC names that session id: an
 * anonymous hint is looked up only when it carries one. The sweep's own
 * notes are looked up regardless.
 */
export function mayLookUpOrphan(
  provider: CardServiceProviderService,
  sessionId: string,
  hint: SettleHint
): boolean {
  if (!isAnonymous(hint)) return true
  return (
    provider.sealer.referenceBelongsTo(hint.merchantReferenceCode, sessionId) &&
    callBudgetOf(provider).take(sessionId)
  )
}
