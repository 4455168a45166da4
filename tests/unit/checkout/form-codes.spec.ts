import { CallBudgetExceeded } from "../../../src/checkout/call-budget"
import {
  FORM_CODE_REUSE_MS,
  SPARE_FRESH_MS,
  formCodeFor,
} from "../../../src/checkout/form-codes"
import type CardServiceProviderService from "../../../src/providers/card-service/service"

/** A provider as formCodeFor sees it: a client that mints codes, and the rate option. */
function fakeProvider(mint: () => Promise<string>, anonymousCallRate = 1000) {
  let minted = 0
  const provider = {
    client: {
      freshVerificationCode: () => {
        minted += 1
        return mint()
      },
    },
    options: { anonymousCallRate },
  } as unknown as CardServiceProviderService
  return { provider, minted: () => minted }
}

describe("formCodeFor: a session's form code", () => {
  it("is minted once for many views at once, and reused within the window", async () => {
    let n = 0
    const { provider, minted } = fakeProvider(async () => `code-${++n}`)
    let now = 1_000_000

    const first = await Promise.all(
      Array.from({ length: 50 }, () =>
        formCodeFor(provider, "payses_A", () => now)
      )
    )
    now += FORM_CODE_REUSE_MS - 1
    const stillSame = await formCodeFor(provider, "payses_A", () => now)
    now += 1
    const renewed = await formCodeFor(provider, "payses_A", () => now)

    expect(new Set(first)).toEqual(new Set(["code-1"]))
    expect(stillSame).toBe("code-1")
    // code-2 is the spare minted behind code-1, too old by now to hand out.
    expect(renewed).toBe("code-3")
    expect(minted()).toBe(4)
  })

  it("is per session", async () => {
    let n = 0
    const { provider } = fakeProvider(async () => `code-${++n}`)

    const a = await formCodeFor(provider, "payses_A")
    const b = await formCodeFor(provider, "payses_B")

    expect(a).not.toBe(b)
  })

  it("is not kept when minting failed: the next view tries again", async () => {
    let fail = true
    const { provider, minted } = fakeProvider(async () => {
      if (fail) throw new Error("service down")
      return "code-ok"
    })

    await expect(formCodeFor(provider, "payses_A")).rejects.toThrow(
      "service down"
    )
    // The spare minted behind it failed too, and is not handed out.
    await new Promise((resolve) => setImmediate(resolve))
    fail = false
    await expect(formCodeFor(provider, "payses_A")).resolves.toBe("code-ok")
    expect(minted()).toBe(4)
  })

  it("is not minted beyond the anonymous call budget", async () => {
    const { provider, minted } = fakeProvider(async () => "code", 1)
    const sessions = Array.from({ length: 6 }, (_, i) => `payses_${i}`)

    const outcomes = await Promise.allSettled(
      sessions.map((id) => formCodeFor(provider, id))
    )

    // Rate 1 per second: a burst of five.
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(5)
    const refused = outcomes.find(
      (o) => o.status === "rejected"
    ) as PromiseRejectedResult
    expect(refused.reason).toBeInstanceOf(CallBudgetExceeded)
    // One per session let through, and the spare left over.
    expect(minted()).toBe(6)
  })
})

describe("formCodeFor: the spare minted ahead (#43)", () => {
  /** A client whose GET /authorize answers only when the test says so. */
  function slowService() {
    const pending: Array<(code: string) => void> = []
    let n = 0
    const { provider, minted } = fakeProvider(
      () => new Promise<string>((resolve) => pending.push(() => resolve(`code-${++n}`)))
    )
    const answerAll = () => pending.splice(0).forEach((answer) => answer(""))
    return { provider, minted, answerAll }
  }

  it("gives a new session the code minted behind the last one: its page waits on no GET /authorize", async () => {
    const { provider, minted, answerAll } = slowService()
    const first = formCodeFor(provider, "payses_A")
    answerAll()
    expect(await first).toBe("code-1")
    expect(minted()).toBe(2)

    // The spare (code-2) is already answered: the second session gets it at once.
    const second = await formCodeFor(provider, "payses_B")

    expect(second).toBe("code-2")
    // And another spare is on its way behind it: still one call per new session.
    expect(minted()).toBe(3)
  })

  it("mints anew for a session when the spare is older than SPARE_FRESH_MS, so its minute of reuse stays whole", async () => {
    let n = 0
    const { provider, minted } = fakeProvider(async () => `code-${++n}`)
    let now = 5_000_000
    expect(await formCodeFor(provider, "payses_A", () => now)).toBe("code-1")

    now += SPARE_FRESH_MS
    const late = await formCodeFor(provider, "payses_B", () => now)

    expect(late).toBe("code-3")
    expect(minted()).toBe(4)
  })

  it("gives each session its own code: the spare goes to one session only", async () => {
    let n = 0
    const { provider } = fakeProvider(async () => `code-${++n}`)
    const codes = []
    for (const id of ["payses_A", "payses_B", "payses_C"]) codes.push(await formCodeFor(provider, id))
    expect(new Set(codes).size).toBe(3)
  })
})
