/**
 * Rounds of shoppers for the load benchmark and the two-instance test: the
 * sides (load-shoppers.ts) alternate in rounds of N shoppers paying at once,
 * each round's carts built first, off the clock; what each side's rounds
 * took in time and CPU.
 */
import { performance } from "node:perf_hooks"
import type { Cluster } from "./load-cluster"
import { addStatements, type StatementTally } from "./load-statements"
import { groupCpuMs, machineCpuMs } from "./proc-cpu"
import {
  type CheckoutResult,
  type PerSide,
  perSide,
  type Prepared,
  type Provider,
  PROVIDERS,
  storeClient,
} from "./load-shoppers"

/** Carts made at once before a round (prepareRound). */
const PREPARE_AT_ONCE = 10

/** One side's round: N shoppers paying at once for `results.length` carts. */
export type RoundRecord = {
  provider: Provider
  /** Which alternation of the sides this round belongs to (0-based). */
  alternation: number
  wallMs: number
  /** The machine's CPU during the round (/proc/stat), null without /proc. */
  cpuMs: number | null
  /** Of it, each Medusa instance's (its process group), null when it was restarted during the round. */
  instanceCpuMs: Array<number | null>
  /**
   * Sampled every 100 ms: the time during which every shopper of the round
   * was inside a checkout, and the machine's CPU in it. The rest of the round
   * is its tail, when the last checkouts finish and fewer are in flight.
   */
  allPaying: { wallMs: number; cpuMs: number }
  results: CheckoutResult[]
}

export type RunResult = {
  concurrency: number
  /** The sides this run drove. */
  providers: Provider[]
  wallMs: PerSide<number>
  /**
   * CPU time the whole machine spent during each provider's rounds (every
   * process: the instances, PostgreSQL, Redis, this process with the sandbox
   * and the proxy), from /proc/stat; null where there is none. Work a round
   * leaves behind (events, the sweep) lands in the next round's.
   */
  cpuMs: PerSide<number> | null
  /**
   * Of cpuMs, this process's own: the sandbox (the card service's side of
   * every card checkout), the proxy and the shoppers. Work that in
   * production runs on the service's machines and the shoppers' devices.
   */
  benchCpuMs: PerSide<number>
  /** The statements run during each side's rounds, when the cluster counts them (load-statements.ts). */
  statements: PerSide<StatementTally> | null
  results: CheckoutResult[]
  /** Each round, in the order they ran. */
  rounds: RoundRecord[]
  timedOut: boolean
}

/**
 * `checkouts` of each provider by `concurrency` shoppers. The providers
 * alternate in rounds (a round of each side's, each with all shoppers at
 * once; an alternation is one round of every side, the order reversed every
 * other alternation), so warm-up, drift and background load fall on all
 * alike; each side's throughput is its checkouts over the time its own
 * rounds took. `timeCapMs` stops starting new alternations.
 */
export async function runShoppers(
  cluster: Cluster,
  {
    concurrency,
    checkouts,
    timeCapMs,
    providers = ["card", "system"],
    onPayments,
    perShopper = 1,
  }: {
    concurrency: number
    checkouts: number
    /**
     * Checkouts each shopper makes in a round, one after another (a round is
     * `concurrency * perShopper` carts). A round ends when its slowest
     * shopper is done, so with one each, every round's throughput is set by
     * its slowest checkout (which p99 already reports) and the cores idle
     * while the last few finish; more per shopper keeps N payments in flight
     * for longer between those ends.
     */
    perShopper?: number
    timeCapMs: number
    providers?: Provider[]
    /** Called when a round's payments start (its carts are built). */
    onPayments?: () => void
  }
): Promise<RunResult> {
  const client = storeClient(cluster)
  await client.loadCatalog()
  const sides = PROVIDERS.filter((provider) => providers.includes(provider))
  const results: CheckoutResult[] = []
  const rounds: RoundRecord[] = []
  const wallMs = perSide(() => 0)
  const cpuMs: RunResult["cpuMs"] = machineCpuMs() === null ? null : perSide(() => 0)
  const benchCpuMs = perSide(() => 0)
  const statements: RunResult["statements"] = cluster.statements ? perSide(() => new Map()) : null
  const deadline = Date.now() + timeCapMs
  const done = perSide(() => 0)
  let timedOut = false
  for (let alternation = 0; sides.some((provider) => done[provider] < checkouts); alternation++) {
    if (Date.now() > deadline) {
      timedOut = true
      break
    }
    const order = alternation % 2 === 0 ? sides : [...sides].reverse()
    for (const provider of order) {
      const size = Math.min(concurrency * perShopper, checkouts - done[provider])
      if (size <= 0) continue
      // The carts first, a few at a time and off the clock, then all the
      // round's shoppers pay at once: N shoppers means N concurrent
      // payments. Building 100 carts at once on 2 cores made every store
      // call of it take over a minute (docs/benchmarks.md), which is the
      // shop's cart API under saturation, not the payment path.
      const prepared = await prepareRound(client, provider, size)
      await cluster.statements?.reset()
      const started = performance.now()
      const cpuBefore = machineCpuMs()
      const instancesBefore = instanceCpu(cluster)
      const ownBefore = process.cpuUsage()
      onPayments?.()
      // Each shopper pays for its next cart as soon as its last checkout is
      // done, so N payments are in flight until the round's carts run out.
      const round: CheckoutResult[] = new Array(size)
      const shoppers = Math.min(concurrency, size)
      let next = 0
      let paying = 0
      const sampler = allPayingSampler(() => paying === shoppers)
      await Promise.all(
        Array.from({ length: shoppers }, async () => {
          for (let i = next++; i < size; i = next++) {
            paying++
            round[i] = await (provider === "system"
              ? client.systemCheckout(prepared[i])
              : client.cardCheckout(prepared[i], provider))
            paying--
            round[i].alternation = alternation
          }
        })
      )
      const allPaying = sampler.stop()
      const roundWall = performance.now() - started
      wallMs[provider] += roundWall
      const cpuAfter = machineCpuMs()
      const instancesAfter = instanceCpu(cluster)
      const own = process.cpuUsage(ownBefore)
      benchCpuMs[provider] += (own.user + own.system) / 1000
      if (statements && cluster.statements) addStatements(statements[provider], await cluster.statements.read())
      const roundCpu = cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null
      if (cpuMs && roundCpu !== null) cpuMs[provider] += roundCpu
      done[provider] += size
      results.push(...round)
      rounds.push({
        provider,
        alternation,
        wallMs: roundWall,
        cpuMs: roundCpu,
        instanceCpuMs: instancesAfter.map((after, i) => {
          const before = instancesBefore[i]
          return after.pid === before.pid && after.ms !== null && before.ms !== null ? after.ms - before.ms : null
        }),
        allPaying,
        results: round,
      })
    }
  }
  return { concurrency, providers: sides, wallMs, cpuMs, benchCpuMs, statements, results, rounds, timedOut }
}

/** Each instance's process group CPU now, with the pid it was read for (a restart changes it). */
function instanceCpu(cluster: Cluster): Array<{ pid: number | undefined; ms: number | null }> {
  return cluster.instances.map((instance) => {
    const pid = instance.up ? instance.child?.pid : undefined
    return { pid, ms: pid === undefined ? null : groupCpuMs(pid) }
  })
}

const SAMPLE_MS = 100

/**
 * Samples, every 100 ms, whether every shopper is paying, and adds the
 * interval's wall time and machine CPU to the total when so.
 */
function allPayingSampler(allPaying: () => boolean): { stop: () => RoundRecord["allPaying"] } {
  const total = { wallMs: 0, cpuMs: 0 }
  let last = { at: performance.now(), cpu: machineCpuMs(), all: allPaying() }
  const timer = setInterval(() => {
    const now = { at: performance.now(), cpu: machineCpuMs(), all: allPaying() }
    if (last.all && now.all && last.cpu !== null && now.cpu !== null) {
      total.wallMs += now.at - last.at
      total.cpuMs += now.cpu - last.cpu
    }
    last = now
  }, SAMPLE_MS)
  return {
    stop: () => {
      clearInterval(timer)
      return total
    },
  }
}

async function prepareRound(
  client: ReturnType<typeof storeClient>,
  provider: Provider,
  size: number
): Promise<Prepared[]> {
  const prepared: Prepared[] = new Array(size)
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(PREPARE_AT_ONCE, size) }, async () => {
      for (let i = next++; i < size; i = next++) {
        prepared[i] = await client.prepare(provider).catch((error: Error) => ({
          cartId: "",
          sessionId: "",
          error: `before the payment: ${error.message}`,
        }))
      }
    })
  )
  return prepared
}
