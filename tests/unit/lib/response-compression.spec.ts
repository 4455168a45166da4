import zlib from "node:zlib"
import {
  chooseEncoding,
  COMPRESSION_THRESHOLD_BYTES,
  prepareBody,
} from "../../../src/lib/response-compression"

describe("chooseEncoding", () => {
  it.each([
    ["gzip, deflate, br, zstd", "br"],
    ["gzip, deflate", "gzip"],
    ["br;q=0.5, gzip", "gzip"],
    ["br;q=0, gzip;q=0", "identity"],
    ["gzip;q=0.2, br;q=0.2", "br"],
    ["*", "br"],
    ["*, br;q=0", "gzip"],
    ["identity", "identity"],
    ["deflate", "identity"],
    ["", "identity"],
    [undefined, "identity"],
    [["gzip", "br;q=0"], "gzip"],
  ])("%j -> %s", (header, encoding) => {
    expect(chooseEncoding(header as string | string[] | undefined)).toBe(
      encoding
    )
  })
})

function sink(initial: Record<string, string> = {}) {
  const headers = new Map(
    Object.entries(initial).map(([k, v]) => [
      k.toLowerCase(),
      v as string | number,
    ])
  )
  return {
    headers,
    setHeader: (name: string, value: string | number) =>
      headers.set(name.toLowerCase(), value),
    getHeader: (name: string) => headers.get(name.toLowerCase()),
  }
}

describe("prepareBody", () => {
  const page = "<!doctype html>" + "<p>Pay 17,40 €</p>".repeat(200)

  it.each([
    ["br", zlib.brotliDecompressSync],
    ["gzip", zlib.gunzipSync],
  ] as const)("compresses with %s and says so", (encoding, decode) => {
    const res = sink()
    const bytes = prepareBody(res, page, encoding)
    expect(res.headers.get("content-encoding")).toBe(encoding)
    expect(res.headers.get("content-length")).toBe(bytes.length)
    expect(bytes.length).toBeLessThan(Buffer.byteLength(page) / 4)
    expect(decode(bytes).toString("utf8")).toBe(page)
  })

  it("sends small bodies as they are, and always varies on Accept-Encoding", () => {
    const res = sink({ Vary: "Accept-Language" })
    const small = "x".repeat(COMPRESSION_THRESHOLD_BYTES - 1)
    const bytes = prepareBody(res, small, "br")
    expect(bytes.toString()).toBe(small)
    expect(res.headers.has("content-encoding")).toBe(false)
    expect(res.headers.get("vary")).toBe("Accept-Language, Accept-Encoding")
    prepareBody(res, small, "br")
    expect(res.headers.get("vary")).toBe("Accept-Language, Accept-Encoding")
  })
})
