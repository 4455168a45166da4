/** What the payment step shows for each provider id. */
export const paymentInfoMap: Record<string, { title: string }> = {
  "pp_card-service_card-service": { title: "Credit card" },
  pp_system_default: { title: "Manual payment" },
}

export const isCardService = (providerId?: string) =>
  !!providerId?.startsWith("pp_card-service")

export const isManual = (providerId?: string) =>
  !!providerId?.startsWith("pp_system_default")
