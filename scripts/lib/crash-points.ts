/**
 * The crash points of the money operations (issue 42), found by running
 * each operation once with nothing in its way and noting what it did: every
 * request an instance made to the service, every transaction it wrote, every
 * answer it gave through the proxy (discover). Each becomes a point, to be
 * cut by killing the instance there, or by dropping its database connections
 * or its Redis connections (its locks, event bus and workflow engine) there
 * and letting it go on.
 */
import type { RecordedWrite, WriteTrap } from "./crash-traps"
import type { OperationName } from "./crash-operations"

export type Cut = "kill" | "db-drop" | "redis-drop"
export const CUTS: readonly Cut[] = ["kill", "db-drop", "redis-drop"]

export type PointKind = "service" | "db" | "answer"
export const POINT_KINDS: readonly PointKind[] = ["service", "db", "answer"]

export type Point = {
  id: string
  operation: OperationName
  kind: PointKind
  cut: Cut
  /** What the instance had done and was about to do, in words. */
  where: string
  /** service: the answer of the nth request to this endpoint, held after the service acted. */
  service?: { path: string; method: string; nth: number }
  /** db: the last write of a transaction, held before it (and its commit). */
  write?: WriteTrap & { tables: string[] }
  /** answer: the nth answer to a request of this shape, held before its client heard it. */
  answer?: { method: string; pattern: string; nth: number }
}

/** What a discovery run noted, in order. */
export type Discovery = {
  operation: OperationName
  serviceRequests: { method: string; path: string }[]
  writes: RecordedWrite[]
  answers: { method: string; url: string; status: number }[]
}

/** The endpoint of a service request, its ids left out; null for what is no money operation's (the browser's pages, the verification code). */
export function serviceEndpoint(path: string): string | null {
  if (path.startsWith("/payment/retrieve/")) return "/payment/retrieve"
  if (["/capture", "/refund", "/reverse", "/void"].includes(path)) return path
  return null
}

/** A proxied request's shape: ids and the query left out. */
export function requestPattern(url: string): string {
  return url
    .split("?")[0]
    .replace(/[a-z]+_[0-9A-Z]{26}/g, ":id")
}

/** Requests whose answers are points: the service's callbacks, the browser's return, the owner's admin calls (not the log-in). */
const ANSWERED = /^\/(card-service\/(callback|return)\/|admin\/)/

const ordinal = (n: number) => `#${n}`

/** The points of one operation, from its discovery run. */
export function pointsOf(discovery: Discovery, cuts: readonly Cut[] = CUTS, kinds: readonly PointKind[] = POINT_KINDS): Point[] {
  const { operation } = discovery
  const points: Omit<Point, "id" | "cut">[] = []

  if (kinds.includes("service")) {
    const seen = new Map<string, number>()
    for (const request of discovery.serviceRequests) {
      const path = serviceEndpoint(request.path)
      if (!path) continue
      const nth = (seen.get(path) ?? 0) + 1
      seen.set(path, nth)
      points.push({
        operation,
        kind: "service",
        where: `the service acted on ${request.method} ${path} ${ordinal(nth)} and answered; the instance has not heard the answer`,
        service: { path, method: request.method, nth },
      })
    }
  }

  if (kinds.includes("db")) {
    // One point per transaction: its last write, so everything the instance
    // did before the commit (service calls included) has happened.
    const lastOf = new Map<string, RecordedWrite>()
    const tablesOf = new Map<string, string[]>()
    for (const write of discovery.writes) {
      lastOf.set(write.xid, write)
      const tables = tablesOf.get(write.xid) ?? []
      if (!tables.includes(write.table)) tables.push(write.table)
      tablesOf.set(write.xid, tables)
    }
    const counted = new Map<string, number>()
    const nthOf = new Map<number, number>()
    for (const write of discovery.writes) {
      const key = `${write.table}|${write.op}`
      const n = (counted.get(key) ?? 0) + 1
      counted.set(key, n)
      nthOf.set(write.n, n)
    }
    let transaction = 0
    for (const [xid, last] of lastOf) {
      transaction++
      const tables = tablesOf.get(xid)!
      const what = discovery.writes.filter((w) => w.xid === xid).map(writeMeaning).filter(Boolean)
      points.push({
        operation,
        kind: "db",
        where:
          `transaction ${transaction} (${tables.join(", ")}${what.length ? `: ${[...new Set(what)].join(", ")}` : ""}) about to write ${last.op} ${last.table} ${ordinal(nthOf.get(last.n)!)} and commit`,
        write: { table: last.table, op: last.op, match: null, nth: nthOf.get(last.n)!, tables },
      })
    }
  }

  if (kinds.includes("answer")) {
    const seen = new Map<string, number>()
    for (const answer of discovery.answers) {
      const path = answer.url.split("?")[0]
      if (!ANSWERED.test(path)) continue
      const pattern = requestPattern(answer.url)
      const key = `${answer.method} ${pattern}`
      const nth = (seen.get(key) ?? 0) + 1
      seen.set(key, nth)
      points.push({
        operation,
        kind: "answer",
        where: `the instance answered ${key} ${ordinal(nth)} (${answer.status}), its client has not heard it`,
        answer: { method: answer.method, pattern, nth },
      })
    }
  }

  const out: Point[] = []
  for (const point of points) {
    for (const cut of cuts) {
      // An answer already written has no database or Redis work left to cut.
      if (point.kind === "answer" && cut !== "kill") continue
      out.push({ ...point, cut, id: `${operation} ${pointLabel(point)} ${cut}` })
    }
  }
  return out
}

/** What a write of a payment session or payment means, read from the row as written; "" for any other. */
export function writeMeaning(write: Pick<RecordedWrite, "table" | "op" | "row">): string {
  if (write.table === "payment_session" && write.op === "UPDATE") {
    if (write.row.includes('"hints"')) return "a callback's hint noted"
    if (write.row.includes('"attempts"') && !write.row.includes('"transaction_id": "')) return "the attempt's reference noted"
    if (write.row.includes('"status": "authorized"') || write.row.includes('"status": "captured"')) return "the session authorized"
    if (write.row.includes('"transaction_id": "')) return "the transaction attached"
  }
  if (write.table === "payment" && write.op === "UPDATE" && write.row.includes('"canceled_at": "')) return "the payment canceled"
  if (write.table === "payment" && write.op === "UPDATE") return "the provider's answer written"
  if (write.table === "order" && write.op === "INSERT") return "the order made"
  if (write.table === "capture" && write.op === "INSERT") return "Medusa's capture row"
  if (write.table === "refund" && write.op === "INSERT") return "Medusa's refund row"
  return ""
}

/** A short label of a point (without its cut). */
export function pointLabel(point: Omit<Point, "id" | "cut">): string {
  if (point.service) return `service:${point.service.path}${ordinal(point.service.nth)}`
  if (point.write) return `db:${point.write.op.toLowerCase()}:${point.write.table}${ordinal(point.write.nth)}`
  return `answer:${point.answer!.method} ${point.answer!.pattern}${ordinal(point.answer!.nth)}`
}

/**
 * `--sample N`: N of the points, the same N for the same seed in every lane
 * (each point ranked by a hash of the seed and its id), in their order of
 * discovery. All of them when N is null or not smaller.
 */
/** FNV-1a, 32 bits: a fixed draw from a text, no state. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5
  for (const char of text) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0
  return hash
}

export function samplePoints<T extends { id: string }>(points: T[], sample: number | null, seed: number): T[] {
  if (sample === null || sample >= points.length) return points
  const rank = (id: string) => fnv1a(`${seed}:${id}`)
  const chosen = new Set([...points].sort((a, b) => rank(a.id) - rank(b.id)).slice(0, sample).map((p) => p.id))
  return points.filter((p) => chosen.has(p.id))
}
