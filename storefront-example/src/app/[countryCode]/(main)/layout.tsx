import Link from "next/link"
import { retrieveCart } from "@lib/data/cart"

export default async function MainLayout({
  children,
  params,
}: {
  children: React.ReactNode
  params: Promise<{ countryCode: string }>
}) {
  const { countryCode } = await params
  const cart = await retrieveCart()
  const count = cart?.items?.reduce((n, item) => n + item.quantity, 0) ?? 0
  return (
    <>
      <header className="border-b border-ui-border">
        <nav className="mx-auto flex h-16 max-w-content items-center justify-between px-6">
          <Link href={`/${countryCode}`} className="text-lg font-semibold">
            Example Store
          </Link>
          <Link
            href={`/${countryCode}/cart`}
            className="text-sm text-ui-fg-subtle hover:text-ui-fg"
            data-testid="nav-cart-link"
          >
            Cart ({count})
          </Link>
        </nav>
      </header>
      <main className="mx-auto max-w-content px-6 py-10">{children}</main>
    </>
  )
}
