/** A message under a checkout step, announced to screen readers. */
export default function ErrorMessage({
  error,
  "data-testid": testId,
}: {
  error?: string | null
  "data-testid"?: string
}) {
  if (!error) return null
  return (
    <div
      role="alert"
      data-testid={testId}
      className="rounded-md border border-ui-error/30 bg-rose-50 px-4 py-3 text-sm text-ui-error"
    >
      {error}
    </div>
  )
}
