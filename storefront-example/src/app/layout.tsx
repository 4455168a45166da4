import type { Metadata } from "next"
import "./globals.css"

export const metadata: Metadata = {
  title: "Card service example store",
}

// Built once without a backend and started against one (the browser test
// does that), so nothing is prerendered at build time.
export const dynamic = "force-dynamic"

export default function RootLayout({
  children,
}: {
  children: React.ReactNode
}) {
  return (
    <html lang="en">
      <body className="bg-ui-bg text-ui-fg antialiased">{children}</body>
    </html>
  )
}
