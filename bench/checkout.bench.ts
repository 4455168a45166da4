/**
 * Checkout latency: the time from the service's callback reaching the
 * plugin to the order existing, next to the time Medusa takes to complete
 * the same kind of cart with its built-in system provider
 * (pp_system_default), which is the floor this path can approach; and what
 * the plugin's telemetry and its admin figures cost on that path (#32).
 *
 *   npm run bench:checkout            (BENCH_CHECKOUTS=50 per side by default)
 *
 * All sides are measured in one run, against one Medusa and one database,
 * alternating checkout by checkout (the order rotated every round) so that
 * warm-up and the shared machine's load affect them alike:
 *
 * - card, telemetry off: no tracer or meter provider (a store without
 *   instrumentation.ts), the figures' rows written: the plugin as shipped;
 * - card, telemetry on: a tracer provider whose span processor keeps the
 *   spans in memory and a meter provider with a reader, registered as
 *   registerOtel would (the exporter's own network cost is the store's);
 * - card, bare: no provider and no figures' rows, the checkout before #32
 *   but for the client's call bookkeeping;
 * - pp_system_default.
 *
 * Each ratio is given three ways: of the whole run's medians; per round
 * (the sides of a round ran back to back, so a slow minute of a shared
 * machine hits them alike), as the median with the middle half; and per
 * block of rounds (BENCH_BLOCKS), as the spread. Besides the wall time,
 * the CPU time this process (Medusa, the plugin, the in-process sandbox)
 * spent during the timed part, which the machine's other load disturbs
 * less.
 */
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { performance } from "node:perf_hooks"
import { request } from "undici"
import { useCardServiceSandbox } from "../integration-tests/helpers/card-service-env"
import { payLikeABrowser } from "../integration-tests/helpers/browser-step"
import { CARDS, orderOfCart } from "../integration-tests/helpers/checkout-flow"
import { CARD_SERVICE_PROVIDER_ID, seedStore } from "../integration-tests/helpers/seed-store"
import { storeApi } from "../integration-tests/helpers/store-api"
import { captureTelemetry } from "../integration-tests/helpers/telemetry-capture"
import {
  activityWritten,
  flushActivity,
  setActivityRecording,
} from "../src/observability/activity-buffer"
import { noProviderCost } from "./telemetry-cost"

const CHECKOUTS = Number(process.env.BENCH_CHECKOUTS ?? 50)
const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 5)
const WARMUP = 3

jest.setTimeout(60 * 60_000)

const env = useCardServiceSandbox({ callbackKnobs: { drop: true } })
const telemetry = captureTelemetry()
telemetry.stop()

type Side = "off" | "on" | "bare" | "system"
/** One checkout's timed part: wall time, and the CPU time this process spent meanwhile. */
type Sample = { wallMs: number; cpuMs: number }

function measured(started: number, cpu: NodeJS.CpuUsage): Sample {
  const used = process.cpuUsage(cpu)
  return { wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 }
}

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    it(`completes ${CHECKOUTS} card-service checkouts from the callback per telemetry side, and as many system-provider ones`, async () => {
      const store = await seedStore(getContainer(), {
        providers: [CARD_SERVICE_PROVIDER_ID, "pp_system_default"],
      })
      const storefront = storeApi(api, store)

      const cardService = async (): Promise<Sample> => {
        const cart = await storefront.createCart()
        const collection = await storefront.startPaymentSession(cart.id, CARD_SERVICE_PROVIDER_ID)
        const session = collection.payment_sessions[0]
        const paid = await payLikeABrowser(api, store.publishableKey, session.id, CARDS.approved, {
          followReturn: false,
        })
        const transactionId = new URL(paid.serviceLocation as string).searchParams.get("transactionId")
        const started = performance.now()
        const cpu = process.cpuUsage()
        const response = await request(`${env.backendUrl()}/card-service/callback/${session.id}/`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            decision: "ACCEPT",
            reasonCode: "100",
            transactionId,
            originalTransactionId: "",
          }),
        })
        await response.body.dump()
        const sample = measured(started, cpu)
        if (response.statusCode !== 200 || !(await orderOfCart(getContainer(), cart.id))) {
          throw new Error(`callback did not create an order (HTTP ${response.statusCode})`)
        }
        return sample
      }

      const system = async (): Promise<Sample> => {
        const cart = await storefront.createCart()
        await storefront.startPaymentSession(cart.id, "pp_system_default")
        const started = performance.now()
        const cpu = process.cpuUsage()
        const result = await storefront.post(`/store/carts/${cart.id}/complete`)
        const sample = measured(started, cpu)
        if (result.type !== "order") {
          throw new Error("the system provider's cart did not complete")
        }
        return sample
      }

      const run = async (side: Side): Promise<Sample> => {
        if (side === "system") return system()
        if (side === "on") telemetry.start()
        // The rows of a checkout are queued while it runs; the queue is
        // written by its one-second timer, as in a store, whichever side
        // runs then.
        setActivityRecording(side !== "bare")
        try {
          return await cardService()
        } finally {
          telemetry.stop()
          telemetry.resetSpans()
          setActivityRecording(true)
        }
      }

      const sides: Side[] = ["off", "on", "bare", "system"]
      for (let i = 0; i < WARMUP; i++) for (const side of sides) await run(side)
      await flushActivity()
      const written = activityWritten()
      const samples: Record<Side, Sample[]> = { off: [], on: [], bare: [], system: [] }
      for (let i = 0; i < CHECKOUTS; i++) {
        // Rotated each round, so no side always follows the same one.
        for (let k = 0; k < sides.length; k++) {
          const side = sides[(i + k) % sides.length]
          samples[side].push(await run(side))
        }
      }
      await flushActivity()
      const rowCheckouts = 2 * CHECKOUTS
      const rows = {
        rows: (activityWritten().rows - written.rows) / rowCheckouts,
        statements: (activityWritten().statements - written.statements) / rowCheckouts,
      }
      const idle = await noProviderCost()

      const wall = (side: Side) => samples[side].map((x) => x.wallMs)
      const cpu = (side: Side) => samples[side].map((x) => x.cpuMs)
      const median = (values: number[]) => quantile(values, 0.5)
      const ms = (v: number) => `${v.toFixed(1)} ms`.padStart(10)
      const x = (v: number) => `${v.toFixed(3)}x`
      /** a/b: of the whole run's medians; per round (the sides ran back to back); per block. */
      const ratios = (of: (side: Side) => number[], a: Side, b: Side) => {
        const [as, bs] = [of(a), of(b)]
        const rounds = as.map((v, i) => v / bs[i])
        const size = Math.ceil(CHECKOUTS / BLOCKS)
        const blocks: number[] = []
        for (let start = 0; start < CHECKOUTS; start += size) {
          blocks.push(median(as.slice(start, start + size)) / median(bs.slice(start, start + size)))
        }
        return (
          `${x(median(as) / median(bs))}   per round: median ${x(median(rounds))} (middle half ${x(quantile(rounds, 0.25))} to ${x(quantile(rounds, 0.75))})` +
          `   per block: ${x(Math.min(...blocks))} to ${x(Math.max(...blocks))} (${blocks.map((r) => r.toFixed(3)).join(" ")})`
        )
      }
      const line = (label: string, side: Side) =>
        `  ${label.padEnd(44)}${ms(median(wall(side)))} ${ms(quantile(wall(side), 0.95))} ${ms(median(cpu(side)))}`
      const pairs: [string, Side, Side][] = [
        ["telemetry on / off", "on", "off"],
        ["telemetry on / bare", "on", "bare"],
        ["off (figures' rows) / bare", "off", "bare"],
        ["card service (off) / system", "off", "system"],
      ]
      process.stdout.write(
        [
          "",
          `checkout latency, ${CHECKOUTS} checkouts per side (after ${WARMUP} warm-up rounds), alternating, one run:`,
          `                                                wall median   wall p95  CPU median`,
          line("card service, telemetry off (as shipped)", "off"),
          line("card service, telemetry on", "on"),
          line("card service, bare (no telemetry, no rows)", "bare"),
          line("pp_system_default: complete cart", "system"),
          "",
          `ratios, wall time (whole run; per round; per block of ${Math.ceil(CHECKOUTS / BLOCKS)} rounds):`,
          ...pairs.map(([label, a, b]) => `  ${label.padEnd(30)} ${ratios(wall, a, b)}`),
          `ratios, CPU time of the process that runs Medusa, the plugin and the sandbox (the database's is not in it):`,
          ...pairs.map(([label, a, b]) => `  ${label.padEnd(30)} ${ratios(cpu, a, b)}`),
          "",
          `figures' rows: ${rows.rows.toFixed(1)} rows and ${rows.statements.toFixed(2)} INSERT statements per card checkout that writes them (off and on sides; batched once a second, so under load one statement carries many checkouts' rows)`,
          `without providers, per call: observing a service call ${idle.callNs.toFixed(0)} ns, a settlement span ${idle.settleNs.toFixed(0)} ns (${idle.iterations} each; the rows' queueing left out)`,
          "",
        ].join("\n") + "\n"
      )
      expect(samples.off).toHaveLength(CHECKOUTS)
    })
  },
})

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]
}
