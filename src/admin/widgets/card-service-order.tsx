import { defineWidgetConfig } from "@medusajs/admin-sdk"
import type { DetailWidgetProps, HttpTypes } from "@medusajs/framework/types"
import { ArrowPath } from "@medusajs/icons"
import {
  Alert,
  Button,
  Container,
  Heading,
  IconButton,
  StatusBadge,
  Text,
  toast,
  usePrompt,
} from "@medusajs/ui"
import { LoadError } from "../components/load-error"
import { SweepNotes } from "../components/needs-attention"
import { OutstandingPayment } from "../components/order-outstanding"
import { SectionRow } from "../components/section-row"
import {
  errorText,
  formatMoney,
  useOrderReview,
  usePaymentTransactions,
  useSettleUnknownRefund,
  useVoidTransaction,
  type TransactionRow,
} from "../lib/card-service-api"

// The provider id is pp_{identifier}_{id} (Medusa); the identifier is "card-service".
const PROVIDER_ID_PREFIX = "pp_card-service_"

/**
 * The order's card-service payments as the service records them, with the
 * one action Medusa's own payment UI lacks: voiding a capture or refund the
 * service has not yet sent to the processor. Renders nothing for orders paid
 * otherwise.
 */
const CardServiceOrderWidget = ({
  data: order,
}: DetailWidgetProps<HttpTypes.AdminOrder>) => {
  const payments = (order.payment_collections ?? [])
    .flatMap((collection) => collection.payments ?? [])
    .filter((payment) => payment.provider_id?.startsWith(PROVIDER_ID_PREFIX))
  return (
    <>
      <OutstandingPayment orderId={order.id} />
      <ReviewPanel orderId={order.id} />
      {payments.map((payment) => (
        <PaymentPanel key={payment.id} paymentId={payment.id} />
      ))}
    </>
  )
}

const REVIEW_TITLES: Record<string, { title: string; color: "orange" | "green" | "red" | "grey" }> = {
  on_hold: { title: "On hold: payment under review", color: "orange" },
  approved: { title: "Review approved", color: "green" },
  rejected: { title: "Review rejected: order canceled", color: "red" },
  expired: { title: "No verdict in time: order canceled", color: "red" },
  reversed: { title: "Approved too late: reversed", color: "grey" },
  not_canceled: { title: "Review not approved: act on this order", color: "red" },
  not_released: { title: "Approval not given back: look it up", color: "red" },
}

/**
 * An order placed on hold because its payment was marked for review (480):
 * what the merchant must know before fulfilling it, and what the verdict did.
 * Renders nothing for other orders.
 */
function ReviewPanel({ orderId }: { orderId: string }) {
  const { data } = useOrderReview(orderId)
  const review = data?.review
  if (!review) return null
  const { title, color } = REVIEW_TITLES[review.state]
  return (
    <Container className="divide-y p-0" data-testid="card-service-review">
      <div className="flex items-center justify-between px-6 py-4">
        <Heading level="h2">Card service review</Heading>
        <StatusBadge color={color}>{title}</StatusBadge>
      </div>
      <div className="px-6 py-4">
        {review.needs_action ? (
          <Alert variant="error">{review.message}</Alert>
        ) : (
          <Text size="small">{review.message}</Text>
        )}
      </div>
      <SectionRow title="On hold since" value={new Date(review.since).toLocaleString()} />
      {review.state === "on_hold" && (
        <SectionRow title="Canceled without a verdict at" value={new Date(review.deadline).toLocaleString()} />
      )}
      {review.decided_at && (
        <SectionRow
          title={
            review.state === "expired"
              ? "Closed without a verdict at"
              : review.state === "not_canceled"
                ? "Review closed at"
                : "Verdict settled at"
          }
          value={new Date(review.decided_at).toLocaleString()}
        />
      )}
    </Container>
  )
}

function PaymentPanel({ paymentId }: { paymentId: string }) {
  const { data, error, isLoading, isFetching, refetch } =
    usePaymentTransactions(paymentId)

  return (
    <Container className="divide-y p-0" data-testid="card-service-order-widget">
      <div className="flex items-center justify-between px-6 py-4">
        <div className="flex items-center gap-2">
          <Heading level="h2">Card service</Heading>
          {data?.payment.state && <StateBadge state={data.payment.state} />}
        </div>
        <IconButton
          size="small"
          variant="transparent"
          aria-label="Reload from the card service"
          disabled={isFetching}
          onClick={() => refetch()}
        >
          <ArrowPath />
        </IconButton>
      </div>
      <SweepNotes paymentId={paymentId} />
      {isLoading && (
        <div className="px-6 py-4">
          <Text size="small" className="text-ui-fg-subtle">
            Asking the card service...
          </Text>
        </div>
      )}
      {error && (
        <div className="flex flex-col gap-3 px-6 py-4">
          <LoadError testId="card-service-error" onRetry={() => refetch()}>
            {errorText(error)}
          </LoadError>
        </div>
      )}
      {data && <PaymentDetails paymentId={paymentId} data={data} />}
    </Container>
  )
}

function PaymentDetails({
  paymentId,
  data,
}: {
  paymentId: string
  data: NonNullable<ReturnType<typeof usePaymentTransactions>["data"]>
}) {
  const { payment, transactions } = data
  const card = transactions.find((t) => t.card)?.card
  const currency = payment.currency_code
  return (
    <>
      {data.problem && (
        <div className="px-6 py-4">
          <Alert variant="warning">{data.problem}</Alert>
        </div>
      )}
      {card && (
        <SectionRow title="Card" value={`${card.brand} ${card.masked}`} />
      )}
      {payment.service && (
        <SectionRow
          title="At the service"
          value={`${formatMoney(payment.service.captured, currency)} captured · ${formatMoney(payment.service.refunded, currency)} refunded`}
        />
      )}
      <SectionRow
        title="In Medusa"
        value={`${formatMoney(payment.medusa.captured, currency)} captured · ${formatMoney(payment.medusa.refunded, currency)} refunded`}
      />
      {payment.capture_note && (
        <div className="px-6 py-4" data-testid="card-service-capture-note">
          <Text size="small">{payment.capture_note}</Text>
        </div>
      )}
      {payment.notes.map((note) => (
        <div key={note} className="px-6 py-4">
          <Alert variant="warning">{note}</Alert>
        </div>
      ))}
      {transactions.map((row, index) => (
        <TransactionItem
          key={row.transaction_id ?? `unknown-${index}`}
          paymentId={paymentId}
          row={row}
        />
      ))}
    </>
  )
}

const OPERATION_LABEL: Record<TransactionRow["operation"], string> = {
  authorization: "Approval",
  capture: "Capture",
  refund: "Refund",
  void: "Void",
  reversal: "Reversal",
}

function TransactionItem({
  paymentId,
  row,
}: {
  paymentId: string
  row: TransactionRow
}) {
  const prompt = usePrompt()
  const voidTransaction = useVoidTransaction(paymentId)
  const label = OPERATION_LABEL[row.operation]

  const onVoid = async () => {
    const confirmed = await prompt({
      title: `Void this ${label.toLowerCase()}?`,
      description:
        row.operation === "capture"
          ? `The service has not sent this capture of ${formatMoney(row.amount, row.currency_code)} to the processor yet. Voiding it means no money is taken; Medusa will still show the payment as captured.`
          : `The service has not sent this refund of ${formatMoney(row.amount, row.currency_code)} to the processor yet. Voiding it means the customer does not get this money back; Medusa will still count the refund.`,
      confirmText: "Void",
      cancelText: "Cancel",
    })
    if (!confirmed || !row.transaction_id) return
    voidTransaction.mutate(row.transaction_id, {
      onSuccess: (result) =>
        toast.success(`${label} voided`, { description: result.medusa_note }),
      onError: (error) =>
        toast.error(`Could not void the ${label.toLowerCase()}`, {
          description: errorText(error),
        }),
    })
  }

  return (
    <div
      className="flex flex-col gap-2 px-6 py-4"
      data-testid="card-service-transaction"
    >
      <div className="flex items-center justify-between gap-2">
        <div className="flex items-center gap-2">
          <Text size="small" weight="plus" leading="compact">
            {label}
          </Text>
          {row.status && (
            <StatusBadge color={statusColor(row.status)}>
              {row.status}
            </StatusBadge>
          )}
          {row.capture_status && (
            <StatusBadge color={captureStatusColor(row.capture_status)}>
              {row.capture_status}
            </StatusBadge>
          )}
        </div>
        <Text size="small" weight="plus" leading="compact">
          {formatMoney(row.amount, row.currency_code)}
        </Text>
      </div>
      <Text
        size="xsmall"
        leading="compact"
        className="text-ui-fg-subtle font-mono"
      >
        {row.transaction_id ?? "no transaction id"}
      </Text>
      {row.reason && (
        <Text size="xsmall" leading="compact" className="text-ui-fg-subtle">
          {row.reason.code}
          {row.reason.flag ? ` ${row.reason.flag}` : ""}: {row.reason.meaning}
        </Text>
      )}
      {row.problem && (
        <Text size="xsmall" leading="compact" className="text-ui-fg-error">
          {row.problem}
        </Text>
      )}
      {row.unknown_refund_id && (
        <UnknownRefundAnswer
          paymentId={paymentId}
          refundId={row.unknown_refund_id}
          amount={formatMoney(row.amount, row.currency_code)}
        />
      )}
      {row.voidable ? (
        <div>
          <Button
            size="small"
            variant="secondary"
            isLoading={voidTransaction.isPending}
            onClick={onVoid}
          >
            Void {label.toLowerCase()}
          </Button>
        </div>
      ) : (
        row.not_voidable_reason &&
        !row.voided && (
          <Text size="xsmall" leading="compact" className="text-ui-fg-muted">
            Not voidable: {row.not_voidable_reason}
          </Text>
        )
      )}
    </div>
  )
}

/**
 * A refund the service never answered: the owner looks it up at the card
 * service and says what it shows. Until then no other refund of the payment
 * is sent, so that nothing is refunded twice.
 */
function UnknownRefundAnswer({
  paymentId,
  refundId,
  amount,
}: {
  paymentId: string
  refundId: string
  amount: string
}) {
  const prompt = usePrompt()
  const settle = useSettleUnknownRefund(paymentId)
  const answer = async (made: boolean) => {
    const confirmed = await prompt({
      title: made ? "The card service shows this refund" : "Refund now?",
      description: made
        ? `The refund of ${amount} is kept as made. Other refunds of this payment can be sent again.`
        : `The card service does not show the refund of ${amount}, so it is made now, once, under the same reference. Medusa already counts it.`,
      confirmText: made ? "It was made" : "Refund now",
      cancelText: "Cancel",
    })
    if (!confirmed) return
    settle.mutate(
      { refundId, made },
      {
        onSuccess: () =>
          toast.success(made ? "Refund kept as made" : `Refunded ${amount}`),
        onError: (error) =>
          toast.error("Could not settle the refund", {
            description: errorText(error),
          }),
      }
    )
  }
  return (
    <div className="flex flex-col gap-2" data-testid="card-service-unknown-refund">
      <Text size="xsmall" leading="compact">
        Look this refund up at the card service (Medusa refund {refundId}) and
        say what it shows:
      </Text>
      <div className="flex gap-2">
        <Button size="small" variant="secondary" isLoading={settle.isPending} onClick={() => answer(true)}>
          It was made
        </Button>
        <Button size="small" variant="secondary" isLoading={settle.isPending} onClick={() => answer(false)}>
          Not made: refund now
        </Button>
      </div>
    </div>
  )
}

function StateBadge({ state }: { state: string }) {
  const colors: Record<string, "green" | "orange" | "red" | "grey" | "blue"> = {
    authorized: "blue",
    captured: "green",
    pending: "orange",
    canceled: "grey",
    failed: "red",
  }
  return <StatusBadge color={colors[state] ?? "grey"}>{state}</StatusBadge>
}

function statusColor(status: NonNullable<TransactionRow["status"]>) {
  return status === "successful" ? "green" : "red"
}

function captureStatusColor(
  status: NonNullable<TransactionRow["capture_status"]>
) {
  switch (status) {
    case "PENDING":
      return "orange"
    case "TRANSMITTED":
      return "blue"
    case "VOIDED":
      return "grey"
    default:
      return "red"
  }
}

export const config = defineWidgetConfig({
  zone: "order.details.side.after",
})

export default CardServiceOrderWidget
