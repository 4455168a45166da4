import { spawn } from "node:child_process"
import path from "node:path"
import { Redis } from "ioredis"
import { RedisLockingProvider } from "@medusajs/locking-redis/dist/services/redis-lock"
import { startOwnRedis, type OwnRedis } from "../../scripts/lib/redis-server"
import { leasedLock, LOCK_LEASE_SECONDS } from "../../src/lib/lock-lease"
import { runReconcileSweep, SWEEP_LEASE_SECONDS, SWEEP_LOCK_KEY } from "../../src/jobs/card-service-reconcile"
import { sweepCardServicePayments } from "../../src/reconciliation/sweep"

jest.mock("../../src/reconciliation/sweep", () => ({ sweepCardServicePayments: jest.fn() }))
jest.mock("../../src/observability/sweep-telemetry", () => ({ traceSweep: (run: () => unknown) => run() }))

/**
 * Issue 42, bench:crash-points: an instance killed while settling a payment
 * left its settle lock behind, and every callback copy, return and sweep of
 * that session waited out Medusa's default lease of a minute (settled after
 * 61 s). With the plugin's lease, Medusa's Redis provider frees a dead
 * holder's lock within it, and renews it for a live one.
 */
describe("the plugin's locks with Medusa's Redis locking provider", () => {
  let redis: OwnRedis
  let client: Redis
  let locking: RedisLockingProvider
  const key = "card-service:settle:payses_LEASE"

  beforeAll(async () => {
    const own = await startOwnRedis()
    if (!own) throw new Error("this test needs /usr/bin/redis-server (.ci/run installs it)")
    redis = own
    client = new Redis(redis.url)
    locking = new RedisLockingProvider({ redisClient: client, prefix: "lease-test:" } as never, {})
  })
  afterAll(async () => {
    client?.disconnect()
    await redis?.stop()
  })

  /** A process that takes `key` with these arguments, says so, and holds it until it is killed. */
  function holderThatDies(args: Record<string, number>) {
    const script = `
      const { Redis } = require("ioredis")
      const { RedisLockingProvider } = require("@medusajs/locking-redis/dist/services/redis-lock")
      const locking = new RedisLockingProvider({ redisClient: new Redis(${JSON.stringify(redis.url)}), prefix: "lease-test:" }, {})
      locking.execute(${JSON.stringify(key)}, () => { process.stdout.write("held\\n"); return new Promise(() => {}) }, ${JSON.stringify(args)})
    `
    const child = spawn(process.execPath, ["-e", script], { cwd: path.resolve(__dirname, "../.."), stdio: ["ignore", "pipe", "inherit"] })
    return new Promise<typeof child>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("held") && resolve(child))
      child.once("exit", (code) => reject(new Error(`the holder exited (${code}) before it held the lock`)))
    })
  }

  it("frees the lock of a holder killed mid-job within the lease, where Medusa's default lease kept it a minute", async () => {
    const holder = await holderThatDies(leasedLock(30))
    holder.kill("SIGKILL")
    const killedAt = Date.now()
    await expect(locking.execute(key, async () => "settled", leasedLock(30))).resolves.toBe("settled")
    expect(Date.now() - killedAt).toBeLessThan((LOCK_LEASE_SECONDS + 2) * 1000)

    // Without the lease: the wait of 30 s runs out before the minute does.
    const old = await holderThatDies({ timeout: 30 })
    old.kill("SIGKILL")
    await expect(locking.execute(key, async () => "settled", { timeout: LOCK_LEASE_SECONDS + 2 })).rejects.toThrow()
  }, 60_000)

  it("keeps the lock of a live holder however long its job takes", async () => {
    let second = false
    const first = locking.execute(
      `${key}:live`,
      () => new Promise((resolve) => setTimeout(resolve, (LOCK_LEASE_SECONDS + 3) * 1000)),
      leasedLock(30)
    )
    await new Promise((resolve) => setTimeout(resolve, 200))
    const waiting = locking.execute(`${key}:live`, async () => (second = true), leasedLock(LOCK_LEASE_SECONDS + 1)).catch(() => "timed out")
    await expect(waiting).resolves.toBe("timed out")
    expect(second).toBe(false)
    await first
  }, 60_000)

  describe("the sweep's lock", () => {
    const sweepContainer = () =>
      ({
        resolve: (name: string) =>
          name === "logger" ? { warn: () => undefined, info: () => undefined, error: () => undefined } : locking,
      }) as never
    const ttl = () => client.ttl(`lease-test:${SWEEP_LOCK_KEY}`)

    it("is leased, renewed while a sweep runs longer than the lease's third, and released after it", async () => {
      let finish = () => {}
      jest.mocked(sweepCardServicePayments).mockImplementationOnce(
        () => new Promise((resolve) => (finish = () => resolve({ examined: 0, actions: [], serviceDown: false })))
      )
      const running = runReconcileSweep(sweepContainer())
      await new Promise((resolve) => setTimeout(resolve, 200))
      // A dead sweeper's lock lapses within the lease (it was taken for 5 minutes).
      expect(await ttl()).toBeGreaterThan(0)
      expect(await ttl()).toBeLessThanOrEqual(SWEEP_LEASE_SECONDS)
      await new Promise((resolve) => setTimeout(resolve, (SWEEP_LEASE_SECONDS / 3 + 2) * 1000))
      // Renewed: more left than a lease taken once would have now.
      expect(await ttl()).toBeGreaterThan(SWEEP_LEASE_SECONDS - (SWEEP_LEASE_SECONDS / 3 + 2))
      // One sweep at a time meanwhile.
      await expect(runReconcileSweep(sweepContainer())).resolves.toBeNull()
      finish()
      await expect(running).resolves.toMatchObject({ serviceDown: false })
      expect(await ttl()).toBe(-2)
    }, 60_000)
  })
})
