import CardServiceSettingsModuleService, { REVISION_FRESH_MS } from "../../../src/modules/card-service-settings/service"
import type { StoredSettingsSnapshot } from "../../../src/providers/card-service/settings-source"

/**
 * The settings module's `current()` (the settings every payment reads): its
 * revision read is shared by callers asking while one is under way, and by
 * no one after it finished. The service is built without Medusa's module
 * loader; its two reads of the row are stand-ins.
 */

type Deferred<T> = { promise: Promise<T>; resolve: (value: T) => void; reject: (error: Error) => void }

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void
  let reject!: (error: Error) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

const snapshot = (revision: string): StoredSettingsSnapshot => ({ revision, values: {} })

/** The service with `snapshot` cached; revision reads answer the next of `reads`, in order. */
function settingsWithCached(cached: StoredSettingsSnapshot, reads: Deferred<string>[]) {
  const service = Object.create(CardServiceSettingsModuleService.prototype) as CardServiceSettingsModuleService
  const revision_ = jest.fn(() => {
    const next = reads.shift()
    if (!next) throw new Error("no revision read expected")
    return next.promise
  })
  const load_ = jest.fn(async () => snapshot("loaded"))
  Object.assign(service, { cached_: Promise.resolve(cached), revisionInFlight_: null, revision_, load_ })
  return { service, revision_, load_ }
}

describe("the stored settings' revision read", () => {
  afterEach(() => jest.restoreAllMocks())

  it("is shared by calls that ask while it is under way: one read for many payments", async () => {
    const read = deferred<string>()
    const { service, revision_, load_ } = settingsWithCached(snapshot("r1"), [read])
    const answers = Promise.all([service.current(), service.current(), service.current()])
    await new Promise((resolve) => setImmediate(resolve))
    read.resolve("r1")
    expect(await answers).toEqual([snapshot("r1"), snapshot("r1"), snapshot("r1")])
    expect(revision_).toHaveBeenCalledTimes(1)
    expect(load_).not.toHaveBeenCalled()
  })

  it("answers from a read that finished less than REVISION_FRESH_MS ago: one statement for the calls of a checkout", async () => {
    const read = deferred<string>()
    const { service, revision_ } = settingsWithCached(snapshot("r1"), [read])
    read.resolve("r1")
    expect(await service.current()).toEqual(snapshot("r1"))
    expect(await service.current()).toEqual(snapshot("r1"))
    expect(await service.current()).toEqual(snapshot("r1"))
    expect(revision_).toHaveBeenCalledTimes(1)
  })

  it("is made again by a call REVISION_FRESH_MS after it finished, so a change saved on another instance is seen", async () => {
    const [first, second] = [deferred<string>(), deferred<string>()]
    const { service, revision_, load_ } = settingsWithCached(snapshot("r1"), [first, second])
    first.resolve("r1")
    const start = Date.now()
    expect(await service.current()).toEqual(snapshot("r1"))
    jest.spyOn(Date, "now").mockReturnValue(start + REVISION_FRESH_MS + 50)
    second.resolve("r2")
    expect(await service.current()).toEqual(snapshot("loaded"))
    expect(revision_).toHaveBeenCalledTimes(2)
    expect(load_).toHaveBeenCalledTimes(1)
  })

  it("is not reused once it failed: the next call reads again", async () => {
    const [failing, next] = [deferred<string>(), deferred<string>()]
    const { service, revision_ } = settingsWithCached(snapshot("r1"), [failing, next])
    const joined = [service.current(), service.current()]
    await new Promise((resolve) => setImmediate(resolve))
    failing.reject(new Error("connection pool exhausted"))
    for (const call of joined) await expect(call).rejects.toThrow("connection pool exhausted")
    next.resolve("r1")
    expect(await service.current()).toEqual(snapshot("r1"))
    expect(revision_).toHaveBeenCalledTimes(2)
  })
})
