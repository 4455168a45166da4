/**
 * The CPU lines of a bench:load report: what a checkout of each side cost
 * the machine, how busy the cores were during each side's rounds, and where
 * a side whose rounds leave the cores idle waits (issue 33): while every
 * shopper was paying or in the rounds' tails, and how evenly the two Medusa
 * instances shared the work.
 */
import os from "node:os"
import type { RoundRecord, RunResult } from "./load-rounds"
import type { Provider } from "./load-shoppers"

/** The sides of a run that are compared with the system provider, and their names in a report. */
export const CARD_SIDES = [
  ["authorize", "card, authorize only"],
  ["card", "card service"],
] as const

export const hasSide = (run: RunResult, provider: Provider) => run.providers.includes(provider)

const percent = (part: number, whole: number) => (whole > 0 ? `${((100 * part) / whole).toFixed(0)}%` : "-")

/**
 * The machine's CPU time per completed checkout of each side, from
 * /proc/stat, and how busy the cores were during its rounds: a side whose
 * rounds leave the cores idle is waiting, not working.
 */
export function cpuLines(run: RunResult, done: Record<Provider, number>): string[] {
  const { cpuMs } = run
  if (!cpuMs || done.system === 0) return []
  const cores = os.cpus().length
  const per = (provider: Provider) => cpuMs[provider] / done[provider]
  // Without this process (the sandbox, the proxy, the shoppers): what the
  // Medusa instances, PostgreSQL and Redis spent, the store's own machines.
  const store = (provider: Provider) => (cpuMs[provider] - run.benchCpuMs[provider]) / done[provider]
  const busy = (provider: Provider) => percent(cpuMs[provider], run.wallMs[provider] * cores)
  const lines: string[] = []
  for (const [provider, name] of CARD_SIDES) {
    if (!hasSide(run, provider) || done[provider] === 0) continue
    lines.push(
      `machine CPU per checkout (all processes, during each side's rounds): ${name} ${per(provider).toFixed(0)} ms, ` +
        `system ${per("system").toFixed(0)} ms, ratio ${(per(provider) / per("system")).toFixed(2)}x`,
      `  of which the store's (Medusa, PostgreSQL, Redis; not the sandbox, proxy and shoppers): ${name} ${store(provider).toFixed(0)} ms, ` +
        `system ${store("system").toFixed(0)} ms, ratio ${(store(provider) / store("system")).toFixed(2)}x`,
      `  cores busy during the rounds: ${name} ${busy(provider)}, system ${busy("system")}`,
      ...waitLines(run.rounds, provider, name, cores)
    )
  }
  return lines
}

/**
 * Where idle cores come from: the share of a side's round time during
 * which every shopper was paying and the cores' use in it, against the
 * rounds' tails; and the busier Medusa instance's share of the two
 * instances' CPU (50% is an even split).
 */
function waitLines(rounds: RoundRecord[], provider: Provider, name: string, cores: number): string[] {
  const sum = (side: Provider, f: (r: RoundRecord) => number | null) =>
    rounds.filter((r) => r.provider === side).reduce((total, r) => total + (f(r) ?? 0), 0)
  const figures = (side: Provider) => {
    const wall = sum(side, (r) => r.wallMs)
    const cpu = sum(side, (r) => r.cpuMs)
    const allWall = sum(side, (r) => r.allPaying.wallMs)
    const allCpu = sum(side, (r) => r.allPaying.cpuMs)
    const split = rounds
      .filter((r) => r.provider === side && r.instanceCpuMs.every((ms) => ms !== null))
      .map((r) => r.instanceCpuMs as number[])
    const busier = split.reduce((total, ms) => total + Math.max(...ms), 0)
    const both = split.reduce((total, ms) => total + ms.reduce((a, b) => a + b, 0), 0)
    const splitWall = rounds
      .filter((r) => r.provider === side && r.instanceCpuMs.every((ms) => ms !== null))
      .reduce((total, r) => total + r.wallMs, 0)
    return {
      instancesBusy: percent(both, splitWall * cores),
      allShare: percent(allWall, wall),
      allBusy: percent(allCpu, allWall * cores),
      tailBusy: percent(cpu - allCpu, (wall - allWall) * cores),
      busier: percent(busier, both),
    }
  }
  const mine = figures(provider)
  const system = figures("system")
  return [
    `  while every shopper was paying (${name} ${mine.allShare} of its rounds' time, system ${system.allShare}): ` +
      `cores busy ${name} ${mine.allBusy}, system ${system.allBusy}; in the rounds' tails: ${name} ${mine.tailBusy}, system ${system.tailBusy}`,
    `  the two Medusa instances' CPU over the rounds' time, of all cores: ${name} ${mine.instancesBusy}, system ${system.instancesBusy}; ` +
      `the busier instance's share of it: ${name} ${mine.busier}, system ${system.busier} (50% is an even split)`,
  ]
}
