import fs from "node:fs"
import path from "node:path"
import { adminRequestGuard } from "../../../src/api/admin/card-service/request-guard"
import { pluginInputGuard } from "../../../src/api/card-service/input-limits"
import middlewares from "../../../src/api/middlewares"
import { recordingResponse } from "../../helpers/recording-response"

/**
 * Which of the plugin's middlewares run in front of each of its routes, and
 * in what order, as Medusa 2.21 registers them: its ApiLoader sorts the
 * middlewares files' entries and the route files with its RoutesSorter and
 * hands each to express (`use` for an entry without methods, one verb per
 * method otherwise). The same sorter and the same express do it here, with
 * the route files found on disk, so a route added without the guards or an
 * entry dropped from middlewares.ts shows up as a changed chain.
 */
const httpDir = path.dirname(require.resolve("@medusajs/framework/http"))
const { RoutesSorter } = require(path.join(httpDir, "routes-sorter.js"))
const express = require(require.resolve("express", { paths: [httpDir] }))

const API_DIR = path.join(__dirname, "../../../src/api")
const SAMPLE_PARAMS: Record<string, string> = {
  session_id: "payses_01JABCDEFGHJKMNPQRSTVWXYZ0",
  payment_id: "pay_01JABCDEFGHJKMNPQRSTVWXYZ0",
}

type RouteFile = { method: string; matcher: string; url: string }

/** The plugin's routes: each route.ts under src/api and the verbs it exports, as Medusa's RoutesLoader reads them. */
function routeFiles(dir = API_DIR): RouteFile[] {
  const found: RouteFile[] = []
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) {
      found.push(...routeFiles(full))
      continue
    }
    if (entry.name !== "route.ts") continue
    const segments = path.relative(API_DIR, dir).split(path.sep)
    const matcher = `/${segments.map((s) => s.replace(/^\[(\w+)\]$/, ":$1")).join("/")}`
    const url = matcher.replace(/:(\w+)/g, (_, name) => SAMPLE_PARAMS[name])
    const source = fs.readFileSync(full, "utf8")
    for (const [, method] of source.matchAll(
      /export (?:async function|const) (GET|POST|PUT|PATCH|DELETE)\b/g
    )) {
      found.push({ method, matcher, url })
    }
  }
  return found
}

const label = (handler: unknown) =>
  handler === adminRequestGuard
    ? "guard"
    : handler === pluginInputGuard
      ? "input"
      : "validate"

type Entry = {
  matcher: string
  methods?: string[]
  handler: unknown
  isRoute?: true
  method?: string
  /** Which entry of middlewares.ts it comes from. */
  group?: number
}

/** One entry per middleware function, as Medusa's MiddlewareFileLoader flattens a middlewares file. */
function middlewareEntries(): Entry[] {
  return middlewares.routes!.flatMap((route, group) => {
    if (!route.matcher)
      throw new Error("Middleware is missing a `matcher` field")
    return (route.middlewares ?? []).map((handler) => ({
      handler,
      matcher: route.matcher as string,
      methods: route.methods as string[] | undefined,
      group,
    }))
  })
}

/**
 * The plugin middlewares one request passes, in order, up to its route.
 * `order`: "medusa" as Medusa sorts them; "reversed" the entries of
 * middlewares.ts in the opposite order, for the claim that the guard runs before body validation
 * whatever order Medusa gives matchers of different specificity.
 */
async function chainOf(
  method: string,
  url: string,
  order: "medusa" | "reversed" = "medusa"
) {
  const routes: Entry[] = routeFiles().map((r) => ({
    matcher: r.matcher,
    method: r.method,
    isRoute: true,
    handler: "route",
  }))
  let sorted: Entry[] = new RoutesSorter([
    ...middlewareEntries(),
    ...routes,
  ]).sort()
  if (order === "reversed") {
    // Entries in the opposite order; each entry's own list as written.
    sorted = [
      ...sorted
        .filter((e) => !e.isRoute)
        .sort((a, b) => (b.group as number) - (a.group as number)),
      ...sorted.filter((e) => e.isRoute),
    ]
  }
  const ran: string[] = []
  const router = express.Router()
  await new Promise<void>((resolve, reject) => {
    for (const entry of sorted) {
      if (entry.isRoute) {
        router[entry.method!.toLowerCase()](entry.matcher, () => {
          ran.push("route")
          resolve()
        })
      } else if (!entry.methods) {
        router.use(
          entry.matcher,
          (_req: unknown, _res: unknown, next: () => void) => {
            ran.push(label(entry.handler))
            next()
          }
        )
      } else {
        for (const verb of entry.methods) {
          router[verb.toLowerCase()](
            entry.matcher,
            (_req: unknown, _res: unknown, next: () => void) => {
              ran.push(label(entry.handler))
              next()
            }
          )
        }
      }
    }
    router.handle({ method, url, headers: {} }, {}, (error?: unknown) =>
      error
        ? reject(error)
        : reject(new Error(`${method} ${url} reached no route`))
    )
  })
  return ran
}

describe("the plugin's middlewares in front of each route, as Medusa registers them", () => {
  it("finds the plugin's routes", () => {
    expect(
      routeFiles()
        .map((r) => `${r.method} ${r.matcher}`)
        .sort()
    ).toEqual([
      "GET /admin/card-service/figures",
      "GET /admin/card-service/orders/:order_id/outstanding",
      "GET /admin/card-service/orders/:order_id/review",
      "GET /admin/card-service/payments/:payment_id/transactions",
      "GET /admin/card-service/reconciliation",
      "GET /admin/card-service/settings",
      "GET /admin/card-service/settings/changes",
      "GET /card-service/assets/pay-page.js",
      "GET /card-service/pay/:session_id",
      "GET /card-service/return/:session_id",
      "GET /store/card-service/sessions/:session_id",
      "GET /store/card-service/sessions/:session_id/form",
      "POST /admin/card-service/orders/:order_id/outstanding",
      "POST /admin/card-service/payments/:payment_id/unknown-refunds",
      "POST /admin/card-service/payments/:payment_id/void",
      "POST /admin/card-service/reconciliation",
      "POST /admin/card-service/settings",
      "POST /admin/card-service/test-connection",
      "POST /card-service/callback/:session_id",
      "POST /card-service/return/:session_id",
    ])
  })

  it.each([
    // Identifier limits first on every route; the cross-site and JSON-only
    // guard on every admin route, again in front of each body validator.
    [
      "GET",
      "/admin/card-service/payments/:payment_id/transactions",
      ["input", "guard", "route"],
    ],
    ["GET", "/admin/card-service/figures", ["input", "guard", "route"]],
    ["GET", "/admin/card-service/orders/:order_id/review", ["input", "guard", "route"]],
    ["GET", "/admin/card-service/orders/:order_id/outstanding", ["input", "guard", "route"]],
    [
      "POST",
      "/admin/card-service/orders/:order_id/outstanding",
      ["input", "guard", "guard", "validate", "route"],
    ],
    ["GET", "/admin/card-service/reconciliation", ["input", "guard", "route"]],
    ["GET", "/admin/card-service/settings", ["input", "guard", "route"]],
    [
      "GET",
      "/admin/card-service/settings/changes",
      ["input", "guard", "route"],
    ],
    [
      "POST",
      "/admin/card-service/payments/:payment_id/void",
      ["input", "guard", "guard", "validate", "route"],
    ],
    ["POST", "/admin/card-service/reconciliation", ["input", "guard", "route"]],
    [
      "POST",
      "/admin/card-service/settings",
      ["input", "guard", "guard", "validate", "route"],
    ],
    [
      "POST",
      "/admin/card-service/test-connection",
      ["input", "guard", "guard", "validate", "route"],
    ],
    ["GET", "/card-service/assets/pay-page.js", ["input", "route"]],
    ["GET", "/card-service/pay/:session_id", ["input", "route"]],
    ["GET", "/card-service/return/:session_id", ["input", "route"]],
    ["POST", "/card-service/return/:session_id", ["input", "route"]],
    ["POST", "/card-service/callback/:session_id", ["input", "route"]],
    ["GET", "/store/card-service/sessions/:session_id", ["input", "route"]],
    [
      "GET",
      "/store/card-service/sessions/:session_id/form",
      ["input", "route"],
    ],
  ])("%s %s runs %j", async (method, matcher, expected) => {
    const url = matcher.replace(/:(\w+)/g, (_, name) => SAMPLE_PARAMS[name])
    expect(await chainOf(method, url)).toEqual(expected)
  })

  it("guards every state-changing admin route before its body is validated, in either order", async () => {
    const changing = routeFiles().filter(
      (r) => r.method !== "GET" && r.matcher.startsWith("/admin/")
    )
    expect(changing.length).toBeGreaterThanOrEqual(4)
    for (const { method, url } of changing) {
      for (const order of ["medusa", "reversed"] as const) {
        const ran = await chainOf(method, url, order)
        const firstGuard = ran.indexOf("guard")
        expect({
          route: `${method} ${url}`,
          order,
          guarded: firstGuard >= 0,
        }).toEqual({
          route: `${method} ${url}`,
          order,
          guarded: true,
        })
        const validated = ran.indexOf("validate")
        if (validated >= 0) expect(firstGuard).toBeLessThan(validated)
      }
    }
  })

  it("answers a path express could not decode with 400 through Medusa's own error handler", () => {
    const logger = {
      info: jest.fn(),
      error: jest.fn(),
      warn: jest.fn(),
      debug: jest.fn(),
    }
    const answer = (error: unknown, originalUrl: string) => {
      const res = recordingResponse()
      const req = {
        originalUrl,
        path: originalUrl,
        scope: { resolve: () => logger },
      }
      const handler = middlewares.errorHandler
      if (typeof handler !== "function") {
        throw new Error("middlewares.ts sets no error handler")
      }
      handler(error, req as any, res as any, jest.fn())
      return { status: res.statusCode, body: res.body }
    }
    const undecodable = Object.assign(new URIError("Failed to decode param"), {
      status: 400,
      statusCode: 400,
    })

    expect(
      answer(undecodable, "/admin/card-service/payments/%E0%A4%A/transactions")
    ).toEqual({
      status: 400,
      body: expect.objectContaining({
        type: "invalid_data",
        message: "The URL is not validly percent-encoded.",
      }),
    })
    // Anything else is Medusa's answer, as without the plugin.
    expect(answer(new Error("boom"), "/admin/card-service/settings")).toEqual({
      status: 500,
      body: expect.objectContaining({ type: "unknown_error" }),
    })
  })
})
