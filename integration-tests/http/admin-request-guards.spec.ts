import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { randomBytes } from "node:crypto"
import { request } from "undici"
import { ensureAdminUser } from "../../scripts/lib/demo-seed"
import { notesOf } from "../../src/payment-notes/session-notes"
import { recordResultHint } from "../../src/payment-notes/result-hints"
import { useCardServiceSandbox } from "../helpers/card-service-env"
import { adminHeaders, cartWithSession } from "../helpers/checkout-flow"

jest.setTimeout(180_000)

const env = useCardServiceSandbox()

const ADMIN = { email: "guards@example.com", password: "guards-password" }

/**
 * Issue 30: the plugin's admin routes against a cross-site request that
 * rides the admin's session cookie (what a form another site auto-submits
 * sends), and against malformed paths. Cookie, not an API key or a bearer
 * token: those carry no ambient credential, and the guard lets them through.
 */
medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    const url = (path: string) => `${env.backendUrl()}${path}`
    const send = (
      method: "GET" | "POST",
      path: string,
      headers: Record<string, string>
    ) =>
      request(url(path), { method, headers }).then(async (r) => ({
        status: r.statusCode,
        body: await r.body.text(),
      }))

    /** Logs in as Medusa's admin does (js-sdk `auth: { type: "session" }`): a token, then a session cookie. */
    async function adminSessionCookie(): Promise<string> {
      await ensureAdminUser(getContainer(), ADMIN.email, ADMIN.password)
      const { data } = await api.post("/auth/user/emailpass", ADMIN)
      const session = await api.post(
        "/auth/session",
        {},
        { headers: { Authorization: `Bearer ${data.token}` } }
      )
      const cookie = ([] as string[])
        .concat(session.headers["set-cookie"] ?? [])
        .map((line) => line.split(";")[0])
        .find((pair) => pair.startsWith("connect.sid="))
      if (!cookie)
        throw new Error("POST /auth/session set no connect.sid cookie")
      return cookie
    }

    const sessionOf = async (id: string): Promise<any> => {
      const [session] = await getContainer()
        .resolve("payment")
        .listPaymentSessions({ id }, { select: ["id", "status", "metadata"] })
      return session
    }
    const serviceCalls = () =>
      Object.values(env.sandbox().requestCounts()).reduce(
        (sum, n) => sum + n,
        0
      )

    beforeEach(() => {
      env.sandbox().resetKnobs()
      env.sandbox().reset()
    })

    describe("a cross-site request with the admin's session cookie", () => {
      // Every state-changing route of the plugin's admin API, as a form with
      // no fields sends it: no body, so the JSON-only rule does not apply.
      const STATE_CHANGING = [
        "/admin/card-service/test-connection",
        "/admin/card-service/settings",
        "/admin/card-service/reconciliation",
        "/admin/card-service/payments/pay_01JABCDEFGHJKMNPQRSTVWXYZ0/void",
      ]
      const FOREIGN = "https://attacker.example"
      const CROSS_SITE = [
        [
          "a foreign Origin and Sec-Fetch-Site: cross-site",
          { origin: FOREIGN, "sec-fetch-site": "cross-site" },
        ],
        // A browser without Fetch Metadata, or a request that leaves it out.
        ["a foreign Origin and no Sec-Fetch-Site", { origin: FOREIGN }],
        // Another origin of the same site (another port) that is no admin origin.
        [
          "a foreign Origin and Sec-Fetch-Site: same-site",
          { origin: FOREIGN, "sec-fetch-site": "same-site" },
        ],
      ] as const

      it("is refused (403) on every state-changing route, which does not run", async () => {
        const cookie = await adminSessionCookie()
        // The cookie alone signs the admin in: without it every answer would be a 401.
        // An open session with a reported, unverified result: a sweep would
        // retrieve it from the service and note what it found.
        const { session } = await cartWithSession(api, getContainer())
        const transactionId = `${Date.now()}${randomBytes(8).readBigUInt64BE()}`
        expect(
          await recordResultHint(
            getContainer(),
            session.id,
            transactionId,
            "callback"
          )
        ).toBe("noted")
        const own = await send("GET", "/admin/card-service/settings", {
          cookie,
        })
        expect(own.status).toBe(200)
        const settingsBefore = JSON.parse(own.body)
        const callsBefore = serviceCalls()

        const answers: string[] = []
        for (const path of STATE_CHANGING) {
          for (const [name, headers] of CROSS_SITE) {
            const answer = await send("POST", path, {
              cookie,
              "content-type": "application/x-www-form-urlencoded",
              ...headers,
            })
            answers.push(`${path} with ${name}: ${answer.status}`)
          }
        }

        expect(answers).toEqual(
          STATE_CHANGING.flatMap((path) =>
            CROSS_SITE.map(([name]) => `${path} with ${name}: 403`)
          )
        )
        // Nothing ran: no test connection, no void, no sweep asked the
        // service anything; the hint waits unanswered; settings unchanged.
        expect(serviceCalls()).toBe(callsBefore)
        const notes = notesOf((await sessionOf(session.id)).metadata)
        expect(notes.hints?.map((hint) => hint.transaction_id)).toEqual([transactionId])
        expect(notes.reconcile).toBeUndefined()
        const after = await send("GET", "/admin/card-service/settings", {
          cookie,
        })
        expect(JSON.parse(after.body)).toEqual(settingsBefore)

        // The same cookie from the admin's own origin runs the sweep, which
        // asks the service and answers the hint: what the refusals prevented.
        const sweep = await send("POST", "/admin/card-service/reconciliation", {
          cookie,
          origin: env.backendUrl(),
          "sec-fetch-site": "same-origin",
        })
        expect(sweep.status).toBe(200)
        expect(JSON.parse(sweep.body)).toMatchObject({ ran: true })
        expect(serviceCalls()).toBeGreaterThan(callsBefore)
        // Answered: the service knows no such transaction, so the hint is
        // dropped, with no note (issue 41: no "failed" payment is listed
        // for a report that was no payment).
        const answered = notesOf((await sessionOf(session.id)).metadata)
        expect(answered.hints ?? []).toEqual([])
        expect(answered.reconcile).toBeUndefined()
      })
    })

    describe("a malformed percent escape in an admin route's path", () => {
      it.each([
        ["GET", "/admin/card-service/payments/%E0%A4%A/transactions"],
        ["POST", "/admin/card-service/payments/%E0%A4%A/void"],
      ] as const)(
        "answers %s %s with 400, not a server error",
        async (method, path) => {
          const answer = await send(method, path, {
            ...(await adminHeaders(getContainer())),
            "content-type": "application/json",
          })
          expect(answer.status).toBe(400)
          expect(JSON.parse(answer.body).message).toMatch(/percent-encoded/)
        }
      )
    })
  },
})
