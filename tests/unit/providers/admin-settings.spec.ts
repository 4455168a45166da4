import { mergeAdminSettings } from "../../../src/providers/card-service/admin-settings"
import { parseOptions } from "../../../src/providers/card-service/options"

const code = {
  clientCode: "code",
  clientSecret: "secret",
  verifyId: "verify",
  merchantId: "merchant",
  testUrl: "https://test.service.example",
  backendUrl: "https://api.shop.example",
  storefrontUrl: "https://shop.example",
  autoCapture: "false",
}

describe("effective options: medusa-config.ts defaults, admin settings over them, locks kept", () => {
  it.each([
    ["nothing stored", null, {}, { autoCapture: false, windowed: false }],
    ["a stored switch", { autoCapture: true }, {}, { autoCapture: true }],
    ["a stored null (cleared)", { autoCapture: null }, {}, { autoCapture: false }],
    ["a locked option", { autoCapture: true }, { lockedSettings: "autoCapture" }, { autoCapture: false }],
    [
      "a lock on another option",
      { autoCapture: true, windowed: true },
      { lockedSettings: ["windowed"] },
      { autoCapture: true, windowed: false },
    ],
    ["an option the admin cannot set", { backendUrl: "https://evil.example" } as any, {}, { backendUrl: "https://api.shop.example" }],
  ])("%s", (_, stored, lock, expected) => {
    const options = parseOptions(mergeAdminSettings({ ...code, ...lock }, stored))
    expect(options).toMatchObject(expected)
  })

  it("stops boot on a lock naming an option the admin cannot change", () => {
    expect(() => parseOptions({ ...code, lockedSettings: "backendUrl" })).toThrow(
      /lockedSettings\.0: must name an option the admin may change: mode, testUrl/
    )
  })
})
