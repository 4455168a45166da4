import {
  Alert,
  Button,
  Container,
  Copy,
  Heading,
  Input,
  StatusBadge,
  Text,
  toast,
} from "@medusajs/ui"
import {
  errorText,
  formatMoney,
  useNewOutstandingLink,
  useOrderOutstanding,
} from "../lib/card-service-api"

/**
 * An order edited up owes the difference, which Medusa waits for in a
 * payment collection of its own. This says so in plain words and gives the
 * store owner a link to the plugin's payment page to send the customer
 * (docs/admin.md, "When an order is edited up"). Renders nothing when the
 * order owes nothing.
 */
export function OutstandingPayment({ orderId }: { orderId: string }) {
  const { data } = useOrderOutstanding(orderId)
  const newLink = useNewOutstandingLink(orderId)
  const outstanding = data?.outstanding
  if (!outstanding) return null
  const owed = formatMoney(outstanding.amount, outstanding.currency_code)
  const link = outstanding.link

  const makeLink = () =>
    newLink.mutate(undefined, {
      onSuccess: () =>
        toast.success("Payment link ready", {
          description: "Copy it and send it to the customer.",
        }),
      onError: (error) =>
        toast.error("Could not make a payment link", {
          description: errorText(error),
        }),
    })

  return (
    <Container className="divide-y p-0" data-testid="card-service-outstanding">
      <div className="flex items-center justify-between px-6 py-4">
        <Heading level="h2">Amount to collect</Heading>
        <StatusBadge color="orange">{owed} unpaid</StatusBadge>
      </div>
      <div className="flex flex-col gap-2 px-6 py-4">
        <Text size="small">
          This order was changed after it was paid, and the customer now owes{" "}
          {owed} more. Send the customer a link to your payment page: they pay
          the {owed} by card there, and the payment then shows on this order as
          authorized. Capture it as you capture any other payment.
        </Text>
      </div>
      {!outstanding.provider_id ? (
        <div className="px-6 py-4">
          <Alert variant="warning">
            The order's region does not offer card payments through the card
            service, so no link can be made here. Add the card service to the
            region under Settings, Regions, or collect the amount another way.
          </Alert>
        </div>
      ) : link && !link.out_of_date ? (
        <div className="flex flex-col gap-3 px-6 py-4">
          <div className="flex items-center gap-2">
            <Input
              readOnly
              aria-label="Payment link"
              data-testid="card-service-outstanding-link"
              value={link.pay_url}
              onFocus={(event) => event.currentTarget.select()}
            />
            {/* Copy labels its button "Copy code snippet" unless told otherwise. */}
            <Copy content={link.pay_url} asChild aria-label="Copy link">
              <Button size="small" variant="secondary">
                Copy link
              </Button>
            </Copy>
          </div>
          <Text size="xsmall" className="text-ui-fg-subtle">
            Made {new Date(link.created_at).toLocaleString()}. The link works
            until the customer has paid. Making a new link stops this one from
            working.
          </Text>
          <div>
            <Button
              size="small"
              variant="secondary"
              isLoading={newLink.isPending}
              onClick={makeLink}
            >
              Make a new link
            </Button>
          </div>
        </div>
      ) : (
        <div className="flex flex-col gap-3 px-6 py-4">
          {link?.out_of_date && (
            <Alert variant="warning">
              The link made earlier asks for a different amount than the order
              owes now (the order was changed again), so it no longer works.
              Make a new link and send that one.
            </Alert>
          )}
          <div>
            <Button
              size="small"
              variant="primary"
              isLoading={newLink.isPending}
              onClick={makeLink}
            >
              {link ? "Make a new link" : "Create payment link"}
            </Button>
          </div>
        </div>
      )}
    </Container>
  )
}
