import { CallBudgetExceeded } from "../../../src/checkout/call-budget"
import {
  FORM_CODE_REUSE_MS,
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
    expect(renewed).toBe("code-2")
    expect(minted()).toBe(2)
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
    fail = false
    await expect(formCodeFor(provider, "payses_A")).resolves.toBe("code-ok")
    expect(minted()).toBe(2)
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
    expect(minted()).toBe(5)
  })
})
