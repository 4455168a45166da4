/**
 * The crash-point harness's traps (issue 42): ways to stop a Medusa instance
 * at an exact point of a money operation without a hook in the plugin, so
 * that the harness can kill it there or cut its database connection.
 *
 * - The database: a row trigger on every table of the store (installDbTraps).
 *   Recording, it logs each write with its transaction: the writes an
 *   operation makes, found by running it, are its database points. Armed for
 *   one write (table, operation, a text its row holds, the n-th such write),
 *   it makes that write wait on an advisory lock the harness holds, so the
 *   instance stands still with its transaction open, just before that write
 *   and its commit.
 * - The service: the sandbox holds an answer after acting on the request
 *   (sandbox.holdAnswer); the proxy holds an instance's answer before its
 *   client hears it (cluster.proxyHooks).
 * - Which instance a connection belongs to: /proc, by the connection's local
 *   port among its own sockets (portsOfProcess).
 */
import fs from "node:fs"
import { Client } from "pg"
import type { Cluster } from "./load-cluster"

/**
 * The plugin's and Medusa's locks, by the key's shape, as the table names
 * them. The stock lock is Medusa's over an inventory item while it reserves
 * or gives back stock (locking.execute, a 60 s lease renewed while it runs):
 * an instance killed holding it leaves every checkout of that product unable
 * to complete until the lease lapses.
 */
export const LOCK_NAMES: [RegExp, string][] = [
  [/card-service:settle:/, "settle lock"],
  [/card-service:delivery:/, "delivery claim"],
  [/card-service:notes:/, "notes lock"],
  [/card-service:payment:/, "payment lock"],
  [/card-service:reconcile/, "sweep lock"],
  [/:cart_[0-9A-Z]{26}$/, "cart lock"],
  [/:iitem_[0-9A-Z]{26}$/, "stock lock"],
]

/**
 * The locks in Redis now, named, with how long each has left (ms; -1: no
 * expiry). Medusa's Redis locking keeps them under the store's namespace
 * (REDIS_NAMESPACE), beside the cache's keys, which are no locks and are
 * left out.
 */
export async function locksInRedis(cluster: Pick<Cluster, "redis">): Promise<{ name: string; key: string; ttlMs: number }[]> {
  const { Redis } = await import("ioredis")
  const redis = new Redis(cluster.redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 })
  try {
    await redis.connect()
    const keys: string[] = []
    let cursor = "0"
    do {
      const [next, batch] = await redis.scan(cursor, "MATCH", `${cluster.redis.namespace}*`, "COUNT", 1000)
      cursor = next
      keys.push(...batch)
    } while (cursor !== "0")
    const locks: { name: string; key: string; ttlMs: number }[] = []
    for (const key of keys) {
      const name = LOCK_NAMES.find(([shape]) => shape.test(key))?.[1]
      if (name) locks.push({ name, key, ttlMs: await redis.pttl(key) })
    }
    return locks
  } finally {
    redis.disconnect()
  }
}

/** The advisory lock a trapped write waits on. */
const TRAP_LOCK = 4242_0042

/** Tables no point is in: the harness's own, migrations, and the owner's figures (no money). */
const UNTRAPPED = /^(crash_trap.*|mikro_orm_migrations|script_migrations|link_module_migrations|card_service_event)$/

/** A write the recording saw, in order. */
export type RecordedWrite = {
  n: number
  xid: string
  table: string
  op: string
  rowId: string | null
  port: number | null
  at: number
  /** The row as written (its first 4,000 characters of JSON). */
  row: string
}

/** One write to stop at: the `nth` write of `op` on `table` whose row holds `match` (null: any row). */
export type WriteTrap = { table: string; op: string; match: string | null; nth: number }

export class DbTraps {
  private constructor(
    private readonly db: Client,
    private readonly holder: Client
  ) {}

  /** Installs the trigger on every table of the store; the traps start off. */
  static async install(cluster: Pick<Cluster, "databaseUrl">): Promise<DbTraps> {
    const db = new Client({ connectionString: cluster.databaseUrl })
    const holder = new Client({ connectionString: cluster.databaseUrl })
    for (const client of [db, holder]) {
      client.on("error", () => undefined)
      await client.connect()
    }
    await db.query(`
      CREATE TABLE IF NOT EXISTS crash_trap (id int PRIMARY KEY, mode text NOT NULL DEFAULT 'off',
        tbl text, op text, match text, target bigint);
      INSERT INTO crash_trap (id) VALUES (1) ON CONFLICT DO NOTHING;
      CREATE SEQUENCE IF NOT EXISTS crash_trap_hits;
      CREATE UNLOGGED TABLE IF NOT EXISTS crash_trap_log (n bigserial PRIMARY KEY, at timestamptz NOT NULL DEFAULT clock_timestamp(),
        xid text NOT NULL, tbl text NOT NULL, op text NOT NULL, row_text text, port int);
      CREATE OR REPLACE FUNCTION crash_trap_fire() RETURNS trigger LANGUAGE plpgsql AS $fn$
      DECLARE
        c crash_trap%ROWTYPE;
        r text;
      BEGIN
        SELECT * INTO c FROM crash_trap WHERE id = 1;
        IF c.mode = 'off' THEN
          RETURN COALESCE(NEW, OLD);
        END IF;
        IF TG_OP = 'DELETE' THEN r := to_jsonb(OLD)::text; ELSE r := to_jsonb(NEW)::text; END IF;
        IF c.mode = 'record' THEN
          INSERT INTO crash_trap_log (xid, tbl, op, row_text, port)
            VALUES (txid_current()::text, TG_TABLE_NAME, TG_OP, left(r, 4000), inet_client_port());
        ELSIF c.mode = 'armed' AND TG_TABLE_NAME = c.tbl AND TG_OP = c.op
              AND (c.match IS NULL OR strpos(r, c.match) > 0) THEN
          IF nextval('crash_trap_hits') = c.target THEN
            PERFORM pg_advisory_xact_lock(${TRAP_LOCK});
          END IF;
        END IF;
        RETURN COALESCE(NEW, OLD);
      END
      $fn$;
    `)
    const tables = await db.query(
      `SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`
    )
    for (const { tablename } of tables.rows as { tablename: string }[]) {
      if (UNTRAPPED.test(tablename)) continue
      await db.query(`DROP TRIGGER IF EXISTS crash_trap ON "${tablename}"`)
      await db.query(
        `CREATE TRIGGER crash_trap BEFORE INSERT OR UPDATE OR DELETE ON "${tablename}" FOR EACH ROW EXECUTE FUNCTION crash_trap_fire()`
      )
    }
    return new DbTraps(db, holder)
  }

  /** Starts logging every write; `recorded` returns them. */
  async record(): Promise<number> {
    const [{ last }] = (await this.db.query(`SELECT coalesce(max(n), 0)::int AS last FROM crash_trap_log`)).rows
    await this.db.query(`UPDATE crash_trap SET mode = 'record' WHERE id = 1`)
    return last
  }

  /** The writes logged after `since` (record's answer), oldest first; the log stops. */
  async recorded(since: number): Promise<{ writes: RecordedWrite[] }> {
    await this.off()
    const { rows } = await this.db.query(
      `SELECT n::int, xid, tbl, op, row_text, port, extract(epoch from at) * 1000 AS at FROM crash_trap_log WHERE n > $1 ORDER BY n`,
      [since]
    )
    const writes = rows.map((r: any) => {
      let rowId: string | null = null
      try {
        rowId = JSON.parse(r.row_text ?? "null")?.id ?? null
      } catch {
        rowId = null
      }
      return { n: r.n, xid: r.xid, table: r.tbl, op: r.op, rowId, port: r.port, at: Number(r.at), row: r.row_text ?? "" }
    })
    return { writes }
  }

  /** Arms one trap: the write it names waits, with its transaction open, until `release`. */
  async arm(trap: WriteTrap): Promise<void> {
    await this.holder.query(`SELECT pg_advisory_lock(${TRAP_LOCK})`)
    await this.db.query(`SELECT setval('crash_trap_hits', 1, false)`)
    await this.db.query(`UPDATE crash_trap SET mode = 'armed', tbl = $1, op = $2, match = $3, target = $4 WHERE id = 1`, [
      trap.table,
      trap.op,
      trap.match,
      trap.nth,
    ])
  }

  /** The backend waiting in the armed trap, once a write has sprung it; null while none has. */
  async sprung(): Promise<{ pid: number; clientPort: number } | null> {
    const { rows } = await this.db.query(
      `SELECT l.pid, a.client_port FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND NOT l.granted AND l.objid = $1 LIMIT 1`,
      [TRAP_LOCK % 2 ** 32]
    )
    return rows.length ? { pid: rows[0].pid, clientPort: rows[0].client_port } : null
  }

  /** Disarms and lets a waiting write go on (into a dead connection, after a kill). */
  async release(): Promise<void> {
    await this.off()
    await this.holder.query(`SELECT pg_advisory_unlock_all()`)
  }

  /** Cuts one backend's connection: the database side of "the connection dropped". */
  async terminate(pid: number): Promise<void> {
    await this.db.query(`SELECT pg_terminate_backend($1)`, [pid])
  }

  /**
   * Cuts every connection of the instance whose process is `processId`
   * (found by their client ports): its pool sees them fail at once.
   */
  async terminateInstance(processIds: number[]): Promise<number> {
    const { rows } = await this.db.query(
      `SELECT pid, client_port FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND client_port IS NOT NULL`
    )
    const ports = new Set(processIds.flatMap((pid) => [...portsOfProcess(pid, this.db.port)]))
    let cut = 0
    for (const row of rows as { pid: number; client_port: number }[]) {
      if (ports.has(row.client_port)) {
        await this.terminate(row.pid)
        cut++
      }
    }
    return cut
  }

  private async off(): Promise<void> {
    await this.db.query(`UPDATE crash_trap SET mode = 'off' WHERE id = 1`)
  }

  async close(): Promise<void> {
    await this.release().catch(() => undefined)
    await Promise.all([this.db.end(), this.holder.end()]).catch(() => undefined)
  }
}

/**
 * The local ports of the TCP sockets process `pid` holds: its socket inodes
 * from /proc/<pid>/fd, their ports from /proc/net/tcp{,6}. One process's
 * descriptors, not every process's: an instance is found in milliseconds,
 * so a held answer is not kept waiting while the harness looks.
 *
 * `towards`: only its sockets connected to that remote port (the database's,
 * Redis's). A local port names a connection only with its other end: Linux
 * gives two connections to different servers the same local port, so an
 * instance's socket to Redis could share its port with the harness's own to
 * the database, and cutting "the instance's database connections" by port
 * alone cut the harness's (seen once in a pass: a lane's every later run
 * failed with "Client has encountered a connection error").
 */
export function portsOfProcess(pid: number, towards?: number): Set<number> {
  const inodes = new Set<string>()
  let fds: string[] = []
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`)
  } catch {
    return new Set()
  }
  for (const fd of fds) {
    try {
      const link = fs.readlinkSync(`/proc/${pid}/fd/${fd}`)
      const match = /^socket:\[(\d+)\]$/.exec(link)
      if (match) inodes.add(match[1])
    } catch {
      // Closed meanwhile.
    }
  }
  const ports = new Set<number>()
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = ""
    try {
      text = fs.readFileSync(file, "utf8")
    } catch {
      continue
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/)
      if (fields.length < 10 || !inodes.has(fields[9])) continue
      if (towards !== undefined && parseInt(fields[2].split(":")[1], 16) !== towards) continue
      ports.add(parseInt(fields[1].split(":")[1], 16))
    }
  }
  return ports
}

/** The index of the instance whose process holds the socket of local port `port`, or null. */
export function instanceOfPort(cluster: Pick<Cluster, "instances">, port: number | undefined): number | null {
  if (!port) return null
  // The instances' own descriptors only (portsOfProcess), not every process's.
  const index = cluster.instances.findIndex((i) => !!i.child?.pid && portsOfProcess(i.child.pid).has(port))
  return index >= 0 ? index : null
}

/**
 * Cuts every Redis connection of the instance whose process is `processId`
 * (Medusa's locks, its event bus, its workflow engine, the cache): the Redis
 * side of "the connection dropped". Each client is found in CLIENT LIST by
 * its local port and killed by its id; the instance's clients reconnect by
 * themselves. Returns how many were cut.
 */
export async function dropRedisConnections(redisUrl: string, processId: number): Promise<number> {
  const { Redis } = await import("ioredis")
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 })
  try {
    await redis.connect()
    const list = (await redis.call("CLIENT", "LIST")) as string
    const ports = portsOfProcess(processId, Number(new URL(redisUrl).port || 6379))
    let cut = 0
    for (const line of list.split("\n").filter(Boolean)) {
      const fields = Object.fromEntries(line.split(" ").map((pair) => pair.split("=", 2) as [string, string]))
      const port = Number(fields.addr?.split(":").pop())
      if (!port || !ports.has(port)) continue
      await redis.call("CLIENT", "KILL", "ID", fields.id)
      cut++
    }
    return cut
  } finally {
    redis.disconnect()
  }
}
