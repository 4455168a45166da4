import net from "node:net"
import { LOCK_NAMES, portsOfProcess } from "../../../scripts/lib/crash-traps"
import { checkoutEvidence, orderedOrSwept } from "../../../scripts/lib/crash-operations"
import { pointsOf, requestPattern, samplePoints, serviceEndpoint, writeMeaning, type Discovery } from "../../../scripts/lib/crash-points"
import type { RecordedWrite } from "../../../scripts/lib/crash-traps"

const write = (n: number, xid: string, table: string, op: string, row = "{}"): RecordedWrite => ({
  n,
  xid,
  table,
  op,
  row,
  rowId: null,
  port: null,
  at: n,
})

/** A callback's settlement as a discovery run notes it: service requests, transactions, proxied answers. */
const discovery: Discovery = {
  operation: "authorize-by-callback",
  serviceRequests: [
    { method: "GET", path: "/authorize" },
    { method: "POST", path: "/order/start" },
    { method: "GET", path: "/payment/retrieve/sandbox-merchant/111" },
    { method: "GET", path: "/payment/retrieve/sandbox-merchant/111" },
    { method: "POST", path: "/capture" },
  ],
  writes: [
    write(1, "10", "payment_session", "UPDATE", '{"metadata": {"card_service": {"hints": []}}}'),
    write(2, "11", "order", "INSERT"),
    write(3, "11", "order_item", "INSERT"),
    write(4, "12", "payment_session", "UPDATE", '{"status": "authorized", "data": {"transaction_id": "111"}}'),
  ],
  answers: [
    { method: "POST", url: "/card-service/callback/payses_01M8G0N1GPBB2FGYCAWJDZGA25/", status: 200 },
    { method: "GET", url: "/store/card-service/sessions/payses_01M8G0N1GPBB2FGYCAWJDZGA25/form", status: 200 },
    { method: "POST", url: "/card-service/callback/payses_01M8G0N1GPBB2FGYCAWJDZGA25/", status: 200 },
  ],
}

describe("crash points from a discovery run (bench:crash-points)", () => {
  it("makes a point of each service request of a money operation, counted per endpoint", () => {
    const points = pointsOf(discovery, ["kill"], ["service"])
    expect(points.map((p) => p.id)).toEqual([
      "authorize-by-callback service:/payment/retrieve#1 kill",
      "authorize-by-callback service:/payment/retrieve#2 kill",
      "authorize-by-callback service:/capture#1 kill",
    ])
    expect(points[1].service).toEqual({ path: "/payment/retrieve", method: "GET", nth: 2 })
  })

  it("makes a point of each transaction's last write, counted per table and operation, saying what it writes", () => {
    const points = pointsOf(discovery, ["kill"], ["db"])
    expect(points.map((p) => p.write)).toEqual([
      { table: "payment_session", op: "UPDATE", match: null, nth: 1, tables: ["payment_session"] },
      { table: "order_item", op: "INSERT", match: null, nth: 1, tables: ["order", "order_item"] },
      { table: "payment_session", op: "UPDATE", match: null, nth: 2, tables: ["payment_session"] },
    ])
    expect(points[0].where).toContain("a callback's hint noted")
    expect(points[1].where).toContain("the order made")
    expect(points[2].where).toContain("the session authorized")
  })

  it("makes a point of each answer to the service's callback, the browser's return or the owner, and only kills there", () => {
    const points = pointsOf(discovery, ["kill", "db-drop", "redis-drop"], ["answer"])
    expect(points.map((p) => p.id)).toEqual([
      "authorize-by-callback answer:POST /card-service/callback/:id/#1 kill",
      "authorize-by-callback answer:POST /card-service/callback/:id/#2 kill",
    ])
  })

  it("cuts each point every way unless told otherwise: killed, its database connections dropped, its Redis connections dropped", () => {
    expect(pointsOf(discovery).map((p) => p.cut)).toEqual(expect.arrayContaining(["kill", "db-drop", "redis-drop"]))
    expect(pointsOf(discovery)).toHaveLength(3 * 3 + 3 * 3 + 2)
  })

  it("names endpoints and request shapes without their ids", () => {
    expect(serviceEndpoint("/payment/retrieve/m/123")).toBe("/payment/retrieve")
    expect(serviceEndpoint("/order/start")).toBeNull()
    expect(requestPattern("/admin/payments/pay_01M8G0N1GPBB2FGYCAWJDZGA25/capture?x=1")).toBe("/admin/payments/:id/capture")
    expect(writeMeaning(write(1, "1", "capture", "INSERT"))).toBe("Medusa's capture row")
    expect(writeMeaning(write(1, "1", "cart", "UPDATE"))).toBe("")
  })
})

describe("samplePoints (--sample)", () => {
  const points = Array.from({ length: 40 }, (_, i) => ({ id: `capture db:update:payment#${i}` }))

  it("draws the same N points for the same seed, in their order of discovery", () => {
    const a = samplePoints(points, 7, 11)
    expect(a).toHaveLength(7)
    expect(samplePoints([...points].reverse(), 7, 11).map((p) => p.id).sort()).toEqual(a.map((p) => p.id).sort())
    expect(a.map((p) => points.indexOf(p))).toEqual([...a.map((p) => points.indexOf(p))].sort((x, y) => x - y))
  })

  it("draws other points for another seed, and every point over enough seeds", () => {
    expect(samplePoints(points, 7, 12)).not.toEqual(samplePoints(points, 7, 11))
    const seen = new Set(Array.from({ length: 60 }, (_, seed) => samplePoints(points, 7, seed)).flat().map((p) => p.id))
    expect(seen.size).toBe(points.length)
  })

  it("takes all of them with no sample or one as large", () => {
    expect(samplePoints(points, null, 1)).toBe(points)
    expect(samplePoints(points, 40, 1)).toBe(points)
  })
})

describe("portsOfProcess (which instance holds a connection)", () => {
  it("finds the local port of a connection this process holds, and not the port of one another process holds", async () => {
    const server = net.createServer((socket) => socket.on("error", () => undefined))
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const { port } = server.address() as net.AddressInfo
    const client = net.connect(port, "127.0.0.1")
    await new Promise((resolve) => client.once("connect", resolve))
    try {
      const mine = portsOfProcess(process.pid)
      expect(mine.has(client.localPort!)).toBe(true)
      expect(mine.has(port)).toBe(true)
      // The parent (jest's, or the shell) holds no socket of ours.
      expect(portsOfProcess(process.ppid).has(client.localPort!)).toBe(false)
      expect(portsOfProcess(2 ** 22 + 1).size).toBe(0)
    } finally {
      client.destroy()
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it("with `towards`, takes only the connections to that server's port: a local port another server's connection shares is not the database's", async () => {
    const listen = async () => {
      const server = net.createServer((socket) => socket.on("error", () => undefined))
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      return { server, port: (server.address() as net.AddressInfo).port }
    }
    const db = await listen()
    const redis = await listen()
    const toDb = net.connect(db.port, "127.0.0.1")
    await new Promise((resolve) => toDb.once("connect", resolve))
    // (Linux may give this one the same local port as the first; Node cannot ask for that.)
    const toRedis = net.connect(redis.port, "127.0.0.1")
    await new Promise((resolve) => toRedis.once("connect", resolve))
    try {
      expect(portsOfProcess(process.pid, redis.port)).toEqual(new Set([toRedis.localPort]))
      expect(portsOfProcess(process.pid, db.port)).toEqual(new Set([toDb.localPort]))
      expect(portsOfProcess(process.pid, 1)).toEqual(new Set())
    } finally {
      toDb.destroy()
      toRedis.destroy()
      await Promise.all([db, redis].map(({ server }) => new Promise((resolve) => server.close(resolve))))
    }
  })
})

describe("LOCK_NAMES (the locks a stopped instance held, as the table names them)", () => {
  const nameOf = (key: string) => LOCK_NAMES.find(([shape]) => shape.test(key))?.[1] ?? null

  it("names Medusa's stock lock and cart lock by the id they lock, and the plugin's by their prefix", () => {
    expect(
      [
        "crash:medusa_lock:iitem_01M96FR12G00CNAZ71H2PB9NF1",
        "crash:medusa_lock:cart_01M951T714G8Q4MSCN84C2H669",
        "crash:medusa_lock:card-service:settle:payses_01M96FR12G00CNAZ71H2PB9NF1",
        "crash:medusa_lock:card-service:delivery:payses_1:T1",
        "crash:cache:product:prod_01M96FR12G00CNAZ71H2PB9NF1",
      ].map(nameOf)
    ).toEqual(["stock lock", "cart lock", "settle lock", "delivery claim", null])
  })
})

describe("checkoutEvidence (why a checkout before a trap made no order)", () => {
  const subject = { cartId: "cart_1", sessionId: "payses_1", transactionId: "T1", answers: [] }
  const sandbox = {
    transactions: () => [
      { transactionId: "T1", originalTransactionId: undefined, step: "AUTHORIZATION", reasonCode: "480" },
      { transactionId: "T2", originalTransactionId: "T9", step: "CAPTURE", reasonCode: "100" },
    ],
    callbacks: () => [
      { transactionId: "T1", copy: 1, attempt: 1, at: 1_000, ok: false, dropped: false, error: "timeout", ms: 5_000 },
      { transactionId: "T2", copy: 1, attempt: 1, at: 1_100, ok: true, dropped: false, status: 200, ms: 40 },
      { transactionId: "T1", copy: 1, attempt: 2, at: 7_000, ok: true, dropped: false, status: 200, ms: 12 },
    ],
  }
  // Made at each call, not when the file loads: the text rounds the uptime to the second, and a
  // loaded machine can take more than half a second to reach a test.
  const instances = () => [
    { name: "a", up: true, startedAt: Date.now() - 30_000 },
    { name: "b", up: false },
  ]

  it("names where the return sent the browser, the sessions, every callback attempt, the service's record and the instances", async () => {
    let params: unknown[] = []
    const cluster = {
      sandbox,
      instances: instances(),
      query: async (_sql: string, values: unknown[]) => {
        params = values
        return [{ completed_at: null, collection: "not_paid", sessions: "payses_1 pending state pending transaction the approval notes -", payments: "0" }]
      },
    }
    const locks = async () => [
      { name: "stock lock", ttlMs: 41_200 },
      { name: "sweep lock", ttlMs: -1 },
    ]
    const text = await checkoutEvidence(
      cluster as never,
      subject,
      { status: 303, location: "http://shop.test/checkout?cart_id=cart_1&status=pending&payment=under_review" },
      locks
    )
    expect(params).toEqual(["cart_1", "T1"])
    expect(text).toBe(
      "the return route answered 303 to status=pending&payment=under_review; " +
        "cart completed no, collection not_paid, sessions [payses_1 pending state pending transaction the approval notes -], payments 0; " +
        "callbacks copy 1 attempt 1 at +0 ms: timeout in 5000 ms, copy 1 attempt 2 at +6000 ms: 200 in 12 ms; " +
        "the service holds AUTHORIZATION 480 for T1; locks held stock lock (42 s left), sweep lock (no expiry); instances a up 30 s, b down"
    )
  })

  it("still says what it can when the store's database cannot be read", async () => {
    const cluster = {
      sandbox,
      instances: instances(),
      query: async () => {
        throw new Error("Connection terminated")
      },
    }
    const text = await checkoutEvidence(cluster as never, subject, { status: 0 }, async () => {
      throw new Error("ECONNREFUSED")
    })
    expect(text).toContain("the return route answered nothing; the store's database could not be read: Connection terminated")
    expect(text).toContain("the service holds AUTHORIZATION 480 for T1; the locks could not be read: ECONNREFUSED")
  })
})

describe("orderedOrSwept (a checkout before the trap, given the sweep a store would run)", () => {
  const timing = { checkoutMs: 60, sweptMs: 200, everyMs: 50, pollMs: 5 }

  it("does not sweep or stall a checkout that becomes an order by itself", async () => {
    let calls = 0
    const sweep = jest.fn(async () => undefined)
    const onStall = jest.fn(async () => undefined)
    const outcome = await orderedOrSwept({ ordered: async () => ++calls >= 3, sweep, onStall, ...timing })
    expect(outcome).toEqual({ kind: "ordered" })
    expect(sweep).not.toHaveBeenCalled()
    expect(onStall).not.toHaveBeenCalled()
  })

  it("reads the stall before the first sweep, and says the sweep finished it", async () => {
    const seen: string[] = []
    let swept = 0
    const outcome = await orderedOrSwept({
      ordered: async () => swept >= 2,
      onStall: async () => void seen.push(`stall after ${swept} sweeps`),
      sweep: async () => {
        swept++
        seen.push("sweep")
      },
      ...timing,
    })
    expect(seen).toEqual(["stall after 0 sweeps", "sweep", "sweep"])
    expect(outcome).toEqual({ kind: "swept", afterMs: expect.any(Number), sweeps: 2 })
  })

  it("gives up when the sweep cannot finish it either", async () => {
    const sweep = jest.fn(async () => undefined)
    const outcome = await orderedOrSwept({ ordered: async () => false, onStall: async () => undefined, sweep, ...timing })
    expect(outcome).toEqual({ kind: "not", sweeps: sweep.mock.calls.length })
    expect(sweep.mock.calls.length).toBeGreaterThanOrEqual(3)
  })
})
