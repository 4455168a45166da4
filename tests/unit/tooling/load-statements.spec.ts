import { addStatements, statementLines, type StatementTally } from "../../../scripts/lib/load-statements"

// The load benchmark's statement counts (bench:load -- --statements): each
// side's rounds add pg_stat_statements' rows to its tally, and the report
// compares a card side with the system side per checkout.

const row = (query: string, calls: number, ms = calls) => ({ query, calls, ms })

describe("addStatements", () => {
  it("adds the rows of several rounds, one entry per statement whatever its line breaks", () => {
    const tally: StatementTally = new Map()
    addStatements(tally, [row("select 1\n  from cart", 2), row("BEGIN", 5)])
    addStatements(tally, [row("select 1 from cart", 3), row("BEGIN", 1)])
    expect([...tally.values()]).toEqual([
      { query: "select 1 from cart", calls: 5, ms: 5 },
      { query: "BEGIN", calls: 6, ms: 6 },
    ])
  })
})

describe("statementLines", () => {
  const tallyOf = (...rows: ReturnType<typeof row>[]) => {
    const tally: StatementTally = new Map()
    addStatements(tally, rows)
    return tally
  }

  it("gives statements and execution time per checkout, then what the card side runs more often, most first", () => {
    const card = tallyOf(row("BEGIN", 22, 2), row("select session", 30, 6), row("insert capture", 10, 4))
    const system = tallyOf(row("BEGIN", 18, 2), row("select session", 0, 0), row("select cart", 40, 8))
    const lines = statementLines("card", { card, system }, { card: 10, system: 20 })
    expect(lines[0]).toBe(
      "SQL statements per checkout (pg_stat_statements over each side's rounds): card 6.2, system 2.9; " +
        "execution time per checkout: card 1.2 ms, system 0.5 ms"
    )
    expect(lines.slice(2)).toEqual([
      "    3.00 / 0.00  +0.60 ms  select session",
      "    2.20 / 0.90  +0.10 ms  BEGIN",
      "    1.00 / 0.00  +0.40 ms  insert capture",
    ])
    // The system side's own statements (select cart) are not listed.
    expect(lines.join("\n")).not.toContain("select cart")
  })

  it("says nothing when a side completed no checkout", () => {
    expect(statementLines("card", { card: new Map(), system: new Map() }, { card: 0, system: 5 })).toEqual([])
  })
})
