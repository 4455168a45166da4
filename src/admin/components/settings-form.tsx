import {
  Alert,
  Badge,
  Button,
  Container,
  Heading,
  Input,
  Label,
  Text,
  Textarea,
  usePrompt,
} from "@medusajs/ui"
import { useState, type ReactNode } from "react"
import {
  errorText,
  useSaveSettings,
  type AdminSettingField,
  type AdminSettingName,
  type SettingsSave,
} from "../lib/card-service-api"
import { SETTING_SPECS } from "../lib/setting-labels"
import { SettingsChanges } from "./settings-changes"

type Draft = Partial<Record<AdminSettingName, string>>

const FIELDS = SETTING_SPECS

const asText = (field: AdminSettingField | undefined): string => {
  const value = field?.value
  if (value === null || value === undefined) return ""
  if (Array.isArray(value)) return value.join("\n")
  return String(value)
}

const fromText = (
  kind: (typeof FIELDS)[number]["kind"],
  text: string
): string | boolean | string[] | null => {
  if (kind === "list") {
    return text
      .split(/[\n,]/)
      .map((line) => line.trim())
      .filter(Boolean)
  }
  if (text === "true" || text === "false") return text === "true"
  return text.trim() === "" ? null : text.trim()
}

/**
 * The editable card-service settings (issue 18): medusa-config.ts gives the
 * defaults, what is saved here overrides them, and options locked in code
 * are shown read-only. The server checks everything again (and tries new
 * credentials at the service) before it saves; its refusal is shown as is.
 */
export function SettingsForm({
  fields,
  editable,
  secretsStorable,
}: {
  fields: AdminSettingField[]
  editable: boolean
  secretsStorable: boolean
}) {
  const byName = new Map(fields.map((field) => [field.name, field]))
  const [draft, setDraft] = useState<Draft>({})
  const [saved, setSaved] = useState(false)
  const [notice, setNotice] = useState<string | null>(null)
  const save = useSaveSettings()
  const prompt = usePrompt()

  const valueOf = (name: AdminSettingName) =>
    draft[name] ?? (byName.get(name)?.secret ? "" : asText(byName.get(name)))

  const changes = (): SettingsSave["settings"] => {
    const out: SettingsSave["settings"] = {}
    for (const spec of FIELDS) {
      const text = draft[spec.name]
      const field = byName.get(spec.name)
      if (text === undefined || !field || field.locked) continue
      if (spec.kind === "secret") {
        if (text !== "") out[spec.name] = text
        continue
      }
      if (text !== asText(field)) out[spec.name] = fromText(spec.kind, text)
    }
    return out
  }

  const submit = async () => {
    setSaved(false)
    setNotice(null)
    const settings = changes()
    if (!Object.keys(settings).length) return
    let confirmLive = false
    if (settings.mode === "live" && byName.get("mode")?.value !== "live") {
      confirmLive = await prompt({
        title: "Switch to live?",
        description:
          "In live mode the card service takes real payments with these credentials.",
        confirmText: "Switch to live",
        cancelText: "Cancel",
      })
      if (!confirmLive) {
        // Not switched: the field shows the mode in force again, and says so.
        setDraft(({ mode: _declined, ...rest }) => rest)
        setNotice(
          `Not switched to live: the mode stays ${byName.get("mode")?.value === "live" ? "Live" : "Test"}. Nothing was saved.`
        )
        return
      }
    }
    save.mutate(
      { settings, ...(confirmLive ? { confirm_live: true } : {}) },
      {
        onSuccess: () => {
          setDraft({})
          setSaved(true)
        },
      }
    )
  }

  return (
    <Container className="divide-y p-0" data-testid="card-service-settings-form">
      <div className="px-6 py-4">
        <Heading level="h2">Edit settings</Heading>
        <Text size="small" className="text-ui-fg-subtle mt-1">
          Saved settings override medusa-config.ts and take effect on every
          instance without a restart. Options locked in code are read-only.
        </Text>
        {!editable && (
          <Text size="small" className="text-ui-fg-subtle mt-2">
            The card-service settings module is not registered, so these
            settings come from medusa-config.ts only (see docs/admin.md).
          </Text>
        )}
      </div>
      {FIELDS.map((spec) => {
        const field = byName.get(spec.name)
        if (!field) return null
        const id = `card-service-setting-${spec.name}`
        const disabled =
          !editable || field.locked || (spec.kind === "secret" && !secretsStorable)
        const onChange = (text: string) => {
          setSaved(false)
          setNotice(null)
          setDraft((current) => ({ ...current, [spec.name]: text }))
        }
        const unsaved =
          draft[spec.name] !== undefined &&
          (spec.kind === "secret" ? draft[spec.name] !== "" : draft[spec.name] !== asText(field))
        let input: ReactNode
        if (spec.kind === "choice") {
          input = (
            <select
              id={id}
              name={spec.name}
              disabled={disabled}
              value={valueOf(spec.name)}
              onChange={(event) => onChange(event.target.value)}
              className="bg-ui-bg-field shadow-borders-base txt-compact-small h-8 rounded-md px-2 disabled:opacity-60"
            >
              {spec.choices!.map((choice) => (
                <option key={choice.value} value={choice.value}>
                  {choice.label}
                </option>
              ))}
            </select>
          )
        } else if (spec.kind === "list") {
          input = (
            <Textarea
              id={id}
              name={spec.name}
              disabled={disabled}
              value={valueOf(spec.name)}
              onChange={(event) => onChange(event.target.value)}
            />
          )
        } else {
          input = (
            <Input
              id={id}
              name={spec.name}
              type={spec.kind === "secret" ? "password" : "text"}
              autoComplete="off"
              disabled={disabled}
              placeholder={
                spec.kind === "secret" ? "Unchanged (type to replace)" : undefined
              }
              value={valueOf(spec.name)}
              onChange={(event) => onChange(event.target.value)}
            />
          )
        }
        return (
          <div key={spec.name} className="grid grid-cols-2 items-start gap-4 px-6 py-4">
            <div className="flex flex-col gap-1">
              <Label htmlFor={id} size="small" weight="plus">
                {spec.label}
              </Label>
              <FieldSource field={field} secretsStorable={secretsStorable} />
              {unsaved && (
                <Badge size="2xsmall" color="orange" className="w-fit" data-testid="card-service-setting-unsaved">
                  Not saved yet
                </Badge>
              )}
              {spec.hint && (
                <Text size="xsmall" className="text-ui-fg-subtle">
                  {spec.hint}
                </Text>
              )}
            </div>
            {input}
          </div>
        )
      })}
      <div className="flex flex-col gap-3 px-6 py-4">
        {save.error && (
          <Alert variant="error" data-testid="card-service-settings-error">
            {errorText(save.error)}
          </Alert>
        )}
        {notice && (
          <Text size="small" data-testid="card-service-settings-notice" role="status">
            {notice}
          </Text>
        )}
        {saved && (
          <Text size="small" data-testid="card-service-settings-saved">
            Saved. The new settings are in force.
          </Text>
        )}
        <div>
          <Button
            size="small"
            disabled={!editable}
            isLoading={save.isPending}
            onClick={submit}
          >
            Save settings
          </Button>
        </div>
      </div>
      <SettingsChanges />
    </Container>
  )
}

function FieldSource({
  field,
  secretsStorable,
}: {
  field: AdminSettingField
  secretsStorable: boolean
}) {
  if (field.locked) {
    return (
      <Badge size="2xsmall" color="grey" className="w-fit">
        Set in code
      </Badge>
    )
  }
  if (field.secret) {
    return (
      <Text size="xsmall" className="text-ui-fg-subtle">
        {field.set_at
          ? `Set here on ${new Date(field.set_at).toLocaleString()}`
          : "Set in medusa-config.ts"}
        {!secretsStorable && " (set CARD_SERVICE_SETTINGS_KEY to store one here)"}
      </Text>
    )
  }
  return (
    <Text size="xsmall" className="text-ui-fg-subtle">
      {field.source === "admin" ? "Saved here" : "From medusa-config.ts"}
    </Text>
  )
}
