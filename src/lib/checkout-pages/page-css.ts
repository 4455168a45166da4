/**
 * The style of the hosted payment page and the checkout's message pages,
 * inlined under a nonce (the CSP allows no other style). Colours are chosen
 * for WCAG 2.1 AA: text at least 4.5:1 on its background, field borders and
 * the focus ring at least 3:1 (1.4.11), and a focus ring on every control
 * that the keyboard reaches (2.4.7). One column up to 32rem, so it reads on a
 * 320 px phone without sideways scrolling (1.4.10).
 */
export const PAGE_CSS = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f4f5;color:#18181b}
main{max-width:32rem;margin:0 auto;padding:.75rem 1rem 2rem;overflow-wrap:anywhere}
h1{font-size:1.375rem;line-height:1.25;margin:0}
h2{font-size:1rem;line-height:1.4;margin:0 0 .25rem}
p{margin:.5rem 0}
.muted{color:#52525b;font-size:.875rem;margin:.25rem 0 .75rem}
.notice{border:2px solid #b91c1c;border-radius:.5rem;background:#fef2f2;padding:.5rem .75rem;margin:0 0 .75rem}
.notice p{margin:0}
fieldset,.billing{border:1px solid #d4d4d8;border-radius:.5rem;background:#fff;margin:0 0 .75rem;padding:.5rem .75rem .75rem;min-width:0}
fieldset fieldset{border:0;border-radius:0;margin:0;padding:0}
legend{font-weight:600;padding:0 .25rem;margin-left:-.25rem}
fieldset fieldset legend{font-size:.875rem;margin:.75rem 0 0 -.25rem}
label{display:block;font-size:.875rem;font-weight:500;margin:.4rem 0 .15rem}
input,select{display:block;width:100%;margin:0;padding:.5rem .65rem;font:inherit;color:inherit;border:1px solid #71717a;border-radius:.375rem;background:#fff}
[aria-invalid=true]{border:2px solid #b91c1c}
.row{display:flex;gap:.75rem;align-items:flex-start}.row>*{flex:1;min-width:0}
.error{color:#b91c1c;font-size:.875rem;margin:.25rem 0 0}
.address{margin:.25rem 0;font-size:.9375rem}
summary{color:#1d4ed8;text-decoration:underline;cursor:pointer;padding:.25rem 0;width:max-content;max-width:100%}
details[open] summary{margin-bottom:.25rem}
button{display:block;width:100%;margin:0;padding:.8rem;font:inherit;font-size:1.0625rem;font-weight:600;color:#fff;background:#18181b;border:0;border-radius:.5rem;cursor:pointer}
button[disabled]{cursor:progress}
a{color:#1d4ed8}
:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}
input:focus-visible,select:focus-visible{outline-offset:0}
.back{margin:1rem 0 0;text-align:center}
.visually-hidden{position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
`
  .trim()
  .replace(/\n/g, "")

/**
 * The head both checkout pages share: charset, a phone-width viewport, no
 * referrer (the page's URL names the session), and the CSS under the
 * response's CSP nonce. Values are escaped by the caller's escaper.
 */
export function pageHead(
  escape: (value: string) => string,
  input: { lang: string; title: string; nonce: string }
): string {
  return `<!doctype html>
<html lang="${escape(input.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escape(input.title)}</title>
<style nonce="${escape(input.nonce)}">${PAGE_CSS}</style>
</head>`
}
