import type { MedusaContainer } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import { readSettledMark, writeSettledMark, type SettledMark } from "../../../src/checkout/settled-marks"
import { FakeCache } from "../../helpers/fake-medusa"

/**
 * Settled marks (src/checkout/settled-marks.ts): what a later copy of a
 * result may be answered from. A mark is only ever a saving: anything but a
 * well-formed mark of the named transaction, answered in time, is no mark.
 */

const TX = "7000000000000000000001"
const mark: SettledMark = { transactionId: TX, orderId: "order_1", cartId: "cart_1", locale: "de" }

/** A container whose Modules.CACHE is `cache`. */
function containerWith(cache: unknown): MedusaContainer {
  return {
    resolve: (key: string) => {
      if (key !== Modules.CACHE) throw new Error(`no ${key} registered`)
      return cache
    },
  } as unknown as MedusaContainer
}

/** Containers with no cache: Medusa answers undefined (allowUnregistered) or throws. */
const withoutCache: [string, MedusaContainer][] = [
  ["undefined", containerWith(undefined)],
  [
    "an error",
    {
      resolve: (key: string) => {
        throw new Error(`no ${key} registered`)
      },
    } as unknown as MedusaContainer,
  ],
]

/** A cache holding `value` under the session's key, as another instance may have written it. */
function cacheHolding(sessionId: string, value: unknown): FakeCache {
  const cache = new FakeCache()
  cache.entries.set(`card-service:settled:${sessionId}`, { json: JSON.stringify(value) })
  return cache
}

const never = () => new Promise<never>(() => undefined)

describe("a settled mark", () => {
  it("is read back for the transaction it was written with", async () => {
    const container = containerWith(new FakeCache())
    await writeSettledMark(container, "payses_1", mark)
    expect(await readSettledMark(container, "payses_1", TX)).toEqual(mark)
  })

  it("is kept for an hour, longer than redeliveries and late returns take", async () => {
    const cache = new FakeCache()
    await writeSettledMark(containerWith(cache), "payses_1", mark)
    expect(cache.entries.get("card-service:settled:payses_1")?.ttl).toBe(3600)
  })

  it("is not returned for another transaction of the session (a second tab's approval goes the database way)", async () => {
    const container = containerWith(cacheHolding("payses_1", mark))
    expect(await readSettledMark(container, "payses_1", "7000000000000000000002")).toBeNull()
  })

  it("is not looked up for a hint that names no transaction", async () => {
    const cache = cacheHolding("payses_1", mark)
    const get = jest.spyOn(cache, "get")
    expect(await readSettledMark(containerWith(cache), "payses_1", undefined)).toBeNull()
    expect(get).not.toHaveBeenCalled()
  })

  it("is not returned for another session", async () => {
    const container = containerWith(cacheHolding("payses_1", mark))
    expect(await readSettledMark(container, "payses_2", TX)).toBeNull()
  })

  it.each<[string, unknown]>([
    ["no object", "order_1"],
    ["an order id that is no string", { ...mark, orderId: 1 }],
    ["no cart id", { transactionId: TX, orderId: "order_1", locale: null }],
    ["a locale that is no string", { ...mark, locale: 7 }],
  ])("is no mark when the cache holds %s", async (_name, value) => {
    expect(await readSettledMark(containerWith(cacheHolding("payses_1", value)), "payses_1", TX)).toBeNull()
  })

  it("may have no locale", async () => {
    const container = containerWith(cacheHolding("payses_1", { ...mark, locale: null }))
    expect(await readSettledMark(container, "payses_1", TX)).toEqual({ ...mark, locale: null })
  })
})

describe("a cache that cannot say", () => {
  afterEach(() => {
    jest.useRealTimers()
  })

  it.each(withoutCache)("gives no mark when none is registered (resolving it gives %s), and writing is skipped", async (_name, container) => {
    expect(await readSettledMark(container, "payses_1", TX)).toBeNull()
    await expect(writeSettledMark(container, "payses_1", mark)).resolves.toBeUndefined()
  })

  it("gives no mark when it throws", async () => {
    const cache = cacheHolding("payses_1", mark)
    cache.fail = new Error("redis: connection refused")
    expect(await readSettledMark(containerWith(cache), "payses_1", TX)).toBeNull()
  })

  it("gives no mark, after 250 ms, when it never answers", async () => {
    jest.useFakeTimers()
    const answer = readSettledMark(containerWith({ get: never }), "payses_1", TX)
    await expectSettledAt250ms(answer)
    expect(await answer).toBeNull()
  })

  it("does not fail the settlement that writes a mark when it throws", async () => {
    const cache = new FakeCache()
    cache.fail = new Error("redis: connection refused")
    await expect(writeSettledMark(containerWith(cache), "payses_1", mark)).resolves.toBeUndefined()
  })

  it("does not hold up the settlement that writes a mark past 250 ms when it never answers", async () => {
    jest.useFakeTimers()
    const written = writeSettledMark(containerWith({ set: never }), "payses_1", mark)
    await expectSettledAt250ms(written)
    await expect(written).resolves.toBeUndefined()
  })
})

/** On jest's fake clock: `pending` is still pending at 249 ms and settled at 250 ms. */
async function expectSettledAt250ms(pending: Promise<unknown>) {
  let settled = false
  void pending.then(() => (settled = true))
  await jest.advanceTimersByTimeAsync(249)
  expect(settled).toBe(false)
  await jest.advanceTimersByTimeAsync(1)
  expect(settled).toBe(true)
}
