import { AsyncLocalStorage } from "node:async_hooks"

/**
 * Whether the code running now is settling a reported result (inside
 * traceSettlement). A retrieve made there reads a payment's result as it
 * arrives, and only such a read counts it in the results metric and the
 * admin's figures: the order widget, a cancellation or a refund read old
 * approvals again, and a result counted at such a read would be counted on
 * the day someone looked (and again once its row is older than the eight
 * days kept). The transaction record carries no date of its own to tell.
 */
const settling = new AsyncLocalStorage<true>()

export function asSettlement<T>(work: () => Promise<T>): Promise<T> {
  return settling.run(true, work)
}

export function inSettlement(): boolean {
  return settling.getStore() === true
}
