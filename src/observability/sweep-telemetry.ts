import { recordActivity } from "./activity-buffer"
import { ATTR, SPANS } from "./telemetry-names"
import { inSpan, instruments } from "./telemetry"

type SweepRun = {
  examined: number
  actions: { status: string }[]
  serviceDown: boolean
}

/**
 * Runs one reconciliation sweep (src/reconciliation/sweep.ts) in a
 * `card_service.sweep` span, its settlements and service calls as children,
 * and counts each thing it did by the status it noted: the sweep-actions
 * metric and a row per action for the admin's figures.
 */
export async function traceSweep<T extends SweepRun>(sweep: () => Promise<T>): Promise<T> {
  const result = await inSpan(SPANS.sweep.name, () => ({}), sweep, (run) => ({
    [ATTR.sweepExamined]: run.examined,
    [ATTR.sweepActions]: run.actions.length,
    [ATTR.sweepServiceDown]: run.serviceDown,
  }))
  const counter = instruments()?.sweepActions
  for (const action of result.actions) {
    counter?.add(1, { [ATTR.sweepAction]: action.status })
    recordActivity({ kind: "sweep", name: action.status })
  }
  return result
}
