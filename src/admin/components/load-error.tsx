import { Alert, Button } from "@medusajs/ui"
import type { ReactNode } from "react"

/** A load that failed: what went wrong, and a button that asks again. */
export function LoadError({
  children,
  onRetry,
  testId,
}: {
  children: ReactNode
  onRetry: () => void
  testId?: string
}) {
  return (
    <>
      <Alert variant="error" data-testid={testId}>
        {children}
      </Alert>
      <div>
        <Button size="small" variant="secondary" onClick={onRetry}>
          Try again
        </Button>
      </div>
    </>
  )
}
