import { Heading, Text } from "@medusajs/ui"
import { errorText, useSettingsChanges } from "../lib/card-service-api"
import { describeChange } from "../lib/setting-labels"

/**
 * The audit trail: who changed which setting and when, in the form's labels
 * (setting-labels.ts); for a secret only that it changed.
 */
export function SettingsChanges() {
  const { data, error } = useSettingsChanges()
  const changes = data?.changes ?? []
  return (
    <div className="flex flex-col gap-2 px-6 py-4" data-testid="card-service-settings-changes">
      <Heading level="h3">Changes</Heading>
      {error && (
        <Text size="small" className="text-ui-fg-error">
          Could not load the changes: {errorText(error)}
        </Text>
      )}
      {!error && changes.length === 0 && (
        <Text size="small" className="text-ui-fg-subtle">
          No setting has been changed here yet.
        </Text>
      )}
      {changes.map((change) => (
        <Text key={change.id} size="small">
          {new Date(change.created_at).toLocaleString()} -{" "}
          {change.actor_email ?? change.actor_id ?? "unknown"} changed{" "}
          <span className="font-medium">{describeChange(change)}</span>
        </Text>
      ))}
    </div>
  )
}
