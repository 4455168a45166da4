import CardServicePending from "@modules/checkout/components/card-service-pending"

export default async function CardServicePendingPage({
  params,
  searchParams,
}: {
  params: Promise<{ countryCode: string }>
  searchParams: Promise<{ session_id?: string }>
}) {
  const { countryCode } = await params
  const { session_id } = await searchParams
  return (
    <CardServicePending
      countryCode={countryCode}
      sessionId={session_id ?? ""}
      backendUrl={process.env.NEXT_PUBLIC_MEDUSA_BACKEND_URL!}
      publishableKey={process.env.NEXT_PUBLIC_MEDUSA_PUBLISHABLE_KEY!}
    />
  )
}
