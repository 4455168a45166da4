import { Text } from "@medusajs/ui"
import type { ReactNode } from "react"

/** A label and its value, laid out like the rows of Medusa's own detail sections. */
export function SectionRow({
  title,
  value,
}: {
  title: string
  value: ReactNode
}) {
  return (
    <div className="text-ui-fg-subtle grid w-full grid-cols-2 items-center gap-4 px-6 py-4">
      <Text size="small" weight="plus" leading="compact">
        {title}
      </Text>
      {typeof value === "string" || value === null || value === undefined ? (
        <Text size="small" leading="compact" className="break-words">
          {value || "-"}
        </Text>
      ) : (
        <div className="txt-compact-small flex min-w-0 flex-wrap items-center gap-1">
          {value}
        </div>
      )}
    </div>
  )
}
