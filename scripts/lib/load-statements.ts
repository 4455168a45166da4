/**
 * What each side of the load benchmark asks of PostgreSQL: pg_stat_statements
 * is reset before each round and read after it, so a side's tally holds the
 * statements (all processes: both instances, their workflows and jobs) run
 * while its shoppers paid. The CPU profile (--cpu-profile) says the store's
 * time goes to the ORM and the database, not to the plugin's code; this says
 * which statements make the difference between the two providers.
 */
import type { Client } from "pg"

/** The server settings that load pg_stat_statements (the embedded PostgreSQL's own). */
export const STATEMENT_SETTINGS = [
  "shared_preload_libraries=pg_stat_statements",
  "pg_stat_statements.max=10000",
  "pg_stat_statements.track=top",
]

export type StatementRow = { query: string; calls: number; ms: number }
/** Statements by their normalised text. */
export type StatementTally = Map<string, StatementRow>

export type StatementCounter = {
  reset: () => Promise<void>
  read: () => Promise<StatementRow[]>
}

/**
 * The benchmark's own reads (its shoppers poll for their orders; the audit
 * runs between rounds) are not the store's: they are left out by their text,
 * which is this file's and load-shoppers.ts's, never Medusa's.
 */
const OWN = [/pg_stat_statements/i, /^SELECT order_id FROM order_cart WHERE cart_id = \$1 AND deleted_at IS NULL$/]

export async function statementCounter(client: Client): Promise<StatementCounter> {
  await client.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
  return {
    reset: async () => {
      await client.query("SELECT pg_stat_statements_reset()")
    },
    read: async () => {
      const { rows } = await client.query(
        "SELECT query, calls::float8 AS calls, total_exec_time AS ms FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
      )
      return (rows as StatementRow[]).filter((row) => !OWN.some((own) => own.test(row.query.trim())))
    },
  }
}

export function addStatements(tally: StatementTally, rows: StatementRow[]): void {
  for (const row of rows) {
    const key = normalise(row.query)
    const seen = tally.get(key)
    if (seen) {
      seen.calls += row.calls
      seen.ms += row.ms
    } else {
      tally.set(key, { query: key, calls: row.calls, ms: row.ms })
    }
  }
}

/** One line of text; the ORM's aliases and placeholders already make equal statements equal. */
function normalise(query: string): string {
  return query.replace(/\s+/g, " ").trim()
}

function totals(tally: StatementTally): { calls: number; ms: number } {
  let calls = 0
  let ms = 0
  for (const row of tally.values()) {
    calls += row.calls
    ms += row.ms
  }
  return { calls, ms }
}

/**
 * The report: statements and database time per checkout of a card side
 * (`name`) and the system side, then the statements the card side runs more
 * often per checkout than the system side, most first.
 */
export function statementLines(
  name: string,
  tallies: { card: StatementTally; system: StatementTally },
  checkouts: { card: number; system: number },
  top = 25
): string[] {
  if (checkouts.card === 0 || checkouts.system === 0) return []
  const card = totals(tallies.card)
  const system = totals(tallies.system)
  const lines = [
    `SQL statements per checkout (pg_stat_statements over each side's rounds): ${name} ${(card.calls / checkouts.card).toFixed(1)}, ` +
      `system ${(system.calls / checkouts.system).toFixed(1)}; execution time per checkout: ${name} ${(card.ms / checkouts.card).toFixed(1)} ms, ` +
      `system ${(system.ms / checkouts.system).toFixed(1)} ms`,
  ]
  const keys = new Set([...tallies.card.keys(), ...tallies.system.keys()])
  const differences = [...keys]
    .map((key) => {
      const c = tallies.card.get(key)
      const s = tallies.system.get(key)
      return {
        query: key,
        card: (c?.calls ?? 0) / checkouts.card,
        system: (s?.calls ?? 0) / checkouts.system,
        ms: (c?.ms ?? 0) / checkouts.card - (s?.ms ?? 0) / checkouts.system,
      }
    })
    .filter((d) => d.card - d.system >= 0.05)
    .sort((a, b) => b.card - b.system - (a.card - a.system))
  if (differences.length) lines.push(`  more often on the ${name} side (per checkout: ${name} / system, extra execution ms):`)
  for (const d of differences.slice(0, top)) {
    const text = d.query.length > 150 ? `${d.query.slice(0, 147)}...` : d.query
    lines.push(`    ${d.card.toFixed(2)} / ${d.system.toFixed(2)}  +${d.ms.toFixed(2)} ms  ${text}`)
  }
  if (differences.length > top) lines.push(`    (${differences.length - top} more statements)`)
  return lines
}
