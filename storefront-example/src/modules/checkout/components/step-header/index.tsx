"use client"

/** A step's title, with "Edit" when the step is done and closed. */
export default function StepHeader({
  title,
  done,
  open,
  onEdit,
  editTestId,
}: {
  title: string
  done: boolean
  open: boolean
  onEdit: () => void
  /** The starter's test id of the step's Edit button (edit-payment-button, ...). */
  editTestId?: string
}) {
  return (
    <div className="mb-4 flex items-center justify-between">
      <h2
        className={`flex items-center gap-2 text-2xl font-semibold ${
          !open && !done ? "text-ui-fg-muted" : ""
        }`}
      >
        {title}
        {done && !open ? <span aria-label="done">✓</span> : null}
      </h2>
      {done && !open ? (
        <button
          type="button"
          onClick={onEdit}
          data-testid={editTestId}
          className="text-sm text-ui-interactive hover:underline"
        >
          Edit
        </button>
      ) : null}
    </div>
  )
}
