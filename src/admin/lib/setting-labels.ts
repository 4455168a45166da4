import type {
  AdminSettingField,
  AdminSettingName,
  SettingsChangeEntry,
} from "../../api/admin/card-service/response-types"

/**
 * How the settings form labels each editable option and its choices. The
 * form, the page header and the Changes list all read them here, so the
 * trail speaks the form's words ("Capture: Automatic (at approval)"), not
 * the option names and raw values stored in it.
 */
export type SettingSpec = {
  name: AdminSettingName
  label: string
  kind: "choice" | "text" | "secret" | "list"
  choices?: { value: string; label: string }[]
  hint?: string
}

/** The form's fields, in its order. */
export const SETTING_SPECS: SettingSpec[] = [
  {
    name: "mode",
    label: "Mode",
    kind: "choice",
    choices: [
      { value: "test", label: "Test" },
      { value: "live", label: "Live" },
    ],
  },
  { name: "testUrl", label: "Test address", kind: "text" },
  { name: "liveUrl", label: "Live address", kind: "text" },
  { name: "merchantId", label: "Merchant ID", kind: "text" },
  { name: "verifyId", label: "Verify ID", kind: "text" },
  { name: "clientCode", label: "Client code", kind: "secret" },
  { name: "clientSecret", label: "Client secret", kind: "secret" },
  {
    name: "autoCapture",
    label: "Capture",
    kind: "choice",
    choices: [
      { value: "false", label: "Manual (from the order)" },
      { value: "true", label: "Automatic (at approval)" },
    ],
  },
  {
    name: "windowed",
    label: "3DS presentation (isWindowed)",
    kind: "choice",
    choices: [
      { value: "false", label: "In the same window" },
      { value: "true", label: "In a new window" },
    ],
  },
  {
    name: "redirectOnFailure",
    label: "After a failed 3DS (isRedirect)",
    kind: "choice",
    choices: [
      { value: "true", label: "Back to the store" },
      { value: "false", label: "Stay on the service's page" },
    ],
  },
  {
    name: "allowedReturnOrigins",
    label: "Allowed storefront origins",
    kind: "list",
    hint: "One origin per line, besides the storefront's own.",
  },
]

const specOf = (name: string) => SETTING_SPECS.find((spec) => spec.name === name)

/** The form's label of a setting (its option name if the form has none). */
export function settingLabel(name: string): string {
  return specOf(name)?.label ?? name
}

/** A stored value (JSON in the trail, or the form's value) in the form's words. */
export function valueLabel(name: string, value: unknown): string {
  if (value === null || value === undefined) return "as in medusa-config.ts"
  const spec = specOf(name)
  if (Array.isArray(value)) return value.length ? value.join(", ") : "none"
  const text = String(value)
  return spec?.choices?.find((choice) => choice.value === text)?.label ?? text
}

/** One trail entry's change, in the form's words: "Capture: as in medusa-config.ts → Automatic (at approval)". */
export function describeChange(change: Pick<SettingsChangeEntry, "setting" | "secret" | "old_value" | "new_value">): string {
  const label = settingLabel(change.setting)
  if (change.secret) return `${label}: changed (a secret; its value is never shown)`
  const parse = (stored: string | null) => {
    if (stored === null) return null
    try {
      return JSON.parse(stored) as unknown
    } catch {
      return stored
    }
  }
  return `${label}: ${valueLabel(change.setting, parse(change.old_value))} → ${valueLabel(change.setting, parse(change.new_value))}`
}

/**
 * Where the settings in force come from, for the page header: medusa-config.ts
 * alone, or with the settings saved on this page named.
 */
export function settingsOrigin(fields: AdminSettingField[]): string {
  const saved = fields.filter((field) => field.source === "admin" || (field.secret && field.set_at))
  if (!saved.length) return "Settings come from medusa-config.ts; none has been changed here."
  const names = saved.map((field) => settingLabel(field.name))
  return `Settings come from medusa-config.ts, except ${names.join(", ")}, saved here in the admin.`
}
