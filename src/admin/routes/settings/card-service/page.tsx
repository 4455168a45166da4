import { defineRouteConfig } from "@medusajs/admin-sdk"
import { CreditCard } from "@medusajs/icons"
import {
  Alert,
  Badge,
  Button,
  Container,
  Copy,
  Heading,
  StatusBadge,
  Text,
} from "@medusajs/ui"
import { Link } from "react-router-dom"
import { LoadError } from "../../../components/load-error"
import { NeedsAttention } from "../../../components/needs-attention"
import { PaymentsAtAGlance } from "../../../components/payments-at-a-glance"
import { SectionRow } from "../../../components/section-row"
import { SettingsForm } from "../../../components/settings-form"
import {
  errorText,
  useCardServiceSettings,
  useTestConnection,
  type ProviderSettings,
  type RegionLink,
} from "../../../lib/card-service-api"
import { settingsOrigin } from "../../../lib/setting-labels"

/**
 * Settings > Card service: how the provider is configured (medusa-config.ts
 * overridden by what the form below saved), which regions offer it, a
 * connection test, and the settings form with its trail.
 */
const CardServiceSettingsPage = () => {
  const { data, isLoading, error, refetch } = useCardServiceSettings()

  if (isLoading) {
    return (
      <Container className="px-6 py-4">
        <Text size="small" className="text-ui-fg-subtle">
          Loading the card-service settings...
        </Text>
      </Container>
    )
  }
  if (error || !data) {
    return (
      <Container className="flex flex-col gap-3 px-6 py-4">
        <LoadError onRetry={() => refetch()}>
          Could not load the card-service settings: {errorText(error)}
        </LoadError>
      </Container>
    )
  }
  if (data.providers.length === 0) {
    return (
      <Container className="px-6 py-4">
        <Heading level="h1">Card service</Heading>
        <Text size="small" className="text-ui-fg-subtle mt-2">
          No card-service provider is configured. Add it under the payment
          module's providers in medusa-config.ts.
        </Text>
      </Container>
    )
  }
  return (
    <div className="flex flex-col gap-y-3" data-testid="card-service-settings">
      <PaymentsAtAGlance />
      <NeedsAttention />
      {data.providers.map((provider) => (
        <ProviderSection
          key={provider.id}
          provider={provider}
          origin={settingsOrigin(data.admin_settings.fields)}
        />
      ))}
      <SettingsForm
        fields={data.admin_settings.fields}
        editable={data.admin_settings.editable}
        secretsStorable={data.admin_settings.secrets_storable}
      />
    </div>
  )
}

function ProviderSection({
  provider,
  origin,
}: {
  provider: ProviderSettings
  /** Where the settings in force come from (setting-labels.ts). */
  origin: string
}) {
  return (
    <>
      <Container className="divide-y p-0">
        <div className="flex items-start justify-between gap-4 px-6 py-4">
          <div>
            <Heading level="h1">Card service</Heading>
            <Text size="small" className="text-ui-fg-subtle" data-testid="card-service-settings-origin">
              Card payments with 3-D Secure. {origin} Secrets are never shown.
            </Text>
          </div>
          <StatusBadge color={provider.mode === "live" ? "green" : "orange"}>
            {provider.mode === "live" ? "Live" : "Test mode"}
          </StatusBadge>
        </div>
        <ConnectionTest provider={provider} />
        <SectionRow title="Provider" value={<Code>{provider.id}</Code>} />
        <SectionRow
          title={
            provider.mode === "live"
              ? "Service address (live)"
              : "Service address (test)"
          }
          value={<Code>{provider.service_url}</Code>}
        />
        <SectionRow
          title="Merchant ID"
          value={<Code>{provider.merchant_id}</Code>}
        />
        <SectionRow
          title="Verify ID"
          value={<Code>{provider.verify_id}</Code>}
        />
        <SectionRow
          title="Capture"
          value={
            provider.auto_capture
              ? "Automatic, right after approval"
              : "Manual, from the order"
          }
        />
        <SectionRow
          title="3-D Secure"
          value={provider.windowed ? "In a new window" : "On the same page"}
        />
        <SectionRow
          title="After failed 3-D Secure"
          value={
            provider.redirect_on_failure
              ? "Shopper returns to the store"
              : "Shopper stays on the service's page"
          }
        />
      </Container>

      <Container className="divide-y p-0">
        <div className="px-6 py-4">
          <Heading level="h2">Addresses handed out</Heading>
          <Text size="small" className="text-ui-fg-subtle">
            Sent with every payment form; {"{session_id}"} is Medusa's payment
            session. The card service must be able to reach the callback
            address.
          </Text>
        </div>
        <UrlRow title="Callback (result)" url={provider.urls.callback} />
        <UrlRow title="Return (browser)" url={provider.urls.return} />
        <UrlRow title="Hosted payment page" url={provider.urls.pay_page} />
        <UrlRow
          title="Form fields (storefront)"
          url={provider.urls.form_fields}
        />
        <UrlRow
          title="Storefront after payment"
          url={provider.urls.storefront_return}
        />
        {provider.urls.allowed_return_origins.length > 0 && (
          <SectionRow
            title="Other allowed return origins"
            value={provider.urls.allowed_return_origins.join(", ")}
          />
        )}
      </Container>

      <Container className="divide-y p-0">
        <div className="px-6 py-4">
          <Heading level="h2">Regions</Heading>
          <Text size="small" className="text-ui-fg-subtle">
            Shoppers can pay with the card service only in regions that list it
            as a payment provider.
          </Text>
        </div>
        {provider.regions_enabled.length === 0 && (
          <div className="px-6 py-4">
            <Alert variant="warning">
              No region offers the card service yet: enable it in a region
              below.
            </Alert>
          </div>
        )}
        {provider.regions_enabled.map((region) => (
          <RegionRow key={region.id} region={region} enabled />
        ))}
        {provider.regions_not_enabled.map((region) => (
          <RegionRow key={region.id} region={region} enabled={false} />
        ))}
      </Container>
    </>
  )
}

function ConnectionTest({ provider }: { provider: ProviderSettings }) {
  const test = useTestConnection()
  const result = test.data
  return (
    <div className="flex flex-col gap-3 px-6 py-4">
      <div className="flex items-center justify-between gap-4">
        <Text
          size="small"
          weight="plus"
          leading="compact"
          className="text-ui-fg-subtle"
        >
          Connection
        </Text>
        <Button
          size="small"
          variant="secondary"
          isLoading={test.isPending}
          onClick={() => test.mutate(provider.id)}
        >
          Test connection
        </Button>
      </div>
      {result?.ok === true && (
        <Alert variant="success" data-testid="card-service-connection-result">
          Connected: the service issued a merchant verification code in{" "}
          {result.latency_ms} ms (
          {new Date(result.checked_at).toLocaleTimeString()}).
        </Alert>
      )}
      {result?.ok === false && (
        <Alert variant="error" data-testid="card-service-connection-result">
          Connection failed ({result.error.category}
          {result.error.http_status ? `, HTTP ${result.error.http_status}` : ""}
          ): {result.error.message}
        </Alert>
      )}
      {test.error && (
        <Alert variant="error" data-testid="card-service-connection-result">
          The test could not run: {errorText(test.error)}
        </Alert>
      )}
    </div>
  )
}

function UrlRow({ title, url }: { title: string; url: string }) {
  return (
    <SectionRow
      title={title}
      value={
        <span className="flex min-w-0 items-center gap-1">
          <Code>{url}</Code>
          <Copy content={url} className="text-ui-fg-muted" />
        </span>
      }
    />
  )
}

function RegionRow({
  region,
  enabled,
}: {
  region: RegionLink
  enabled: boolean
}) {
  return (
    <div className="text-ui-fg-subtle grid grid-cols-[1fr_auto] items-center gap-4 px-6 py-4">
      <div className="flex min-w-0 flex-col">
        <Link
          to={region.admin_path}
          className="txt-compact-small-plus text-ui-fg-base hover:underline"
        >
          {region.name}
        </Link>
        <Text size="small" leading="compact">
          {region.currency_code.toUpperCase()}
          {region.countries.length > 0 &&
            ` · ${region.countries.map((c) => c.toUpperCase()).join(", ")}`}
        </Text>
      </div>
      {enabled ? (
        <Badge size="2xsmall" color="green">
          Enabled
        </Badge>
      ) : (
        <Button size="small" variant="transparent" asChild>
          <Link to={`${region.admin_path}/edit`}>Enable</Link>
        </Button>
      )}
    </div>
  )
}

function Code({ children }: { children: string }) {
  return (
    <span className="txt-compact-small font-mono break-all">{children}</span>
  )
}

export const config = defineRouteConfig({
  label: "Card service",
  icon: CreditCard,
})

export default CardServiceSettingsPage
