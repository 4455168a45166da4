import {
  Badge,
  Button,
  Container,
  Heading,
  StatusBadge,
  Text,
} from "@medusajs/ui"
import {
  errorText,
  useReconciliation,
  useRunSweep,
  type ReconcileEntry,
} from "../lib/card-service-api"
import { attentionSummary } from "../lib/attention-summary"
import { statusLabel } from "../lib/status-label"
import { LoadError } from "./load-error"

/**
 * Who acted: the sweep, or a review's verdict settled as it came in. "Actions
 * by the sweep" in Payments at a glance counts only the first.
 */
const ACTED_BY: Record<ReconcileEntry["acted_by"], string> = {
  sweep: "by the sweep",
  callback: "on the service's callback",
  return: "on the shopper's return",
  poll: "on the storefront's poll",
}

/**
 * What the reconciliation sweep found (docs/reconciliation.md), on the
 * settings page: cases the store owner must act on first (outcome unknown,
 * a failed or unconfirmed capture, a refund of unknown outcome, a change
 * made at the service, an approval the service would not release), then what it settled, each with its age, the
 * action taken or needed and the references to look up.
 */
export function NeedsAttention() {
  const { data, error, refetch } = useReconciliation()
  const entries = data?.entries ?? []
  const summary = attentionSummary(entries)
  const sweep = useRunSweep()
  return (
    <Container className="divide-y p-0" data-testid="card-service-attention">
      <div className="flex items-center justify-between gap-2 px-6 py-4">
        <Heading level="h2">Needs attention</Heading>
        <div className="flex items-center gap-2">
          <Badge
            size="2xsmall"
            color={summary.needAction ? "orange" : "green"}
            data-testid="card-service-attention-count"
          >
            {summary.text}
          </Badge>
          <Button
            size="small"
            variant="secondary"
            isLoading={sweep.isPending}
            onClick={() => sweep.mutate()}
          >
            Sweep now
          </Button>
        </div>
      </div>
      {(sweep.data || sweep.error) && (
        <Text
          size="small"
          className="text-ui-fg-subtle px-6 py-3"
          data-testid="card-service-sweep-result"
          role="status"
        >
          {sweep.error
            ? `The sweep could not run: ${errorText(sweep.error)}`
            : sweep.data?.ran
              ? `The sweep looked at ${sweep.data.examined} payment(s) and session(s) and did ${sweep.data.actions.length} thing(s)${sweep.data.serviceDown ? "; the card service was unavailable" : ""}.`
              : "Another sweep is running, or the card service was unavailable moments ago: try again shortly."}
        </Text>
      )}
      {error ? (
        <div className="px-6 py-4">
          <LoadError onRetry={() => refetch()}>
            Could not load the reconciliation list: {errorText(error)}
          </LoadError>
        </div>
      ) : entries.length === 0 ? (
        <Text size="small" className="text-ui-fg-subtle px-6 py-4">
          The reconciliation sweep has found nothing to report.
        </Text>
      ) : (
        entries.map((entry) => (
          <ReconcileEntryRow key={entryKey(entry)} entry={entry} />
        ))
      )}
    </Container>
  )
}

/** What the sweep did to one payment and its session, for the order widget. */
export function SweepNotes({ paymentId }: { paymentId: string }) {
  const { data } = useReconciliation(paymentId)
  const entries = data?.entries ?? []
  if (entries.length === 0) return null
  return (
    <div data-testid="card-service-sweep">
      {entries.map((entry) => (
        <ReconcileEntryRow key={entryKey(entry)} entry={entry} />
      ))}
    </div>
  )
}

/** A payment can carry a capture note and a refund note: the status tells them apart. */
function entryKey(entry: ReconcileEntry): string {
  return `${entry.kind}-${entry.id}-${entry.status}`
}

/** One case: whether the store owner must act, what, how long ago, and what to look up. */
function ReconcileEntryRow({ entry }: { entry: ReconcileEntry }) {
  return (
    <div
      className="flex flex-col gap-1 px-6 py-3"
      data-testid="reconcile-entry"
    >
      <div className="flex flex-wrap items-center gap-2">
        <StatusBadge color={entry.needs_action ? "orange" : "green"}>
          {entry.needs_action ? "Action needed" : `Action taken ${ACTED_BY[entry.acted_by]}`}
        </StatusBadge>
        <Text size="small" weight="plus">
          {statusLabel(entry.status)}
          {entry.review ? ` (${entry.review.replace(/_/g, " ")})` : ""}
        </Text>
        <Text size="small" className="text-ui-fg-subtle">
          {entry.kind} <Mono>{entry.id}</Mono>,{" "}
          <span data-testid="reconcile-age">{formatAge(entry.age_ms)} ago</span>
        </Text>
      </div>
      <Text size="small">{entry.message}</Text>
      {entry.references.length > 0 && (
        <Text size="small" className="text-ui-fg-subtle">
          Look up at the card service:{" "}
          {entry.references.map((reference) => (
            <span key={reference} className="mr-2">
              <Mono>{reference}</Mono>
            </span>
          ))}
        </Text>
      )}
    </div>
  )
}

export function formatAge(ms: number): string {
  const minutes = Math.floor(ms / 60_000)
  if (minutes < 60) return `${minutes} min`
  const hours = Math.floor(minutes / 60)
  if (hours < 48) return `${hours} h`
  return `${Math.floor(hours / 24)} days`
}

function Mono({ children }: { children: string }) {
  return (
    <span className="txt-compact-small font-mono break-all">{children}</span>
  )
}
