import { Button, Container, Heading, Text } from "@medusajs/ui"
import type { ReactNode } from "react"
import {
  errorText,
  useGlanceFigures,
  type GlanceWindow,
} from "../lib/card-service-api"
import { statusLabel } from "../lib/status-label"
import { LoadError } from "./load-error"

const OPERATION_LABEL: Record<string, string> = {
  authorize: "Verification code (GET /authorize)",
  retrieve: "Retrieve a transaction",
  capture: "Capture",
  refund: "Refund",
  reverse: "Reverse an approval",
  void: "Void",
}

const percent = (rate: number | null) =>
  rate === null ? "-" : `${(rate * 100).toFixed(rate === 1 || rate === 0 ? 0 : 1)}%`

const ms = (value: number) => `${value < 10 ? value.toFixed(1) : Math.round(value)} ms`

/**
 * "Payments at a glance" on the settings page: the last 24 hours and 7
 * days, from the database (GET /admin/card-service/figures), so every
 * instance shows the same. Results count each transaction once, by what it
 * finally was (a review by its verdict); "started" counts payment sessions;
 * the sweep's actions carry the words Needs attention uses.
 */
export function PaymentsAtAGlance() {
  const { data, error, refetch, isFetching } = useGlanceFigures()
  return (
    <Container className="divide-y p-0" data-testid="card-service-glance">
      <div className="flex items-center justify-between gap-2 px-6 py-4">
        <div>
          <Heading level="h2">Payments at a glance</Heading>
          <Text size="small" className="text-ui-fg-subtle">
            Card-service payments of the last 24 hours and 7 days, on every
            instance of the store.
          </Text>
        </div>
        <Button size="small" variant="secondary" isLoading={isFetching} onClick={() => refetch()}>
          Refresh
        </Button>
      </div>
      {error ? (
        <div className="px-6 py-4">
          <LoadError onRetry={() => refetch()}>
            Could not load the figures: {errorText(error)}
          </LoadError>
        </div>
      ) : !data ? (
        <Text size="small" className="text-ui-fg-subtle px-6 py-4">
          Loading the figures...
        </Text>
      ) : (
        <Figures windows={data.windows} recording={data.recording} abandonedAfter={data.abandoned_after_minutes} />
      )}
    </Container>
  )
}

function Figures({
  windows,
  recording,
  abandonedAfter,
}: {
  windows: GlanceWindow[]
  recording: boolean
  abandonedAfter: number
}) {
  const row = (key: string, label: ReactNode, cell: (w: GlanceWindow) => ReactNode) => (
    <tr key={key} data-testid={`glance-${key}`} className="border-ui-border-base border-t">
      <th scope="row" className="txt-compact-small-plus text-ui-fg-subtle px-6 py-2 text-left font-normal">
        {label}
      </th>
      {windows.map((w) => (
        <td key={w.window} data-window={w.window} className="txt-compact-small px-6 py-2 align-top">
          {cell(w)}
        </td>
      ))}
    </tr>
  )
  const operations = [...new Set(windows.flatMap((w) => w.latency.map((l) => l.operation)))]
  return (
    <div className="flex flex-col gap-4 py-4">
      {!recording && (
        <Text size="small" className="text-ui-fg-subtle px-6">
          The card-service activity module is not registered, so only payments
          started and abandoned can be counted (see docs/observability.md).
        </Text>
      )}
      <table className="w-full" data-testid="glance-payments">
        <WindowsHead title="Payments" windows={windows} />
        <tbody>
          {row("started", "Started", (w) => w.started)}
          {row("approved", "Approved", (w) => w.approved)}
          {row("declined", "Declined", (w) => (
            <>
              <span>{w.declined}</span>
              {w.top_declines.length > 0 && (
                <ul className="text-ui-fg-subtle mt-1">
                  {w.top_declines.map((reason) => (
                    <li key={reason.reason_code}>
                      {reason.reason} ({reason.reason_code}): {reason.count}
                    </li>
                  ))}
                </ul>
              )}
            </>
          ))}
          {row("three-ds-failed", "3-D Secure failed", (w) => w.three_ds_failed)}
          {row("errors", "Service errors", (w) => w.errors)}
          {row("approval-rate", "Approval rate", (w) =>
            w.approval_rate === null
              ? "-"
              : `${percent(w.approval_rate)} (${w.approved} of ${w.decided} decided)`
          )}
          {row("on-hold", "On hold for review now", (w) => w.on_hold)}
          {row("review-expired", "Review expired (no verdict in time)", (w) => w.review_expired)}
          {row("abandoned", `Abandoned (no result after ${abandonedAfter} min)`, (w) => w.abandoned)}
          {row("callbacks-refused", "Callbacks refused (not a result, or no such session)", (w) => w.callbacks_refused)}
          {row("callbacks-ignored", "Callbacks ignored (no payment of the session: forged or replayed)", (w) => w.callbacks_ignored)}
          {row("callbacks-unavailable", "Callbacks answered 503 (the service delivers them again)", (w) => w.callbacks_unavailable)}
          {row("sweep-actions", "Actions by the sweep", (w) => (
            <>
              <span>{w.sweep_actions}</span>
              {w.sweep_by_status.length > 0 && (
                <span className="text-ui-fg-subtle">
                  {" "}
                  ({w.sweep_by_status.map((s) => `${statusLabel(s.status)}: ${s.count}`).join(", ")})
                </span>
              )}
            </>
          ))}
        </tbody>
      </table>
      <table className="w-full" data-testid="glance-latency">
        <WindowsHead title="Service latency, p50 / p95" windows={windows} />
        <tbody>
          {operations.length === 0 &&
            row("latency-none", "No call to the service yet", () => "-")}
          {operations.map((operation) =>
            row(`latency-${operation}`, OPERATION_LABEL[operation] ?? operation, (w) => {
              const found = w.latency.find((l) => l.operation === operation)
              return found
                ? `${ms(found.p50_ms)} / ${ms(found.p95_ms)} (${found.calls} call${found.calls === 1 ? "" : "s"})`
                : "-"
            })
          )}
        </tbody>
      </table>
    </div>
  )
}

/** A table's head: what its rows are, then one column per window. */
function WindowsHead({ title, windows }: { title: string; windows: GlanceWindow[] }) {
  const th = "txt-compact-small-plus px-6 py-2 text-left"
  return (
    <thead>
      <tr>
        <th scope="col" className={th}>
          {title}
        </th>
        {windows.map((w) => (
          <th key={w.window} scope="col" className={th}>
            {w.window === "24h" ? "Last 24 hours" : "Last 7 days"}
          </th>
        ))}
      </tr>
    </thead>
  )
}
