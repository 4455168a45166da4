import { MedusaSessionTerms } from "../../../src/providers/card-service/medusa-session-terms"
import type { CardServiceSessionData } from "../../../src/providers/card-service/session-data"

const SESSION = "payses_01JZ8Q3V6X7Y8Z9A0B1C2D3E4F"
const sealed = { currency_code: "eur", amount_minor: "3000" } as CardServiceSessionData

type Row = { amount?: unknown; raw_amount?: unknown; currency_code: string }

/** Medusa's payment-session service: the row's selected columns, or all without a select. */
function sessionService(row: Row) {
  const asked: { id: string; select: string[] }[] = []
  return {
    asked,
    retrieve: async (id: string, config: { select: string[] }) => {
      asked.push({ id, select: config.select })
      const picked = Object.fromEntries(
        Object.entries(row).filter(([column]) => config?.select?.includes(column) ?? true)
      )
      return picked as Row
    },
  }
}

const terms = (row: Row) => new MedusaSessionTerms({ paymentSessionService: sessionService(row) })

describe("Medusa's own amount and currency of a session", () => {
  it.each<[string, Row, boolean]>([
    ["the same amount and currency", { amount: 30, raw_amount: { value: "30" }, currency_code: "eur" }, true],
    ["the currency in upper case", { amount: 30, currency_code: "EUR" }, true],
    ["the exact raw amount before the rounded number", { amount: 29.9, raw_amount: { value: "30.00" }, currency_code: "eur" }, true],
    ["another amount", { amount: 31, raw_amount: { value: "31" }, currency_code: "eur" }, false],
    ["another raw amount", { amount: 30, raw_amount: { value: "30.01" }, currency_code: "eur" }, false],
    ["another currency", { amount: 30, currency_code: "usd" }, false],
    ["an amount that is no number", { amount: "thirty", currency_code: "eur" }, false],
    ["no amount at all", { currency_code: "eur" }, false],
  ])("%s: agrees %s", async (_name, row, agrees) => {
    await expect(terms(row).agree(sealed, SESSION)).resolves.toBe(agrees)
  })

  it("reads the session it is asked about, with the columns it compares", async () => {
    const service = sessionService({ amount: 30, currency_code: "eur" })
    await new MedusaSessionTerms({ paymentSessionService: service }).agree(sealed, SESSION)
    expect(service.asked).toEqual([{ id: SESSION, select: ["id", "amount", "raw_amount", "currency_code"] }])
  })

  it.each<[string, unknown]>([
    ["a container without the service (a provider built outside Medusa)", {}],
    ["an awilix cradle that throws for an unknown name", new Proxy({}, { get: () => { throw new Error("not registered") } })],
    ["a service without retrieve", { paymentSessionService: { list: () => [] } }],
    ["no container", undefined],
  ])("leaves the seal alone to decide with %s", async (_name, container) => {
    await expect(new MedusaSessionTerms(container).agree(sealed, SESSION)).resolves.toBe(true)
  })

  it("asks nothing without a session id", async () => {
    const service = sessionService({ amount: 31, currency_code: "usd" })
    await expect(new MedusaSessionTerms({ paymentSessionService: service }).agree(sealed, undefined)).resolves.toBe(true)
    expect(service.asked).toHaveLength(0)
  })
})
