import { NextRequest, NextResponse } from "next/server"

const DEFAULT_REGION = process.env.NEXT_PUBLIC_DEFAULT_REGION || "de"

/**
 * As in the starter: every page lives under a country code. A path without
 * one is redirected (307, query kept) to the default country's. Also gives
 * each browser a cache id for the per-browser cache tags.
 */
export function middleware(request: NextRequest) {
  const { pathname } = request.nextUrl
  const hasCountry = /^\/[a-z]{2}(\/|$)/.test(pathname)
  const response = hasCountry
    ? NextResponse.next()
    : NextResponse.redirect(
        new URL(
          `/${DEFAULT_REGION}${pathname === "/" ? "" : pathname}${request.nextUrl.search}`,
          request.url
        ),
        307
      )
  if (!request.cookies.get("_medusa_cache_id")) {
    response.cookies.set("_medusa_cache_id", crypto.randomUUID(), {
      maxAge: 60 * 60 * 24,
    })
  }
  return response
}

export const config = {
  // Not /api, not Next's own files, not files with an extension.
  matcher: ["/((?!api|_next/static|_next/image|favicon.ico|.*\\..*).*)"],
}
