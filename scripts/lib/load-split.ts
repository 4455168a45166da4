/**
 * Where a card-service checkout's time went, from the form post to the
 * order, measured, not estimated: the shopper's own clock marks (form post,
 * the service's 303, the return's 303, the order) and the sandbox's records
 * of the same checkout (its callback attempts with their durations, the
 * retrieves of the transaction with theirs, the capture's time). The sandbox
 * runs in the benchmark's process, so all of it is one clock.
 */
import type { Cluster } from "./load-cluster"
import { type CheckoutResult, percentile } from "./load-shoppers"

/** The parts, in the order they happen; each in ms. */
export const SPLIT_PARTS = {
  decision: "service: form post to its first callback (checks, 3DS, decision)",
  beforeRetrieve: "callback 1: plugin before its retrieve (claim, lock, reads)",
  retrieve: "callback 1: the plugin's retrieve of the transaction",
  completion: "callback 1: retrieve to capture (cart completion, authorize's own retrieve)",
  authorizeRetrieve: "  of which authorize's retrieve (second retrieve)",
  captureToAnswer: "callback 1: capture to the callback's answer (rest of the workflow)",
  uncapturedToAnswer: "callback 1, authorizing only: retrieve to the callback's answer (cart completion)",
  redirect: "service: callback answered to the browser's 303",
  return: "return: the browser's return to its 303",
  waitForOrder: "after a pending return: until the order exists",
} as const

export type SplitPart = keyof typeof SPLIT_PARTS

export type Split = {
  /** Checkouts the split covers (those with marks and a first callback). */
  n: number
  parts: Record<SplitPart, { p50: number; p95: number; n: number }>
  /** Retrieves of one transaction over its whole checkout (late copies included). */
  retrievesPerCheckout: { p50: number; max: number }
  /** Callback attempts per checkout, and how many were answered at once without settling or from a read. */
  callbackAttempts: { p50: number; max: number }
}

export function measureSplit(cluster: Cluster, results: CheckoutResult[]): Split {
  const callbacks = cluster.sandbox.callbacks()
  const requests = cluster.sandbox.requests()
  const transactions = cluster.sandbox.transactions()
  const captureAt = new Map<string, number>()
  for (const capture of transactions) {
    if (capture.step !== "CAPTURE" || capture.reasonCode !== "100") continue
    const at = cluster.sandbox.recordedAt(capture.transactionId)
    if (at !== undefined) captureAt.set(capture.originalTransactionId, at)
  }
  const values: Record<SplitPart, number[]> = Object.fromEntries(
    Object.keys(SPLIT_PARTS).map((k) => [k, []])
  ) as unknown as Record<SplitPart, number[]>
  const retrieveCounts: number[] = []
  const attemptCounts: number[] = []
  let n = 0
  for (const result of results) {
    if (result.provider === "system" || !result.ok || !result.marks || !result.transactionId) continue
    const tx = result.transactionId
    const mine = callbacks.filter((c) => c.transactionId === tx && !c.dropped).sort((a, b) => a.at - b.at)
    const first = mine[0]
    if (!first || first.ms === undefined) continue
    n++
    const retrieves = requests
      .filter((r) => r.path.endsWith(`/${tx}`) && r.path.includes("/payment/retrieve/"))
      .sort((a, b) => a.startedAt - b.startedAt)
    retrieveCounts.push(retrieves.length)
    attemptCounts.push(mine.length)
    const { marks } = result
    const callbackEnd = first.at + first.ms
    values.decision.push(first.at - marks.posted)
    values.redirect.push(marks.redirected - callbackEnd)
    values.return.push(marks.returned - marks.redirected)
    values.waitForOrder.push(marks.ordered - marks.returned)
    const inFirst = retrieves.filter((r) => r.startedAt >= first.at && r.startedAt <= callbackEnd)
    const captured = captureAt.get(tx)
    if (inFirst[0]?.ms !== undefined && captured !== undefined && captured <= callbackEnd) {
      const r1 = inFirst[0]
      values.beforeRetrieve.push(r1.startedAt - first.at)
      values.retrieve.push(r1.ms!)
      values.completion.push(captured - (r1.startedAt + r1.ms!))
      if (inFirst[1]?.ms !== undefined) values.authorizeRetrieve.push(inFirst[1].ms)
      values.captureToAnswer.push(callbackEnd - captured)
    } else if (inFirst[0]?.ms !== undefined && captured === undefined) {
      const r1 = inFirst[0]
      values.beforeRetrieve.push(r1.startedAt - first.at)
      values.retrieve.push(r1.ms!)
      if (inFirst[1]?.ms !== undefined) values.authorizeRetrieve.push(inFirst[1].ms)
      values.uncapturedToAnswer.push(callbackEnd - (r1.startedAt + r1.ms!))
    }
  }
  const parts = Object.fromEntries(
    (Object.keys(SPLIT_PARTS) as SplitPart[]).map((k) => [
      k,
      { p50: percentile(values[k], 0.5), p95: percentile(values[k], 0.95), n: values[k].length },
    ])
  ) as Split["parts"]
  return {
    n,
    parts,
    retrievesPerCheckout: { p50: percentile(retrieveCounts, 0.5), max: Math.max(0, ...retrieveCounts) },
    callbackAttempts: { p50: percentile(attemptCounts, 0.5), max: Math.max(0, ...attemptCounts) },
  }
}

export function splitLines(split: Split): string[] {
  const f = (v: number) => (Number.isFinite(v) ? v.toFixed(0) : "-")
  return [
    `where the card path's time went (${split.n} checkouts; p50 / p95 ms of each part, measured separately, so they do not add up to the total's percentiles):`,
    ...(Object.keys(SPLIT_PARTS) as SplitPart[]).map(
      (k) =>
        `  ${SPLIT_PARTS[k].padEnd(78)} ${f(split.parts[k].p50).padStart(6)} / ${f(split.parts[k].p95).padStart(6)}${split.parts[k].n !== split.n ? `  (${split.parts[k].n} checkouts)` : ""}`
    ),
    `  retrieves of one transaction per checkout: p50 ${f(split.retrievesPerCheckout.p50)}, max ${split.retrievesPerCheckout.max}; ` +
      `callback attempts per checkout: p50 ${f(split.callbackAttempts.p50)}, max ${split.callbackAttempts.max}`,
  ]
}
