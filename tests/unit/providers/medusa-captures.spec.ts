import { MedusaError } from "@medusajs/framework/utils"
import { MedusaCaptures } from "../../../src/providers/card-service/medusa-captures"
import type { CardServiceSessionData } from "../../../src/providers/card-service/session-data"

const session = (currency_code = "eur") =>
  ({ session_id: "payses_A", currency_code }) as CardServiceSessionData

const withRecords = (records: Record<string, object>) => ({
  captureService: {
    retrieve: jest.fn(async (id: string, config: any) => {
      expect(config.relations).toEqual(["payment"])
      const record = records[id]
      if (!record) throw new Error(`Capture with id: ${id} was not found`)
      return { id, ...record }
    }),
  },
})

describe("MedusaCaptures.bookedAmount", () => {
  it("is null where Medusa hands no capture service, or no key names a capture", async () => {
    expect(await new MedusaCaptures({}).bookedAmount(session(), "capt_1")).toBeNull()
    expect(await new MedusaCaptures(withRecords({})).bookedAmount(session(), undefined)).toBeNull()
  })

  it("is the record's exact amount (raw first), rounded to the currency's digits", async () => {
    const captures = new MedusaCaptures(
      withRecords({
        capt_raw: { amount: 99, raw_amount: { value: "8.7", precision: 20 }, payment: { payment_session_id: "payses_A" } },
        capt_num: { amount: 12.345, payment: { payment_session_id: "payses_A" } },
        capt_jpy: { raw_amount: { value: "1234", precision: 20 }, payment: { payment_session_id: "payses_A" } },
      })
    )
    expect(await captures.bookedAmount(session(), "capt_raw")).toBe(8.7)
    expect(await captures.bookedAmount(session(), "capt_num")).toBe(12.35)
    expect(await captures.bookedAmount(session("jpy"), "capt_jpy")).toBe(1234)
  })

  it("refuses a capture Medusa has no record of, and one of another payment session", async () => {
    const captures = new MedusaCaptures(
      withRecords({ capt_other: { amount: 5, payment: { payment_session_id: "payses_B" } } })
    )
    for (const key of ["capt_missing", "capt_other"]) {
      const error = await captures.bookedAmount(session(), key).catch((e) => e)
      expect(error).toBeInstanceOf(MedusaError)
      expect(error.type).toBe(MedusaError.Types.NOT_ALLOWED)
      expect(error.message).toContain(`no capture ${key} of this payment`)
    }
  })

  it("takes a record whose payment does not name its session (nothing to compare) by its amount", async () => {
    const captures = new MedusaCaptures(withRecords({ capt_1: { amount: 3, payment: null } }))
    expect(await captures.bookedAmount(session(), "capt_1")).toBe(3)
  })
})
