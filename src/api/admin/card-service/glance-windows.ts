import { plainReason } from "../../../lib/payment-results"
import type { EventCount, LatencyRow } from "../../../modules/card-service-activity/service"
import type { GlanceWindow } from "./response-types"

/** Started sessions, and those abandoned, for one window. */
export type SessionCounts = { started: number; abandoned: number }

const WINDOWS = [
  { window: "24h", key: "day" },
  { window: "7d", key: "week" },
] as const

/** Pure: the two windows from the session counts and the event aggregates. */
export function assembleWindows(
  sessions: Record<"day" | "week", SessionCounts>,
  events: EventCount[],
  latency: LatencyRow[]
): GlanceWindow[] {
  return WINDOWS.map(({ window, key }) => {
    const count = (kind: string, names?: string[]) =>
      events
        .filter((e) => e.kind === kind && (!names || names.includes(e.name)))
        .reduce((sum, e) => sum + e[key], 0)
    const results = (name: string) => count("result", [name])
    const approved = results("approved")
    const declined = results("declined")
    const threeDsFailed = results("3ds_failed")
    const errors = results("error")
    // A review's row becomes its verdict or review_expired (the activity
    // module): one still named review is waiting for its verdict now.
    const decided = approved + declined + threeDsFailed + errors
    const declines = new Map<string, number>()
    for (const e of events) {
      if (e.kind === "result" && e.name === "declined" && e[key] > 0) {
        const code = e.reason_code ?? "?"
        declines.set(code, (declines.get(code) ?? 0) + e[key])
      }
    }
    const sweep = new Map<string, number>()
    for (const e of events) {
      if (e.kind === "sweep" && e[key] > 0) sweep.set(e.name, (sweep.get(e.name) ?? 0) + e[key])
    }
    return {
      window,
      started: sessions[key].started,
      approved,
      declined,
      three_ds_failed: threeDsFailed,
      errors,
      decided,
      on_hold: results("review"),
      review_expired: results("review_expired"),
      top_declines: [...declines.entries()]
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .slice(0, 5)
        .map(([code, n]) => ({ reason_code: code, reason: plainReason(code), count: n })),
      abandoned: sessions[key].abandoned,
      approval_rate: decided ? approved / decided : null,
      latency: latency
        .filter((row) => row.window === key)
        .sort((a, b) => b.p95 - a.p95 || a.operation.localeCompare(b.operation))
        .map((row) => ({
          operation: row.operation,
          calls: row.calls,
          p50_ms: Math.round(row.p50 * 10) / 10,
          p95_ms: Math.round(row.p95 * 10) / 10,
        })),
      callbacks_refused: count("callback", ["refused"]),
      callbacks_ignored: count("callback", ["ignored"]),
      callbacks_unavailable: count("callback", ["unavailable"]),
      sweep_actions: count("sweep"),
      sweep_by_status: [...sweep.entries()]
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .map(([status, n]) => ({ status, count: n })),
    }
  })
}
