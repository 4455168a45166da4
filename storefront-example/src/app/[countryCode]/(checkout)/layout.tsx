import Link from "next/link"

export default async function CheckoutLayout({
  children,
  params,
}: {
  children: React.ReactNode
  params: Promise<{ countryCode: string }>
}) {
  const { countryCode } = await params
  return (
    <>
      <header className="border-b border-ui-border">
        <nav className="mx-auto flex h-16 max-w-content items-center justify-between px-6">
          <Link
            href={`/${countryCode}/cart`}
            className="text-sm text-ui-fg-subtle hover:text-ui-fg"
          >
            ‹ <span className="hidden sm:inline">Back to shopping cart</span>
            <span className="sm:hidden">Back</span>
          </Link>
          <span className="text-lg font-semibold">Example Store</span>
          <span className="w-12 sm:w-40" />
        </nav>
      </header>
      <main className="mx-auto max-w-content px-4 py-8 sm:px-6">
        {children}
      </main>
    </>
  )
}
