import { adminRequestGuard } from "../../../src/api/admin/card-service/request-guard"

const ADMIN_CORS =
  "http://admin.example:7001, /.+\\.regex\\.example$/ ,,https://admin2.example"
const BACKEND = "backend.example:9000"
const FOREIGN = "https://attacker.example"

type Answer = { status: number; body?: unknown } | "next"

/** What the guard does with one request: answers it (status, body) or passes it on. */
function guard(
  headers: Record<string, string>,
  {
    method = "POST",
    protocol = "http",
    adminCors = ADMIN_CORS as string | undefined,
    config = undefined as object | undefined,
  } = {}
): Answer {
  let answer: Answer | undefined
  const res = {
    status(status: number) {
      return {
        json(body: unknown) {
          answer = { status, body }
          return res
        },
      }
    },
  }
  const req = {
    method,
    protocol,
    headers: { host: BACKEND, ...headers },
    scope: {
      resolve: (name: string) => {
        if (name !== "configModule") throw new Error(`resolved ${name}`)
        return (
          config ?? {
            projectConfig: {
              http: adminCors === undefined ? {} : { adminCors },
            },
          }
        )
      },
    },
  }
  adminRequestGuard(req as any, res as any, () => {
    answer = "next"
  })
  if (!answer)
    throw new Error("the guard neither answered nor passed the request on")
  return answer
}

const REFUSED = {
  status: 403,
  body: {
    type: "not_allowed",
    message:
      "Cross-site requests to the card-service admin routes are refused.",
  },
}
const NOT_JSON = {
  status: 415,
  body: {
    type: "unsupported_media_type",
    message: "The card-service admin routes take application/json bodies only.",
  },
}

describe("adminRequestGuard: cross-site requests with the admin's cookie", () => {
  const cookie = "connect.sid=s%3Aabc"

  it.each([
    ["Sec-Fetch-Site cross-site", { "sec-fetch-site": "cross-site" }],
    [
      "Sec-Fetch-Site Cross-Site (any case)",
      { "sec-fetch-site": "Cross-Site" },
    ],
    [
      "Sec-Fetch-Site cross-site from an admin origin",
      { "sec-fetch-site": "cross-site", origin: "http://admin.example:7001" },
    ],
    // Issue 30: a foreign Origin is judged with or without Fetch Metadata.
    ["a foreign Origin and no Sec-Fetch-Site", { origin: FOREIGN }],
    [
      "a foreign Origin and Sec-Fetch-Site same-site",
      { origin: FOREIGN, "sec-fetch-site": "same-site" },
    ],
    [
      "a foreign Origin and Sec-Fetch-Site same-origin",
      { origin: FOREIGN, "sec-fetch-site": "same-origin" },
    ],
    [
      "a foreign Origin and Sec-Fetch-Site none",
      { origin: FOREIGN, "sec-fetch-site": "none" },
    ],
    ["Origin null (a sandboxed frame or a redirect)", { origin: "null" }],
    ["the backend's host on another scheme", { origin: `https://${BACKEND}` }],
    [
      "the backend's host on another port",
      { origin: "http://backend.example:9001" },
    ],
    [
      "an admin origin with a path-like suffix",
      { origin: "http://admin.example:7001.attacker.example" },
    ],
    [
      "an origin that only the regular expression entry would match",
      { origin: "https://x.regex.example" },
    ],
    [
      "Sec-Fetch-Site same-site and no Origin",
      { "sec-fetch-site": "same-site" },
    ],
  ])("refuses %s (403)", (_, headers) => {
    expect(guard({ cookie, ...headers })).toEqual(REFUSED)
  })

  it.each([
    [
      "the backend's own origin",
      { origin: `http://${BACKEND}`, "sec-fetch-site": "same-origin" },
    ],
    [
      "the backend's own origin without Fetch Metadata",
      { origin: `http://${BACKEND}` },
    ],
    [
      "an admin origin (admin CORS)",
      { origin: "http://admin.example:7001", "sec-fetch-site": "same-site" },
    ],
    ["the last admin origin of the list", { origin: "https://admin2.example" }],
    [
      "no Origin and no Fetch Metadata (an old browser's same-origin request)",
      {},
    ],
    [
      "no Origin and Sec-Fetch-Site same-origin",
      { "sec-fetch-site": "same-origin" },
    ],
    [
      "no Origin and Sec-Fetch-Site none (typed into the address bar)",
      { "sec-fetch-site": "none" },
    ],
  ])("lets %s through", (_, headers) => {
    expect(guard({ cookie, ...headers })).toBe("next")
  })

  it("takes the backend's origin from X-Forwarded-Host behind a proxy, with the request's protocol", () => {
    const proxied = {
      cookie,
      host: "10.0.0.5:9000",
      "x-forwarded-host": "shop.example",
    }
    expect(
      guard(
        { ...proxied, origin: "https://shop.example" },
        { protocol: "https" }
      )
    ).toBe("next")
    expect(
      guard(
        { ...proxied, origin: "http://shop.example" },
        { protocol: "https" }
      )
    ).toEqual(REFUSED)
    expect(
      guard(
        { ...proxied, origin: "https://10.0.0.5:9000" },
        { protocol: "https" }
      )
    ).toEqual(REFUSED)
  })

  it("judges a request with no Host by the admin origins alone", () => {
    const req = { cookie, host: "", origin: `http://${BACKEND}` }
    expect(guard(req)).toEqual(REFUSED)
    expect(guard({ ...req, origin: "http://admin.example:7001" })).toBe("next")
  })

  it("works without admin CORS configured", () => {
    expect(
      guard({ cookie, origin: FOREIGN }, { adminCors: undefined })
    ).toEqual(REFUSED)
    expect(
      guard({ cookie, origin: `http://${BACKEND}` }, { adminCors: undefined })
    ).toBe("next")
  })

  it.each([
    ["no http settings", { projectConfig: {} }],
    ["no project settings", {}],
  ])("works with %s in the config", (_, config) => {
    expect(guard({ cookie, origin: FOREIGN }, { config })).toEqual(REFUSED)
    expect(guard({ cookie, origin: `http://${BACKEND}` }, { config })).toBe(
      "next"
    )
  })

  it("refuses cross-site GETs too: every admin route is behind the guard", () => {
    expect(guard({ cookie, origin: FOREIGN }, { method: "GET" })).toEqual(
      REFUSED
    )
  })

  it.each([
    [
      "an Authorization header (API key or bearer token)",
      { authorization: "Basic c2tfMTIzOg==" },
    ],
    ["no cookie (nothing ambient to ride on)", { cookie: "" }],
  ])("leaves the origin check out for %s", (_, headers) => {
    expect(
      guard({
        cookie,
        origin: FOREIGN,
        "sec-fetch-site": "cross-site",
        ...headers,
      })
    ).toBe("next")
  })
})

describe("adminRequestGuard: JSON bodies only", () => {
  const withBody = (
    contentType: string | undefined,
    extra: Record<string, string> = {}
  ) => ({
    ...(contentType === undefined ? {} : { "content-type": contentType }),
    "content-length": "12",
    ...extra,
  })

  it.each([
    ["a form", "application/x-www-form-urlencoded"],
    ["multipart", "multipart/form-data; boundary=x"],
    ["text/plain (a form's third encoding)", "text/plain"],
    ["no Content-Type", undefined],
    ["JSON only as a prefix", "application/jsonp"],
    ["+json with nothing before it", "application/+json"],
    ["+json not at the end", "application/vnd.x+json2"],
    ["+json of another top-level type", "text/vnd.x+json"],
    ["+json with a prefix", "xapplication/vnd.x+json"],
    ["a space inside the type", "application/vnd x+json"],
  ])("refuses %s (415)", (_, contentType) => {
    expect(guard(withBody(contentType))).toEqual(NOT_JSON)
  })

  it("refuses a chunked body that is not JSON", () => {
    expect(
      guard({ "content-type": "text/plain", "transfer-encoding": "chunked" })
    ).toEqual(NOT_JSON)
  })

  it.each([
    ["application/json", "application/json"],
    ["JSON with a charset", "application/json; charset=utf-8"],
    ["JSON in capitals, with spaces", "  Application/JSON ;charset=utf-8"],
    ["a +json type", "application/merge-patch+json"],
    ["a +json type with dots and digits", "application/vnd.api.v2+json"],
  ])("takes %s", (_, contentType) => {
    expect(guard(withBody(contentType))).toBe("next")
  })

  it.each([
    [
      "a POST with no body (Content-Length 0)",
      { "content-type": "text/plain", "content-length": "0" },
      "POST",
    ],
    [
      "a POST with no body and no length",
      { "content-type": "text/plain" },
      "POST",
    ],
    ["a GET", withBody("text/plain"), "GET"],
    ["a HEAD", withBody("text/plain"), "HEAD"],
    ["an OPTIONS", withBody("text/plain"), "OPTIONS"],
  ])("leaves %s alone", (_, headers, method) => {
    expect(guard(headers, { method })).toBe("next")
  })

  it.each(["DELETE", "PUT", "PATCH"])("judges the body of a %s", (method) => {
    expect(guard(withBody("text/plain"), { method })).toEqual(NOT_JSON)
  })

  it("judges the origin before the body", () => {
    expect(
      guard({ cookie: "a=b", origin: FOREIGN, ...withBody("text/plain") })
    ).toEqual(REFUSED)
  })
})
