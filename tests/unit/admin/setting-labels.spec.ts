import { attentionSummary } from "../../../src/admin/lib/attention-summary"
import { statusLabel } from "../../../src/admin/lib/status-label"
import { describeChange, settingsOrigin } from "../../../src/admin/lib/setting-labels"
import type { AdminSettingField } from "../../../src/api/admin/card-service/response-types"

/** Issue 32, "The admin pages as an owner met them": the words the settings page uses. */
describe("the Changes list in the form's words", () => {
  const change = (setting: string, old_value: string | null, new_value: string | null, secret = false) =>
    describeChange({ setting: setting as any, old_value, new_value, secret })

  it.each([
    [change("autoCapture", null, "true"), "Capture: as in medusa-config.ts → Automatic (at approval)"],
    [change("autoCapture", "true", "false"), "Capture: Automatic (at approval) → Manual (from the order)"],
    [change("autoCapture", "true", null), "Capture: Automatic (at approval) → as in medusa-config.ts"],
    [change("mode", null, '"live"'), "Mode: as in medusa-config.ts → Live"],
    [change("windowed", "false", "true"), "3DS presentation (isWindowed): In the same window → In a new window"],
    [change("testUrl", null, '"https://test.cards.example"'), "Test address: as in medusa-config.ts → https://test.cards.example"],
    [
      change("allowedReturnOrigins", null, '["https://a.example","https://b.example"]'),
      "Allowed storefront origins: as in medusa-config.ts → https://a.example, https://b.example",
    ],
    [change("clientSecret", null, null, true), "Client secret: changed (a secret; its value is never shown)"],
  ])("%s", (actual, expected) => {
    expect(actual).toBe(expected)
  })
})

describe("the page header's origin of the settings", () => {
  const field = (name: string, source: "admin" | "code", extra: Partial<AdminSettingField> = {}): AdminSettingField => ({
    name: name as any,
    value: null,
    source,
    locked: false,
    secret: false,
    set_at: null,
    ...extra,
  })

  it("says medusa-config.ts alone only when nothing was saved in the admin", () => {
    expect(settingsOrigin([field("mode", "code"), field("autoCapture", "code")])).toBe(
      "Settings come from medusa-config.ts; none has been changed here."
    )
  })

  it("names the settings saved in the admin, secrets included", () => {
    expect(
      settingsOrigin([
        field("mode", "code"),
        field("autoCapture", "admin"),
        field("clientSecret", "code", { secret: true, set_at: "2026-11-25T10:00:00.000Z" }),
      ])
    ).toBe("Settings come from medusa-config.ts, except Capture, Client secret, saved here in the admin.")
  })
})

describe("the Needs attention count", () => {
  it("counts what the list shows: the cases that need action and those already acted on", () => {
    const sweep = "sweep" as const
    expect(attentionSummary([{ needs_action: false, acted_by: sweep }, { needs_action: false, acted_by: sweep }]).text).toBe(
      "0 need action · 2 actions taken (by the sweep)"
    )
    expect(attentionSummary([{ needs_action: true, acted_by: sweep }, { needs_action: false, acted_by: sweep }]).text).toBe(
      "1 needs action · 1 action taken (by the sweep)"
    )
    expect(attentionSummary([]).text).toBe("0 need action")
  })

  it("says how many of the actions taken were the sweep's, as Payments at a glance counts only those (issue 41)", () => {
    const entries = [
      ...Array.from({ length: 3 }, () => ({ needs_action: false, acted_by: "sweep" as const })),
      { needs_action: false, acted_by: "callback" as const },
      { needs_action: false, acted_by: "callback" as const },
    ]
    expect(attentionSummary(entries).text).toBe("0 need action · 5 actions taken (3 by the sweep)")
  })
})

describe("a status in both panels' words", () => {
  it("reads review_closed as Payments at a glance and Needs attention both show it (issue 41)", () => {
    expect(statusLabel("review_closed")).toBe("review closed")
    expect(statusLabel("capture_pending")).toBe("capture pending")
  })
})
