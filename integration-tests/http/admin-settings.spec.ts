import { Modules } from "@medusajs/framework/utils"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { randomBytes } from "node:crypto"
import { ensureAdminUser } from "../../scripts/lib/demo-seed"
import { openStoredSecrets } from "../../src/modules/card-service-settings/stored-secrets"
import { SETTINGS_UPDATED_EVENT } from "../../src/modules/card-service-settings/events"
import storedSecretsCheck from "../../src/modules/card-service-settings/loaders/stored-secrets-check"
import type CardServiceSettingsModuleService from "../../src/modules/card-service-settings/service"
import { REVISION_FRESH_MS } from "../../src/modules/card-service-settings/service"
import { useCardServiceSandbox } from "../helpers/card-service-env"
import { checkoutToOrder, paymentOfOrder } from "../helpers/checkout-flow"
import { CARD_SERVICE_PROVIDER_ID, seedStore } from "../helpers/seed-store"
import { cardServiceProvider } from "../../src/checkout/provider-lookup"

jest.setTimeout(180_000)

const env = useCardServiceSandbox()

// Set before Medusa loads medusa-config.ts (this beforeAll runs before the
// runner's), put back afterwards for the next file in this worker.
const BOOT_ENV = {
  CARD_SERVICE_SETTINGS_KEY: randomBytes(32).toString("base64"),
  CARD_SERVICE_LOCKED_SETTINGS: "redirectOnFailure",
}
const previousEnv: Record<string, string | undefined> = {}
beforeAll(() => {
  for (const [name, value] of Object.entries(BOOT_ENV)) {
    previousEnv[name] = process.env[name]
    process.env[name] = value
  }
})
afterAll(() => {
  for (const [name, value] of Object.entries(previousEnv)) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
})

const ADMIN = { email: "owner@example.com", password: "owner-password" }

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    let admin: Record<string, string>

    beforeEach(async () => {
      env.sandbox().resetKnobs()
      // The runner restores the database before each test; the settings
      // cache of this instance must not outlive the row.
      getContainer().resolve<CardServiceSettingsModuleService>("cardServiceSettings").invalidate()
      await ensureAdminUser(getContainer(), ADMIN.email, ADMIN.password)
      const { data } = await api.post("/auth/user/emailpass", ADMIN)
      admin = { Authorization: `Bearer ${data.token}` }
    })

    const call = (promise: Promise<any>) => promise.catch((error) => error.response)
    const settings = () => api.get("/admin/card-service/settings", { headers: admin })
    const save = (body: Record<string, unknown>) =>
      call(api.post("/admin/card-service/settings", body, { headers: admin }))
    const field = (data: any, name: string) =>
      data.admin_settings.fields.find((f: any) => f.name === name)
    const rawRows = async () => {
      const pg = getContainer().resolve("__pg_connection__")
      return pg.raw(`select * from card_service_settings`).then((r: any) => r.rows)
    }

    it("saves settings and reads them back, marked as the admin's", async () => {
      const before = (await settings()).data
      expect(before.admin_settings.editable).toBe(true)
      expect(field(before, "autoCapture")).toMatchObject({ value: false, source: "code", locked: false })

      const saved = await save({
        settings: {
          autoCapture: true,
          windowed: true,
          allowedReturnOrigins: ["https://other-shop.example"],
        },
      })
      expect(saved.status).toBe(200)

      const { data } = await settings()
      expect(field(data, "autoCapture")).toMatchObject({ value: true, source: "admin" })
      expect(field(data, "windowed")).toMatchObject({ value: true, source: "admin" })
      expect(field(data, "allowedReturnOrigins")).toMatchObject({
        value: ["https://other-shop.example"],
        source: "admin",
      })
      expect(data.providers[0]).toMatchObject({ auto_capture: true, windowed: true })

      // null gives the option back to medusa-config.ts.
      expect((await save({ settings: { windowed: null } })).status).toBe(200)
      expect(field((await settings()).data, "windowed")).toMatchObject({ value: false, source: "code" })
    })

    it("refuses options locked in medusa-config.ts and shows them as set in code", async () => {
      const answer = await save({ settings: { redirectOnFailure: false } })
      expect(answer.status).toBe(400)
      expect(answer.data.message).toMatch(/redirectOnFailure is set in code/)
      const { data } = await settings()
      expect(field(data, "redirectOnFailure")).toMatchObject({ value: true, locked: true, source: "code" })
      expect(await rawRows()).toEqual([])
    })

    it("refuses values the options schema refuses, saying which", async () => {
      const answer = await save({ settings: { testUrl: "not a url", mode: "sandbox" } })
      expect(answer.status).toBe(400)
      expect(answer.data.message).toMatch(/testUrl: must be an absolute URL/)
      expect(answer.data.message).toMatch(/mode: must be "test" or "live"/)
      expect(await rawRows()).toEqual([])
    })

    it("keeps secrets sealed at rest and out of every answer", async () => {
      const secret = env.sandbox().credentials.clientSecret
      const first = await save({ settings: { clientSecret: secret } })
      expect(first.status).toBe(200)
      expect(JSON.stringify(first.data)).not.toContain(secret)
      expect(field(first.data, "clientSecret")).toMatchObject({
        value: null,
        secret: true,
        source: "admin",
        set_at: expect.any(String),
      })

      const [row] = await rawRows()
      expect(JSON.stringify(row)).not.toContain(secret)
      expect(row.secrets.clientSecret).toMatchObject({
        alg: "aes-256-gcm",
        iv: expect.any(String),
        tag: expect.any(String),
        data: expect.any(String),
      })
      expect(Buffer.from(row.secrets.clientSecret.iv, "base64")).toHaveLength(12)

      // A fresh IV for every write.
      expect((await save({ settings: { clientSecret: secret } })).status).toBe(200)
      const [again] = await rawRows()
      expect(again.secrets.clientSecret.iv).not.toBe(row.secrets.clientSecret.iv)

      // The module's boot check, on this database: it opens with the key,
      // and without it the server is told what to set.
      const pg = getContainer().resolve("__pg_connection__")
      const moduleContainer = {
        resolve: () => ({
          getConnection: () => ({ execute: (sql: string) => pg.raw(sql).then((r: any) => r.rows) }),
        }),
      }
      await expect(storedSecretsCheck({ container: moduleContainer } as any)).resolves.toBeUndefined()
      delete process.env.CARD_SERVICE_SETTINGS_KEY
      try {
        await expect(storedSecretsCheck({ container: moduleContainer } as any)).rejects.toThrow(
          /admin stored clientSecret, which cannot be read: CARD_SERVICE_SETTINGS_KEY is not set/
        )
      } finally {
        process.env.CARD_SERVICE_SETTINGS_KEY = BOOT_ENV.CARD_SERVICE_SETTINGS_KEY
      }
      expect(openStoredSecrets(again.secrets)).toEqual({ clientSecret: secret })
      expect(() => openStoredSecrets(again.secrets, {})).toThrow(
        /CARD_SERVICE_SETTINGS_KEY is not set/
      )
      expect(() =>
        openStoredSecrets(again.secrets, {
          CARD_SERVICE_SETTINGS_KEY: randomBytes(32).toString("hex"),
        })
      ).toThrow(/does not open with CARD_SERVICE_SETTINGS_KEY/)

      const { data: changes } = await api.get("/admin/card-service/settings/changes", { headers: admin })
      expect(JSON.stringify(changes)).not.toContain(secret)
    })

    it("refuses a client secret the service refuses, and keeps the one in force", async () => {
      // Everything Medusa's logger is handed while the secrets travel.
      const logger = getContainer().resolve("logger") as Record<string, any>
      const spies = ["info", "warn", "error", "debug", "log"]
        .filter((level) => typeof logger[level] === "function")
        .map((level) => jest.spyOn(logger, level))
      const answer = await save({ settings: { clientSecret: "not-the-secret" } })
      await save({ settings: { clientSecret: env.sandbox().credentials.clientSecret } })
      const logged = JSON.stringify(spies.flatMap((spy) => spy.mock.calls))
      spies.forEach((spy) => spy.mockRestore())
      expect(logged).not.toContain("not-the-secret")
      expect(logged).not.toContain(env.sandbox().credentials.clientSecret)

      expect(answer.status).toBe(400)
      // One sentence that says it once (issue 32: "[HTTP 401] ... (HTTP 400)").
      expect(answer.data.message).toBe(
        `The card service at ${env.sandbox().url} refused the client code and secret (it answered HTTP 401). Nothing was saved.`
      )
      expect(JSON.stringify(answer.data)).not.toContain("not-the-secret")
      // Only the right secret was stored.
      const [row] = await rawRows()
      expect(openStoredSecrets(row.secrets)).toEqual({ clientSecret: env.sandbox().credentials.clientSecret })

      const test = await api.post("/admin/card-service/test-connection", {}, { headers: admin })
      expect(test.data.ok).toBe(true)
    })

    it("asks for confirmation before switching to live", async () => {
      const live = { mode: "live", liveUrl: env.sandbox().url }
      const unconfirmed = await save({ settings: live })
      expect(unconfirmed.status).toBe(400)
      expect(unconfirmed.data.message).toMatch(/confirm it \(confirm_live: true\)/)
      expect(await rawRows()).toEqual([])

      const confirmed = await save({ settings: live, confirm_live: true })
      expect(confirmed.status).toBe(200)
      expect(confirmed.data.providers[0]).toMatchObject({ mode: "live", service_url: env.sandbox().url })
    })

    it("uses the new capture setting for the next payment, without a restart", async () => {
      const store = await seedStore(getContainer())
      const manual = await checkoutToOrder(api, getContainer(), store)
      expect((await paymentOfOrder(getContainer(), manual.orderId)).captured_at).toBeFalsy()

      expect((await save({ settings: { autoCapture: true } })).status).toBe(200)

      const automatic = await checkoutToOrder(api, getContainer(), store)
      const payment = await paymentOfOrder(getContainer(), automatic.orderId)
      expect(payment.captured_at).toBeTruthy()
      const captures = env
        .sandbox()
        .transactions()
        .filter(
          (r) =>
            r.step === "CAPTURE" &&
            r.originalTransactionId === automatic.payment.data.transaction_id &&
            r.status === "successful"
        )
      expect(captures).toHaveLength(1)
    })

    it("writes who changed which setting and when, never a secret's value", async () => {
      await save({ settings: { autoCapture: true } })
      await save({ settings: { clientSecret: env.sandbox().credentials.clientSecret } })
      const { data } = await api.get("/admin/card-service/settings/changes", { headers: admin })
      const [user] = await getContainer().resolve(Modules.USER).listUsers({ email: ADMIN.email })
      expect(data.changes).toEqual([
        expect.objectContaining({
          setting: "clientSecret",
          secret: true,
          old_value: null,
          new_value: null,
          actor_id: user.id,
          actor_email: ADMIN.email,
        }),
        expect.objectContaining({
          setting: "autoCapture",
          secret: false,
          old_value: null,
          new_value: "true",
          actor_type: "user",
          actor_id: user.id,
          actor_email: ADMIN.email,
          created_at: expect.any(String),
        }),
      ])
    })

    /** Another instance saved: the row changed under this instance's cache. */
    async function savedElsewhere(values: Record<string, unknown>) {
      const [row] = await rawRows()
      await getContainer()
        .resolve("__pg_connection__")
        .raw(`update card_service_settings set "values" = ?::jsonb, updated_at = now() where id = ?`, [
          JSON.stringify(values),
          row.id,
        ])
    }

    it("notices a change another instance saved, on the next payment operation", async () => {
      expect((await save({ settings: { windowed: true } })).status).toBe(200)
      await savedElsewhere({ windowed: false, autoCapture: true })
      // No event reached this instance (Redis hands each to one instance):
      // its last read of the revision answers for REVISION_FRESH_MS.
      await new Promise((resolve) => setTimeout(resolve, REVISION_FRESH_MS))
      const { data } = await settings()
      expect(data.providers[0]).toMatchObject({ auto_capture: true, windowed: false })
    })

    it("rebuilds this instance's providers when the save event arrives", async () => {
      expect((await save({ settings: { windowed: true } })).status).toBe(200)
      const provider = cardServiceProvider(getContainer(), CARD_SERVICE_PROVIDER_ID)
      const before = provider.client
      await savedElsewhere({ windowed: false, autoCapture: true })
      expect(provider.options.autoCapture).toBe(false)

      await getContainer().resolve(Modules.EVENT_BUS).emit({ name: SETTINGS_UPDATED_EVENT, data: {} })
      // The subscriber runs after emit returns: wait for what it does.
      const deadline = Date.now() + 10_000
      while (!provider.options.autoCapture && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      expect(provider.options).toMatchObject({ autoCapture: true, windowed: false })
      // A new client: its verification-code cache starts empty.
      expect(provider.client).not.toBe(before)
    })

    it("takes JSON only and refuses cross-site requests", async () => {
      const form = await call(
        api.post("/admin/card-service/settings", "settings=1", {
          headers: { ...admin, "Content-Type": "application/x-www-form-urlencoded" },
        })
      )
      expect(form.status).toBe(415)
      const unauthenticated = await call(api.post("/admin/card-service/settings", { settings: {} }))
      expect(unauthenticated.status).toBe(401)
    })
  },
})
