// The demo storefront's server: static files from demo/storefront plus a
// config.js with the backend URL and the publishable key. Tiny on purpose: a
// real storefront (the Next.js starter, ...) does the same store API calls.
"use strict"

const fs = require("node:fs")
const http = require("node:http")
const path = require("node:path")

const ROOT = path.resolve(__dirname, "..", "..", "demo", "storefront")

const FILES = {
  "/": ["index.html", "text/html; charset=utf-8"],
  "/storefront.js": ["storefront.js", "text/javascript; charset=utf-8"],
  "/order.js": ["order.js", "text/javascript; charset=utf-8"],
  "/style.css": ["style.css", "text/css; charset=utf-8"],
}

/**
 * Serves the storefront on `port` (127.0.0.1). `returnPath` is the page the
 * plugin's return route redirects to (the provider's returnPath option).
 */
function startStorefront({ port, host = "127.0.0.1", returnPath, config }) {
  const routes = {
    ...FILES,
    [returnPath]: ["order.html", "text/html; charset=utf-8"],
  }
  const configScript = `window.DEMO_CONFIG = ${JSON.stringify(config)}\n`

  const server = http.createServer((req, res) => {
    const { pathname } = new URL(req.url, "http://storefront")
    res.setHeader("Cache-Control", "no-store")
    res.setHeader(
      "Content-Security-Policy",
      `default-src 'self'; connect-src 'self' ${config.backendUrl}; img-src 'self' data:`
    )
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405).end()
      return
    }
    if (pathname === "/config.js") {
      res
        .writeHead(200, { "Content-Type": "text/javascript; charset=utf-8" })
        .end(configScript)
      return
    }
    const route = routes[pathname] ?? routes[pathname.replace(/\/$/, "")]
    if (!route) {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("Not found")
      return
    }
    const [file, type] = route
    res.writeHead(200, { "Content-Type": type })
    res.end(fs.readFileSync(path.join(ROOT, file)))
  })

  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, host, () => {
      resolve({
        close: () =>
          new Promise((done) => {
            server.close(() => done())
            server.closeAllConnections()
          }),
      })
    })
  })
}

module.exports = { startStorefront }
