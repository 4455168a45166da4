/**
 * How long a lock of the plugin's outlives a holder that died: the locking
 * module's `expire`, in seconds. Medusa's Redis provider renews the lease
 * every third of it while the job runs, so a live holder keeps its lock for
 * as long as it works; only a holder that died without releasing it (an
 * instance killed mid-settlement) leaves the keys locked, and then for this
 * long. Without it the lease is 60 s, and every callback copy, return and
 * sweep of that session waited out a killed instance's lease
 * (bench:crash-points, docs/benchmarks.md "Crash points"). A provider that
 * does not renew ignores it: Medusa 2.12's Redis provider holds a lock for
 * the wait's timeout, the PostgreSQL provider for its transaction.
 */
export const LOCK_LEASE_SECONDS = 10

/** The locking module's arguments for a wait of `timeout` seconds, with the plugin's lease. */
export function leasedLock(timeout: number): { timeout: number; expire: number } {
  return { timeout, expire: LOCK_LEASE_SECONDS }
}
