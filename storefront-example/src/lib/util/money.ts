export function convertToLocale({
  amount,
  currency_code,
  locale = "en-US",
}: {
  amount: number | null | undefined
  currency_code: string | null | undefined
  locale?: string
}): string {
  if (amount == null || !currency_code) return ""
  return new Intl.NumberFormat(locale, {
    style: "currency",
    currency: currency_code.toUpperCase(),
  }).format(amount)
}
