import { MockAgent } from "undici"
import { CardServiceClient, type ServiceCallReport } from "../../../src/lib"
import { authorizationRecord } from "../../helpers/transaction-records"

/**
 * The client's `observer` option (src/lib/call-report.ts): one report per
 * call, after it ends, with the operation, the service's last HTTP status,
 * its verdict, the HTTP exchanges made and the duration; never a secret, a
 * verification code or card data. The provider builds spans and metrics
 * from these reports (src/observability).
 */

const ORIGIN = "https://cards.test"
const SECRET = "s3cr3t-client-password"
const CODE_1 = "verif-code-aaaa-1111"
const CODE_2 = "verif-code-bbbb-2222"

function setup() {
  const agent = new MockAgent()
  agent.disableNetConnect()
  const pool = agent.get(ORIGIN)
  const reports: ServiceCallReport[] = []
  const client = new CardServiceClient({
    baseUrl: ORIGIN,
    clientCode: "client-code-1",
    clientSecret: SECRET,
    verifyId: "verify-1",
    merchantId: "mid-42",
    dispatcher: agent,
    retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 2 },
    observer: (report) => reports.push(report),
  })
  return { pool, client, reports }
}

const followOn = {
  merchantReferenceCode: "order_01",
  currency: "978",
  amount: 10.5,
  email: "shopper@example.com",
  originalTransactionId: "auth-1",
}

describe("the client's observer", () => {
  it("reports a verdict call with its status, decision, reason code and one attempt", async () => {
    const { pool, client, reports } = setup()
    pool.intercept({ path: "/authorize", method: "GET" }).reply(200, { Authorization: CODE_1 })
    pool.intercept({ path: "/capture", method: "POST" }).reply(200, {
      decision: "ACCEPT",
      reasonCode: "100",
      transactionId: "cap-1",
      originalTransactionId: "auth-1",
    })

    await client.capture(followOn)

    expect(reports.map((r) => r.operation)).toEqual(["authorize", "capture"])
    expect(reports[1]).toMatchObject({
      operation: "capture",
      httpStatus: 200,
      decision: "ACCEPT",
      reasonCode: "100",
      attempts: 1,
    })
    expect(reports[1].errorCategory).toBeUndefined()
    // A capture reads no payment's record, and the code's document carries no verdict.
    expect(reports[1]).not.toHaveProperty("record")
    expect(reports[0]).not.toHaveProperty("decision")
    expect(reports[0]).not.toHaveProperty("reasonCode")
    expect(reports[1].durationMs).toBeGreaterThanOrEqual(0)
    expect(reports[1].startedAt).toBeGreaterThan(Date.now() - 60_000)
    expect(JSON.stringify(reports)).not.toMatch(new RegExp(`${SECRET}|${CODE_1}`))
  })

  it("reports a rejection with its reason code and category, and still throws", async () => {
    const { pool, client, reports } = setup()
    pool.intercept({ path: "/authorize", method: "GET" }).reply(200, { Authorization: CODE_1 })
    pool.intercept({ path: "/capture", method: "POST" }).reply(200, {
      decision: "REJECT",
      reasonCode: "242",
      transactionId: "cap-1",
      originalTransactionId: "auth-1",
    })

    await expect(client.capture(followOn)).rejects.toMatchObject({ reasonCode: "242" })

    expect(reports[1]).toMatchObject({
      operation: "capture",
      httpStatus: 200,
      decision: "REJECT",
      reasonCode: "242",
      errorCategory: "not_allowed_in_state",
    })
  })

  it("counts retries of a safe request and the replay after a 401 as attempts of one call", async () => {
    const { pool, client, reports } = setup()
    const codes = [CODE_1, CODE_2]
    pool
      .intercept({ path: "/authorize", method: "GET" })
      .reply(200, () => ({ Authorization: codes.shift() }))
      .times(2)
    const path = "/payment/retrieve/mid-42/t1"
    pool.intercept({ path, method: "GET" }).reply(401, {})
    pool.intercept({ path, method: "GET" }).reply(503, {})
    pool.intercept({ path, method: "GET" }).reply(200, authorizationRecord({ reasonCode: "204", status: "declined" }))

    await client.retrieve("t1")

    const retrieve = reports.find((r) => r.operation === "retrieve")!
    expect(retrieve).toMatchObject({
      httpStatus: 200,
      reasonCode: "204",
      attempts: 3,
      record: { step: "AUTHORIZATION", status: "declined", transactionId: "t1" },
    })
    // A record is no verdict: no decision of its own.
    expect(retrieve).not.toHaveProperty("decision")
    expect(reports.filter((r) => r.operation === "authorize")).toHaveLength(2)
    expect(JSON.stringify(reports)).not.toMatch(new RegExp(`${SECRET}|${CODE_1}|${CODE_2}|1111`))
  })

  it("reports a retrieve answered 503 with a REJECT body with no decision or reason code: it read no record and decided nothing (issue 41)", async () => {
    const { pool, client, reports } = setup()
    pool.intercept({ path: "/authorize", method: "GET" }).reply(200, { Authorization: CODE_1 })
    pool
      .intercept({ path: "/payment/retrieve/mid-42/t2", method: "GET" })
      .reply(503, { decision: "REJECT", reasonCode: "150", transactionId: "t2" })
      .times(3)

    await expect(client.retrieve("t2")).rejects.toMatchObject({ category: "service_error" })

    const retrieve = reports.find((r) => r.operation === "retrieve")!
    expect(retrieve).toMatchObject({ httpStatus: 503, attempts: 3, errorCategory: "service_error" })
    expect(retrieve).not.toHaveProperty("decision")
    expect(retrieve).not.toHaveProperty("reasonCode")
    expect(retrieve).not.toHaveProperty("record")
  })

  it("reports a transport failure without a status, and an observer that throws changes nothing", async () => {
    const agent = new MockAgent()
    agent.disableNetConnect()
    const pool = agent.get(ORIGIN)
    const client = new CardServiceClient({
      baseUrl: ORIGIN,
      clientCode: "c",
      clientSecret: SECRET,
      verifyId: "v",
      merchantId: "m",
      dispatcher: agent,
      retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 2 },
      observer: () => {
        throw new Error("observer bug")
      },
    })
    pool.intercept({ path: "/authorize", method: "GET" }).replyWithError(new Error("boom")).times(2)
    await expect(client.getVerificationCode()).rejects.toMatchObject({ category: "service_error" })

    const { pool: pool2, client: observed, reports } = setup()
    pool2.intercept({ path: "/authorize", method: "GET" }).replyWithError(new Error("boom")).times(3)
    await expect(observed.getVerificationCode()).rejects.toThrow()
    expect(reports).toEqual([
      expect.objectContaining({ operation: "authorize", attempts: 3, errorCategory: "service_error" }),
    ])
    expect(reports[0]).not.toHaveProperty("httpStatus")
  })
})
