import { notFound } from "next/navigation"
import { listProducts } from "@lib/data/products"
import { getRegion } from "@lib/data/regions"
import { convertToLocale } from "@lib/util/money"
import AddToCart from "@modules/products/add-to-cart"

export default async function StorePage({
  params,
}: {
  params: Promise<{ countryCode: string }>
}) {
  const { countryCode } = await params
  const region = await getRegion(countryCode)
  if (!region) notFound()
  const products = await listProducts(region.id)
  return (
    <div className="flex flex-col gap-8">
      <h1 className="text-2xl font-semibold">All products</h1>
      <ul className="grid grid-cols-1 gap-6 sm:grid-cols-2 md:grid-cols-3">
        {products.map((product) => {
          const variant = product.variants?.[0]
          const price = variant?.calculated_price
          return (
            <li
              key={product.id}
              className="flex flex-col gap-3 rounded-lg border border-ui-border p-5"
            >
              <h2 className="text-lg font-medium">{product.title}</h2>
              <p className="text-sm text-ui-fg-subtle">{product.description}</p>
              <p className="text-base">
                {convertToLocale({
                  amount: price?.calculated_amount,
                  currency_code: price?.currency_code,
                })}
              </p>
              {variant ? (
                <AddToCart variantId={variant.id} countryCode={countryCode} />
              ) : null}
            </li>
          )
        })}
      </ul>
    </div>
  )
}
