/**
 * The few pages the sandbox shows a shopper. Section 1 says the service has
 * no user interface of its own; these stand in for the issuer's 3DS pages and
 * for the answers a browser gets when a request cannot be processed. Every
 * page works without JavaScript: plain forms and links. They fit a 320 px
 * phone: long values (an order reference has no spaces) wrap.
 */

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;")
}

function page(title: string, body: string, script = ""): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
*{box-sizing:border-box}
body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#1f2933;overflow-wrap:anywhere}
h1{font-size:1.4rem}button{font-size:1rem;padding:.6rem 1.5rem;margin:.25rem .25rem .25rem 0}
dl{display:grid;grid-template-columns:auto minmax(0,1fr);gap:.25rem 1rem}dt{font-weight:600}dd{margin:0;min-width:0}
.note{color:#52606d;font-size:.9rem}.inline{display:inline-block}
:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}
</style>
</head>
<body>
${body}
${script ? `<script>${script}</script>` : ""}
</body>
</html>
`
}

export function errorPage(
  title: string,
  message: string,
  details: Record<string, string> = {}
): string {
  const rows = Object.entries(details)
    .map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`)
    .join("")
  return page(
    title,
    `<h1>${escapeHtml(title)}</h1>
<p id="message">${escapeHtml(message)}</p>
${rows ? `<dl>${rows}</dl>` : ""}`
  )
}

export function challengePage(options: {
  action: string
  merchantReferenceCode: string
  amount: string
  cardSuffix: string
}): string {
  const action = escapeHtml(options.action)
  return page(
    "3-D Secure authentication",
    `<h1>3-D Secure authentication (sandbox)</h1>
<p>The card service sandbox stands in for the card issuer. Choose the result of the authentication.</p>
<dl>
<dt>Order</dt><dd>${escapeHtml(options.merchantReferenceCode)}</dd>
<dt>Amount</dt><dd>${escapeHtml(options.amount)}</dd>
<dt>Card</dt><dd>&bull;&bull;&bull;&bull; ${escapeHtml(options.cardSuffix)}</dd>
</dl>
<form method="post" action="${action}" class="inline">
<input type="hidden" name="result" value="pass">
<button type="submit" id="pass">Pass</button>
</form>
<form method="post" action="${action}" class="inline">
<input type="hidden" name="result" value="fail">
<button type="submit" id="fail">Fail</button>
</form>`
  )
}

/**
 * isWindowed Y (section 2.2): the shopper's page stays and the challenge
 * opens in a new window. Script opens it at once; the button is the fallback
 * when a popup blocker or disabled JavaScript stops that. The page watches
 * the session and moves on when the popup reports the result. Both the
 * popup's last page and this page's own polling move on through one guarded
 * function, so the shop page is navigated once: two navigations close
 * together abort the first (net::ERR_ABORTED in the browser test).
 */
export function windowedWaitPage(options: {
  challengeUrl: string
  statusUrl: string
  continueUrl: string
  windowName: string
}): string {
  const { challengeUrl, statusUrl, continueUrl, windowName } = options
  const script = `(function(){
var name=${JSON.stringify(windowName)};
try{window.open(${JSON.stringify(challengeUrl)},name,"width=480,height=640");}catch(e){}
var left=false;
function go(){if(left)return;left=true;window.location.replace(${JSON.stringify(continueUrl)});}
window.cardServiceSandboxContinue=go;
function poll(){
if(left)return;
fetch(${JSON.stringify(statusUrl)},{cache:"no-store"}).then(function(r){return r.json()}).then(function(s){
if(s.state==="decided"){go();}else{setTimeout(poll,500);}
},function(){setTimeout(poll,1000);});
}
setTimeout(poll,500);
})();`
  return page(
    "Waiting for 3-D Secure authentication",
    `<h1>Waiting for 3-D Secure authentication</h1>
<p>The authentication opens in a new window. This page continues by itself when it is finished.</p>
<form method="get" action="${escapeHtml(challengeUrl)}" target="${escapeHtml(windowName)}">
<button type="submit" id="open">Open the authentication window</button>
</form>
<form method="get" action="${escapeHtml(continueUrl)}">
<button type="submit" id="continue">I have finished the authentication</button>
</form>
<p class="note">Without JavaScript, press the second button once the authentication window says it is done.</p>`,
    script
  )
}

/** The last page of the authentication window: hands over to the opener and closes. */
export function windowDonePage(continueUrl: string): string {
  const script = `(function(){
try{var o=window.opener;if(o&&!o.closed){if(typeof o.cardServiceSandboxContinue==="function"){o.cardServiceSandboxContinue();}else{o.location.replace(${JSON.stringify(continueUrl)});}}}catch(e){}
window.close();
})();`
  return page(
    "Authentication finished",
    `<h1>Authentication finished</h1>
<p>You can close this window and go back to the shop.</p>
<p><a id="continue" href="${escapeHtml(continueUrl)}">Continue in this window</a></p>`,
    script
  )
}

export function authenticationFailedPage(
  details: Record<string, string>
): string {
  return errorPage(
    "3-D Secure authentication failed",
    "The cardholder could not be authenticated. The payment was not made. The shop has been told the result.",
    details
  )
}
