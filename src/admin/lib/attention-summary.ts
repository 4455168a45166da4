import type { ReconcileEntry } from "../../api/admin/card-service/response-types"

/**
 * The Needs attention header's count of what the list below shows: the
 * cases the store owner must act on, and those the sweep already acted on
 * (listed too, under "Action taken"). A header that counted only the first
 * said "0 open" above a list of entries. The actions taken say how many
 * were the sweep's: "Actions by the sweep" in Payments at a glance, beside
 * it, counts only those (issue 41: "5 actions taken" sat beside "Sweep
 * actions 3", two being review verdicts settled on their callbacks).
 */
export function attentionSummary(entries: Pick<ReconcileEntry, "needs_action" | "acted_by">[]): {
  needAction: number
  taken: number
  text: string
} {
  const needAction = entries.filter((entry) => entry.needs_action).length
  const taken = entries.length - needAction
  const bySweep = entries.filter((entry) => !entry.needs_action && entry.acted_by === "sweep").length
  const parts = [`${needAction} need${needAction === 1 ? "s" : ""} action`]
  if (taken) {
    const who = bySweep === taken ? "by the sweep" : `${bySweep} by the sweep`
    parts.push(`${taken} action${taken === 1 ? "" : "s"} taken (${who})`)
  }
  return { needAction, taken, text: parts.join(" · ") }
}
