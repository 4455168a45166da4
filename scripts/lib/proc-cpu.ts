/**
 * CPU time from Linux's /proc, for the benchmarks: the whole machine's, and
 * one process group's (a Medusa instance and anything it started, spawned in
 * a group of its own by demo-processes.js). Null where there is no /proc.
 */
import fs from "node:fs"

/** USER_HZ: clock ticks per second in /proc's counters (100 on Linux). */
const TICK_MS = 10

/**
 * CPU time the machine has spent since boot, all cores, in ms (/proc/stat:
 * user, nice, system, irq, softirq and steal; not idle or iowait).
 */
export function machineCpuMs(): number | null {
  let line: string
  try {
    line = fs.readFileSync("/proc/stat", "utf8").split("\n")[0]
  } catch {
    return null
  }
  const fields = line.trim().split(/\s+/).slice(1).map(Number)
  const [user, nice, system, , , irq, softirq, steal] = fields
  const ticks = [user, nice, system, irq, softirq, steal ?? 0].reduce((sum, n) => sum + (Number.isFinite(n) ? n : 0), 0)
  return ticks * TICK_MS
}

/**
 * User and system CPU time of the live processes of process group `pgid`,
 * in ms (/proc/<pid>/stat fields 14 and 15; field 5 is the group). A process
 * that ended is no longer counted, so compare two readings of one run of a
 * group only.
 */
export function groupCpuMs(pgid: number): number | null {
  let pids: string[]
  try {
    pids = fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name))
  } catch {
    return null
  }
  let ticks = 0
  for (const pid of pids) {
    const fields = statFields(pid)
    if (!fields || Number(fields[2]) !== pgid) continue
    ticks += Number(fields[11]) + Number(fields[12])
  }
  return ticks * TICK_MS
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces): state is [0]. */
function statFields(pid: string): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  } catch {
    return null
  }
}
