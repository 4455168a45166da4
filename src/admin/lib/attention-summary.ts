import type { ReconcileEntry } from "../../api/admin/card-service/response-types"

/**
 * The Needs attention header's count of what the list below shows: the
 * cases the store owner must act on, and those the sweep already acted on
 * (listed too, under "Action taken"). A header that counted only the first
 * said "0 open" above a list of entries.
 */
export function attentionSummary(entries: Pick<ReconcileEntry, "needs_action">[]): {
  needAction: number
  taken: number
  text: string
} {
  const needAction = entries.filter((entry) => entry.needs_action).length
  const taken = entries.length - needAction
  const parts = [`${needAction} need${needAction === 1 ? "s" : ""} action`]
  if (taken) parts.push(`${taken} action${taken === 1 ? "" : "s"} taken`)
  return { needAction, taken, text: parts.join(" · ") }
}
