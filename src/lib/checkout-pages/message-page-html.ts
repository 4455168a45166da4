import { escapeHtml } from "./escape-html"
import { pageHead } from "./page-css"

/** A page with a title and a sentence, for sessions that cannot be paid. */
export function renderMessagePage(input: {
  title: string
  message: string
  nonce: string
  /** The BCP 47 tag of the language the title and message are in. */
  lang: string
  link?: { href: string; text: string }
}): string {
  const link = input.link
    ? `<p><a href="${escapeHtml(input.link.href)}">${escapeHtml(input.link.text)}</a></p>`
    : ""
  return `${pageHead(escapeHtml, input)}
<body>
<main>
<h1>${escapeHtml(input.title)}</h1>
<p>${escapeHtml(input.message)}</p>
${link}
</main>
</body>
</html>`
}

export function messagePageCsp(nonce: string): string {
  return [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ")
}
