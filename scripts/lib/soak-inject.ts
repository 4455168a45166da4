/**
 * Applies the soak's planned faults (soak-faults.ts) to a running cluster,
 * each logged with its time as it starts and ends: an instance SIGKILLed and
 * restarted, the sandbox answering 5xx or too late, callbacks lost,
 * duplicated, reordered or minutes late for a while, every database
 * connection cut, Redis restarted.
 */
import type { CallbackKnobs } from "../../src/sandbox"
import type { Cluster } from "./load-cluster"
import type { AppliedFault, FaultParams, PlannedFault } from "./soak-faults"

type CallbackWindow = { endsAt: number; params: Extract<FaultParams, { kind: `callbacks-${string}` }> }

export class FaultInjector {
  readonly applied: AppliedFault[] = []
  private readonly windows: CallbackWindow[] = []
  private readonly running = new Set<Promise<void>>()

  constructor(
    private readonly cluster: Cluster,
    private readonly log: (line: string) => void,
    private readonly startedAt: number
  ) {}

  /**
   * The callback knobs a payment made now gets from the callback faults in
   * force (the later fault's knob wins), or null when none is: the shopper
   * sets them for its attempt's reference before posting the form.
   */
  callbackKnobsNow(random: () => number = Math.random): Partial<CallbackKnobs> | null {
    const now = Date.now()
    const active = this.windows.filter((w) => w.endsAt > now)
    if (!active.length) return null
    const knobs: Partial<CallbackKnobs> = {}
    for (const { params } of active) {
      if (params.kind === "callbacks-lost") knobs.drop = true
      if (params.kind === "callbacks-duplicated") knobs.duplicates = params.copies
      if (params.kind === "callbacks-reordered") {
        knobs.afterRedirect = true
        knobs.delayMs = Math.round(random() * params.maxDelayMs)
      }
      if (params.kind === "callbacks-late") {
        knobs.afterRedirect = true
        knobs.delayMs = Math.round(params.minDelayMs + random() * (params.maxDelayMs - params.minDelayMs))
      }
    }
    return knobs
  }

  /** The latest moment a callback delayed by a fault applied so far may go out. */
  lastDelayedCallbackAt(): number {
    return Math.max(
      0,
      ...this.windows.map((w) => w.endsAt + (w.params.kind === "callbacks-late" ? w.params.maxDelayMs : w.params.kind === "callbacks-reordered" ? w.params.maxDelayMs : 0))
    )
  }

  /** Starts a planned fault; a fault that lasts (a restart, a window) ends in the background. */
  apply(planned: PlannedFault): void {
    const work = this.run(planned.params).catch((error: Error) =>
      this.log(`fault ${planned.params.kind} failed: ${error.message}`)
    )
    this.running.add(work)
    void work.finally(() => this.running.delete(work))
  }

  /** Waits until every fault started has ended (restarts done, windows closed). */
  async settle(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running])
  }

  private async run(params: FaultParams): Promise<void> {
    const started = Date.now()
    const record = (detail: string, endedAt = Date.now()) => {
      this.applied.push({ kind: params.kind, startedAt: started, endedAt, params })
      this.log(
        `fault at +${((started - this.startedAt) / 1000).toFixed(1)} s (${new Date(started).toISOString()}): ${params.kind}: ${detail}` +
          (endedAt > started + 500 ? `; ended at +${((endedAt - this.startedAt) / 1000).toFixed(1)} s` : "")
      )
    }
    const { cluster } = this
    switch (params.kind) {
      case "instance-kill": {
        const target = cluster.instances[params.instance]
        if (!cluster.instances.every((i) => i.up)) {
          this.log(`fault instance-kill skipped: an instance is already down`)
          return
        }
        cluster.killInstance(params.instance)
        await new Promise((resolve) => setTimeout(resolve, params.downMs))
        await cluster.startInstance(params.instance)
        record(`${target.name} SIGKILLed, restarted after ${params.downMs} ms, up again`)
        return
      }
      case "service-5xx":
        cluster.sandbox.injectFault({ type: "status", status: params.status, count: params.count, path: params.path })
        record(`${params.count} x ${params.status} on ${params.path}`)
        return
      case "service-timeout":
        cluster.sandbox.injectFault(
          params.mode === "delay"
            ? { type: "delay", ms: params.ms, count: params.count, path: params.path }
            : { type: "destroy", count: params.count, path: params.path }
        )
        record(
          params.mode === "delay"
            ? `${params.count} x answer held ${params.ms} ms on ${params.path}`
            : `${params.count} x connection cut without an answer on ${params.path}`
        )
        return
      case "callbacks-lost":
      case "callbacks-duplicated":
      case "callbacks-reordered":
      case "callbacks-late": {
        const window = { endsAt: started + params.windowMs, params }
        this.windows.push(window)
        await new Promise((resolve) => setTimeout(resolve, params.windowMs))
        record(`for ${params.windowMs} ms, every result's callback ${describeWindow(params)}`)
        return
      }
      case "db-cut": {
        const rows = await cluster.query(
          `SELECT pg_terminate_backend(pid) AS cut FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`
        )
        record(`${rows.filter((r) => r.cut).length} database connections cut (pg_terminate_backend)`)
        return
      }
      case "redis-restart":
        await cluster.restartRedis()
        record(`Redis stopped and started again`)
        return
    }
  }
}

function describeWindow(params: CallbackWindow["params"]): string {
  switch (params.kind) {
    case "callbacks-lost":
      return "never sent"
    case "callbacks-duplicated":
      return `sent ${params.copies} times`
    case "callbacks-reordered":
      return `sent after the browser's redirect, each 0 to ${params.maxDelayMs} ms late`
    case "callbacks-late":
      return `sent ${params.minDelayMs / 1000} to ${params.maxDelayMs / 1000} s late`
  }
}
