/**
 * The return route's own pages: a hop to the same URL (seconds 0), and the
 * waiting page while the payment has no verdict. Plain HTML with a meta
 * refresh and inline styles: no script, nothing of the store's build, so it
 * works with JavaScript off and under any CSS framework.
 */
export type WaitingPage = {
  /** Where the page goes next, same origin; null: it stays. */
  refreshTo: string | null
  seconds: number
  heading?: string
  message?: string
  link?: { href: string; text: string } | null
}

export function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) =>
      ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[
        c
      ]!
  )
}

export function waitingPage(page: WaitingPage): string {
  const refresh =
    page.refreshTo === null
      ? ""
      : `<meta http-equiv="refresh" content="${page.seconds};url=${escapeHtml(page.refreshTo)}">`
  const link = page.link
    ? `<p><a href="${escapeHtml(page.link.href)}">${escapeHtml(page.link.text)}</a></p>`
    : ""
  const body = page.message
    ? `<main><h1>${escapeHtml(page.heading ?? "")}</h1>` +
      `<p role="status" data-testid="payment-pending-message">${escapeHtml(page.message)}</p>${link}</main>`
    : ""
  return (
    `<!doctype html><html><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<meta name="robots" content="noindex">${refresh}<title>${escapeHtml(page.heading ?? "Payment")}</title>` +
    `<style>body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#18181b;background:#fafafa}` +
    `main{max-width:36rem;margin:0 auto;padding:4rem 1.5rem;line-height:1.5}h1{font-size:1.5rem;margin:0 0 1rem}` +
    `a{color:inherit}</style></head><body>${body}</body></html>`
  )
}
